// SPDX-License-Identifier: GPL-2.0
/*
 * local-cap-check: this_cpu_has_cap() resolves a SCOPE_LOCAL_CPU
 * capability by reading the ID register from hardware on every call.
 * Seed 000: __cpu_has_rng() on every early get_random_*().
 */
#include <stdlib.h>

#include "trapcheck/rules.h"
#include "trapcheck/util.h"

bool rule_local_cap_check(const struct rule_ctx *ctx, struct finding *f,
                          enum rule_scope *scope)
{
	const struct cap_table *t = &ctx->graph->caps;
	const char *name = ctx->site->arg ? ctx->site->arg : "...";
	const struct cap *cap;
	char *advice;

	if (ctx->def->class != SINK_LOCAL_CAP)
		return false;
	f->cap = ctx->site->arg;
	f->sanitised = -1;
	cap = ctx->site->arg ? caps_find(t, ctx->site->arg) : NULL;
	if (cap && cap->how && !cap->reads)
		return false;		/* its matches() reads no register */
	if (cap && cap->reads && cap->trap == TRAP_NONE)
		return false;		/* MIDR: virtualised, no trap */
	if (!cap || !cap->reads) {
		f->trap = trap_class_name(TRAP_TID3);
		f->message = xasprintf("%s(%s) may read an ID register from "
				       "hardware on a hot path (%s); each "
				       "read traps under %s",
				       ctx->def->name, name,
				       !t->have_caps ?
				       "the capability tables were not "
				       "analysed" :
				       cap ? "what its matches() reads is "
				       "not resolved" :
				       "capability not found in the tree",
				       f->trap);
		return true;
	}
	f->reg = cap->reads;
	f->field = cap->field;
	f->trap = trap_class_name(cap->trap);
	advice = idreg_advice(t, cap->reads, cap->field, &f->sanitised);
	f->message = xasprintf("%s(%s) reads %s (traps under %s) on a hot "
			       "path; %s", ctx->def->name, name, cap->reads,
			       f->trap, advice);
	free(advice);
	return true;
}
