// SPDX-License-Identifier: GPL-2.0
/*
 * rule-trapping-pmc-read.c - trapping-pmc-read, x86's rule: a performance
 * counter read (RDPMC through rdpmc(), rdpmcl(), native_read_pmc(), or
 * the instruction itself) on a hot path. A KVM guest's RDPMC exits on
 * both vendors: VMX's RDPMC exiting is one of the controls KVM requires
 * and SVM's RDPMC intercept is set for every vCPU (sinks.def), and KVM
 * emulates the read from its perf event. The counter's value is live,
 * so no copy in memory stands in for it: a finding is a note (as
 * trapping-msr-read's reads of a counter MSR are), with its chain and
 * rate, for who weighs a guest's perf use; --all-chains warns of it.
 */
#include <stdlib.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

#include "x86.h"

#define PMC_LIVE	"a performance counter is live: its value changes " \
			"under the kernel, so no copy in memory can stand " \
			"in for the read"
#define PMC_ADVICE	"no copy stands in for a live counter: read it " \
			"fewer times on the path (each read of a guest's " \
			"virtual PMU is an exit)"

bool x86_pmc_read_check(const struct rule_ctx *ctx, struct finding *f,
			enum rule_scope *scope)
{
	const struct reg_def *reg;
	char *what;

	(void)scope;
	if (ctx->def->class != SINK_PMC)
		return false;
	reg = reg_lookup_arg(ctx->def, NULL);
	if (!reg || reg->trap == TRAP_NONE)
		return false;
	f->read.trap = reg_trap_name(reg->trap);
	f->read.reg = reg->name;
	f->doubt.unless = xstrdup(PMC_LIVE);
	/* Who reads it: the wrapper's call, inline or .S assembly. */
	if (ctx->def->how == SINK_ASM)
		what = xasprintf("inline assembly executes %s, which reads",
				 sink_insn(ctx->def));
	else if (ctx->def->how == SINK_INSN)
		what = xasprintf("assembly executes %s, which reads",
				 sink_insn(ctx->def));
	else
		what = xasprintf("%s() reads", ctx->def->name);
	f->message = xasprintf("%s a performance counter (traps under %s) "
			       "on a hot path; %s", what, f->read.trap,
			       PMC_ADVICE);
	free(what);
	return true;
}
