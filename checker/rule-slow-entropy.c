// SPDX-License-Identifier: GPL-2.0
/*
 * slow-entropy: arch_get_random_*() executes RNDR/RDRAND-class
 * instructions, hundreds of cycles each. Seed 003: RDRAND on every CRNG
 * extraction cost 370%.
 */
#include "trapcheck/rules.h"
#include "trapcheck/util.h"

bool rule_slow_entropy(const struct rule_ctx *ctx, struct finding *f,
                       enum rule_scope *scope)
{
	if (ctx->def->class != SINK_ENTROPY)
		return false;
	/* Before the CRNG is ready, every bit helps (seed 003). */
	*scope = RULE_STEADY_PER_ROOT;
	f->message = xasprintf("%s() executes a slow entropy instruction on "
			       "a hot path; gate it with "
			       "unlikely(!crng_ready())", ctx->def->name);
	return true;
}
