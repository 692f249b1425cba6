// SPDX-License-Identifier: GPL-2.0
/*
 * rule-trapping-msr-read.c - trapping-msr-read, x86's rule: a
 * model-specific register read (RDMSR through
 * rdmsr(), rdmsrl(), rdmsr_safe(), rdmsrl_safe(), native_read_msr*())
 * on a hot path. RDMSR exits to the hypervisor unless it passes the MSR
 * through (its MSR bitmap); KVM's lists of the MSRs it may pass through
 * are read from the tree (checker/arch/x86/tables.def): a read of one of
 * them may not exit, and is a note, not a warning, when every host the
 * code runs on may pass it through: a VMX host's list for code of
 * arch/x86/kvm/vmx/, an SVM host's for svm/, both for the rest
 * (passthrough.def); otherwise it is a warning that says which host
 * lists it nowhere. A read of an MSR whose value the hardware changes
 * (a counter, a status register: checker/arch/x86/live-regs.def), for
 * which no cached copy exists, is a note too, whose advice is to read it
 * fewer times.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

#include "x86.h"

/*
 * The advice: the value where the kernel writes the MSR, as
 * x86_spec_ctrl_current keeps MSR_IA32_SPEC_CTRL's
 * (arch/x86/kernel/cpu/bugs.c).
 */
#define MSR_ADVICE	"keep the value in memory where the kernel writes " \
			"the MSR (a per-CPU copy, as x86_spec_ctrl_current " \
			"keeps MSR_IA32_SPEC_CTRL's) and read that"
/*
 * A counter or a status register (live-regs.def): the hardware changes
 * it, no copy is right, as rule-trapping-pmc-read.c says of RDPMC.
 */
#define MSR_LIVE_ADVICE	"no copy stands in for %s: read it fewer times " \
			"on the path (each read %s an exit)"
/*
 * An MSR chosen at run time may be either: the perf drivers' counters
 * (event->hw.event_base), the LBR records, MTRRs.
 */
#define MSR_ANY_ADVICE	"if the kernel writes it, keep the value in " \
			"memory where it does and read that; if the " \
			"hardware changes it (a counter, a record), no copy " \
			"stands in: read it fewer times on the path"

/* Is @arg an MSR as written, a msr-index.h name or a number? */
static bool msr_named(const char *arg)
{
	const char *p = arch_current()->reg_macro_prefix;

	return arg && ((p && !strncmp(arg, p, strlen(p))) ||
		       isdigit((unsigned char)arg[0]));
}

bool x86_msr_read_check(const struct rule_ctx *ctx, struct finding *f,
			enum rule_scope *scope)
{
	const struct x86_tables *t = ctx->graph->arch_tables;
	const char *msr = ctx->site->arg;
	const struct reg_def *reg;
	const char *live;
	char *lists, *missing, *host, *advice;

	(void)scope;
	if (ctx->def->class != SINK_MSR)
		return false;
	reg = reg_lookup_arg(ctx->def, msr);
	if (!reg || reg->trap == TRAP_NONE)
		return false;
	f->read.trap = reg_trap_name(reg->trap);
	if (!msr_named(msr)) {
		/* rdmsrl(msr, v) in a helper: the caller chooses. */
		f->doubt.unless =
			xasprintf("the MSR is chosen at run time (%s): "
				  "it may be one KVM passes through",
				  msr ? msr : "an expression");
		f->message = xasprintf("%s() reads an MSR chosen at run time "
				       "(traps under %s) on a hot path; %s",
				       ctx->def->name, f->read.trap,
				       MSR_ANY_ADVICE);
		return true;
	}
	f->read.reg = msr;
	/* The host the code runs on: VMX or SVM code, or either. */
	lists = x86_msr_lists(t, msr, cond_path_mode(ctx->site->file),
			      &missing);
	live = arch_live_reg(msr);
	if (live)
		f->doubt.unless =
			xasprintf("%s is %s: its value changes under the "
				  "kernel, so no copy in memory can stand "
				  "in for the read",
				  msr, live);
	else if (lists && !missing)
		f->doubt.unless =
			xasprintf("%s is on KVM's %s: a read does not "
				  "exit once KVM passes it through",
				  msr, lists);
	if (!t || !t->nr_msrs)
		host = xstrdup("; KVM's pass-through lists were not analysed");
	else if (lists && missing)
		host = xasprintf("; on a %s it is on none of KVM's lists, "
				 "only on %s", missing, lists);
	else
		host = xstrdup("");
	/* A counter KVM may pass through exits only where it does not. */
	advice = live ? xasprintf(MSR_LIVE_ADVICE, live,
				  lists ? "KVM does not pass through is" :
				  "is") :
			xstrdup(MSR_ADVICE);
	f->message = xasprintf("%s() reads %s (traps under %s%s) on a hot "
			       "path; %s", ctx->def->name, msr, f->read.trap,
			       host, advice);
	free(advice);
	free(host);
	free(missing);
	free(lists);
	return true;
}
