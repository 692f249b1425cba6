// SPDX-License-Identifier: GPL-2.0
/*
 * slow-entropy: arch_get_random_*() executes RNDR/RDRAND-class
 * instructions, hundreds of cycles each. "random: avoid superfluous call
 * to RDRAND in CRNG extraction": RDRAND on every CRNG extraction cost
 * 370%.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/guards.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

bool rule_slow_entropy(const struct rule_ctx *ctx, struct finding *f,
                       enum rule_scope *scope)
{
	if (ctx->def->class != SINK_ENTROPY)
		return false;
	/* Before the CRNG is ready, every bit helps (the patch above). */
	*scope = RULE_STEADY_PER_ROOT;
	f->message = xasprintf("%s() executes a slow entropy instruction on "
			       "a hot path; gate it with "
			       "unlikely(!crng_ready())", ctx->def->name);
	return true;
}

/*
 * That patch's fix: "if (arch_get_random_long(&v))" becomes
 * "if (unlikely(!crng_ready()) && arch_get_random_long(&v))".
 */
bool rule_slow_entropy_fix(const struct fix_ctx *ctx, struct fix_edit *e,
		      char **why)
{
	const struct finding *f = ctx->finding;
	const char *line;
	size_t col = f->site->col - 1, i;
	bool have = false;
	char *area;

	if (ctx->no_rewrite) {
		*why = xstrdup(ctx->no_rewrite);
		return false;
	}
	for (i = 0; i < ctx->src->nr_lines && !have; i++)
		have = strstr(ctx->src->lines[i], "crng_ready()") != NULL;
	if (!have) {
		*why = xasprintf("crng_ready() is not used in %s: no readiness "
				 "test to gate the call with", f->site->file);
		return false;
	}
	if (f->site->line > ctx->src->nr_lines)
		goto err_shape;
	line = ctx->src->lines[f->site->line - 1];
	if (col < 4 || strlen(line) < col ||
	    strncmp(line + col - 4, "if (", 4) ||
	    strncmp(line + col, finding_sink(f), strlen(finding_sink(f))))
		goto err_shape;
	e->first = e->last = f->site->line;
	fix_edit_add_line(e, "%.*sunlikely(!crng_ready()) && %s", (int)col,
			  line, line + col);
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: avoid %s() in %s() once the CRNG is ready",
			       area, finding_sink(f), f->fn->name);
	free(area);
	e->body = xasprintf("%s() calls %s() on every call, which executes a "
			    "slow entropy instruction (RDRAND/RNDR class, "
			    "hundreds of cycles). Once the CRNG is ready its "
			    "output does not need it; before that, every bit "
			    "helps. Only make the call while the CRNG is not "
			    "ready.", f->fn->name, finding_sink(f));
	return true;

err_shape:
	*why = xasprintf("the call is not the first operand of an if: gate "
			 "it with unlikely(!crng_ready()) by hand");
	return false;
}
