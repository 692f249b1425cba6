// SPDX-License-Identifier: GPL-2.0
/*
 * preempt-guard: a per-CPU answer needs the CPU to stay put.
 *
 * 1. Before capabilities are finalized, a read of the system-wide
 *    sanitised register (read_sanitised_ftr_reg(), alone or under
 *    SYS_FIELD_GET()/cpuid_feature_extract_*()) may stand in for
 *    this_cpu_has_cap() only while !preemptible() guards it (the review
 *    of "arm64: archrandom: avoid trapping ID register read in
 *    __cpu_has_rng()"): secondary CPUs coming online only lower the sanitised
 *    value, so the answer is right for the CPU the caller is pinned to,
 *    and may belong to another CPU otherwise.
 * 2. this_cpu_has_cap() WARN_ON()s when preemptible(): reported when it
 *    is reached with no step of the chain non-preemptible: a
 *    !preemptible() guard, or a call made inside a region where
 *    interrupts are masked, preemption is disabled or a spinlock is held
 *    (checker/model/regions.def, in source order: a callee inherits the region
 *    its call is made in).
 */
#include <stdlib.h>

#include "trapcheck/model/guards.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

bool rule_preempt_guard(const struct rule_ctx *ctx, struct finding *f,
			enum rule_scope *scope)
{
	const char *guards = ctx->site->guards;

	if (guards_have(guards, GUARD_NOT_PREEMPTIBLE))
		return false;
	if (ctx->def->class == SINK_CACHED) {
		if (!guards_have(guards, GUARD_CAPS_UNFINALIZED))
			return false;
		*scope = RULE_ONCE;
		f->message = xasprintf("%s() stands in for a per-CPU check "
				       "before capabilities are finalized but "
				       "!preemptible() does not guard it: the "
				       "answer may belong to another CPU; "
				       "keep the !preemptible() guard",
				       ctx->def->name);
		return true;
	}
	if (ctx->def->class != SINK_LOCAL_CAP)
		return false;
	f->read.cap = ctx->site->arg;
	f->message = xasprintf("%s(%s) may run preemptible on this path (it "
			       "WARN_ON()s then): guard it with "
			       "!preemptible() or disable preemption",
			       ctx->def->name,
			       ctx->site->arg ? ctx->site->arg : "...");
	return true;
}

/* A function on the chain that disables preemption covers the site. */
bool rule_preempt_guard_chain(const struct rule_ctx *ctx,
			      const struct finding *f,
			      const struct root_set *set)
{
	size_t i;

	if (ctx->def->class != SINK_LOCAL_CAP)
		return true;
	/* Roots that run with preemption disabled ("context: atomic"). */
	if (set->atomic)
		return false;
	for (i = 0; i < f->chains[0].len; i++) {
		const struct chain_step *s = &f->chains[0].steps[i];

		if (guards_have(s->guards, GUARD_NOT_PREEMPTIBLE))
			return false;
	}
	return true;
}
