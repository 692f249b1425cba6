// SPDX-License-Identifier: GPL-2.0
/*
 * local-cap-check: this_cpu_has_cap() resolves a SCOPE_LOCAL_CPU
 * capability by reading the ID register from hardware on every call.
 * "arm64: archrandom: avoid trapping ID register read in __cpu_has_rng()":
 * __cpu_has_rng() on every early get_random_*().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

bool rule_local_cap_check(const struct rule_ctx *ctx, struct finding *f,
                          enum rule_scope *scope)
{
	const struct cap_table *t = &ctx->graph->caps;
	const char *name = ctx->site->arg ? ctx->site->arg : "...";
	const struct cap *cap;
	char *advice;

	if (ctx->def->class != SINK_LOCAL_CAP)
		return false;
	f->read.cap = ctx->site->arg;
	f->read.sanitised = -1;
	cap = ctx->site->arg ? caps_find(t, ctx->site->arg) : NULL;
	if (cap && cap->how && !cap->reads)
		return false;		/* its matches() reads no register */
	if (cap && cap->reads && cap->trap == TRAP_NONE)
		return false;		/* MIDR: virtualised, no trap */
	if (!cap || !cap->reads) {
		f->read.trap = trap_class_name(idreg_trap(NULL));
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
				       f->read.trap);
		return true;
	}
	f->read.reg = cap->reads;
	f->read.field = cap->field;
	f->read.trap = trap_class_name(cap->trap);
	advice = idreg_advice(t, cap->reads, cap->field, ctx->site->file,
			      &f->read.sanitised);
	/*
	 * A capability each CPU answers for itself (SCOPE_LOCAL_CPU alone:
	 * ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, local errata) may differ
	 * between CPUs: the sanitised copy is the system-wide value, not
	 * this CPU's, so it is no stand-in; the kernel's own answer for such
	 * features is a per-CPU record made at bring-up (amu_cpus).
	 */
	if (caps_per_cpu_only(cap)) {
		free(advice);
		advice = xasprintf("%s is a per-CPU capability, so the "
				   "sanitised copy (the system-wide value) "
				   "is no stand-in: record this CPU's answer "
				   "at CPU bring-up (per-CPU data or a "
				   "cpumask)", name);
	}
	f->message = xasprintf("%s(%s) reads %s (traps under %s) on a hot "
			       "path; %s", ctx->def->name, name, cap->reads,
			       f->read.trap, advice);
	free(advice);
	return true;
}

/*
 * The rewrite is the architecture's (struct arch_rules.fix_cap_check):
 * the cached test that stands in for the capability is its kernel's.
 */
bool fix_local_cap_check(const struct fix_ctx *ctx, struct fix_edit *e,
			 char **why)
{
	const struct arch_rules *r = arch_current()->rules;

	if (r && r->fix_cap_check)
		return r->fix_cap_check(ctx, e, why);
	*why = xasprintf("no rewrite of this capability check for %s",
			 arch_current()->name);
	return false;
}
