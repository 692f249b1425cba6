// SPDX-License-Identifier: GPL-2.0
/*
 * trapping-msr-read: a model-specific register read (x86 RDMSR through
 * rdmsr(), rdmsrl(), rdmsr_safe(), rdmsrl_safe(), native_read_msr*())
 * on a hot path. RDMSR exits to the hypervisor unless it passes the MSR
 * through (its MSR bitmap); KVM's lists of the MSRs it may pass through
 * are read from the tree (checker/arch/x86/tables.def): a read of one of
 * them may not exit, and is a note, not a warning. So is a read of an MSR
 * whose value the hardware changes (a counter, a status register:
 * checker/arch/x86/live-msrs.def), for which no cached copy exists.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/graph/caps.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

/* Is @arg an MSR as written, a msr-index.h name or a number? */
static bool msr_named(const char *arg)
{
	const char *p = arch_current()->reg_macro_prefix;

	return arg && ((p && !strncmp(arg, p, strlen(p))) ||
		       isdigit((unsigned char)arg[0]));
}

bool rule_trapping_msr_read(const struct rule_ctx *ctx, struct finding *f,
			    enum rule_scope *scope)
{
	const struct cap_table *t = &ctx->graph->caps;
	const char *msr = ctx->site->arg;
	const struct reg_def *reg;
	const char *live;
	char *lists;

	(void)scope;
	if (ctx->def->class != SINK_MSR)
		return false;
	reg = reg_lookup_arg(ctx->def, msr);
	if (!reg || reg->trap == TRAP_NONE)
		return false;
	f->read.trap = trap_class_name(reg->trap);
	if (!msr_named(msr)) {
		/* rdmsrl(msr, v) in a helper: the caller chooses. */
		f->doubt.unless =
			xasprintf("the MSR is chosen at run time (%s): "
				  "it may be one KVM passes through",
				  msr ? msr : "an expression");
		f->message = xasprintf("%s() reads an MSR chosen at run time "
				       "(traps under %s) on a hot path; %s",
				       ctx->def->name, f->read.trap,
				       msr_advice());
		return true;
	}
	f->read.reg = msr;
	lists = caps_msr_lists(t, msr);
	live = live_reg(msr);
	if (live)
		f->doubt.unless =
			xasprintf("%s is %s: its value changes under the "
				  "kernel, so no copy in memory can stand "
				  "in for the read",
				  msr, live);
	else if (lists)
		f->doubt.unless =
			xasprintf("%s is on KVM's %s: a read does not "
				  "exit once KVM passes it through",
				  msr, lists);
	f->message = xasprintf("%s() reads %s (traps under %s%s) on a hot "
			       "path; %s", ctx->def->name, msr, f->read.trap,
			       t->nr_msrs ? "" :
			       "; KVM's pass-through lists were not analysed",
			       msr_advice());
	free(lists);
	return true;
}
