// SPDX-License-Identifier: GPL-2.0
/*
 * trapping-idreg-read: an ID register read from hardware (read_cpuid(),
 * read_sysreg_s(), read_sysreg(), __read_sysreg_by_encoding()) whose
 * register traps to the hypervisor. Commit a89c6bcdac22 ("arm64: Avoid
 * repeated AA64MMFR1_EL1 register read on pagefault path"):
 * cpu_has_hw_af() on every page fault. The advice and the rewrite are
 * the architecture's (arm64: checker/arch/arm64/arm64-rules.c).
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

bool rule_trapping_idreg_read(const struct rule_ctx *ctx, struct finding *f,
                              enum rule_scope *scope)
{
	const struct reg_def *reg;
	char *advice, *what;

	if (ctx->def->class != SINK_IDREG)
		return false;
	f->read.cached = -1;
	reg = reg_lookup_arg(ctx->def, ctx->site->arg);
	if (!reg) {
		/* __read_sysreg_by_encoding(entry->sys_reg): any ID reg. */
		if (ctx->def->how != SINK_CALL)
			return false;
		f->read.trap = reg_trap_name(reg_idreg_trap(NULL));
		advice = advice_any_read_at(ctx->site->guards,
					    ctx->func->name);
		f->message = xasprintf("%s() reads an ID register from "
				       "hardware on a hot path (traps under "
				       "%s); %s", ctx->def->name, f->read.trap,
				       advice);
		free(advice);
		return true;
	}
	if (reg->trap == TRAP_NONE)
		return false;
	f->read.reg = reg->name;
	f->read.trap = reg_trap_name(reg->trap);
	/* x86: cpuid_ebx(7) & (1u << 20), X86_FEATURE_SMAP in the tree. */
	f->read.mask = ctx->site->mask;
	f->read.feature = ctx->site->feature;
	advice = advice_read(ctx->graph, &(struct read_ask){
				.reg = reg->name, .field = f->read.feature,
				.fields = ctx->site->fields,
				.fn = ctx->func->name, .file = ctx->site->file,
				.guards = ctx->site->guards,
				.sink = ctx->def->name, .arg = ctx->site->arg,
			     }, &f->read.cached);
	/*
	 * x86: __asm__("cpuid" ...) in library code; with no output
	 * operand, CPUID as a serializing instruction, which no cached
	 * answer replaces.
	 */
	if (ctx->def->how == SINK_ASM && ctx->site->arg &&
	    !strcmp(ctx->site->arg, "serialize")) {
		free(advice);
		advice = xstrdup(advice_serialize());
		what = xasprintf("inline assembly executes %s to serialize "
				 "(no output operand: its results are not "
				 "read)", sink_insn(ctx->def));
	} else if (ctx->def->how == SINK_ASM)
		what = xasprintf("inline assembly executes %s",
				 sink_insn(ctx->def));
	else if (ctx->def->how == SINK_INSN) {
		/* A .S line: no C helper is called from there. */
		char *a = advice;

		what = ctx->site->arg ?
		       xasprintf("assembly executes %s of %s",
				 sink_insn(ctx->def), reg->name) :
		       xasprintf("assembly executes %s", sink_insn(ctx->def));
		advice = xasprintf("%s; from assembly, load a copy kept in "
				   "memory or pass the value in from C", a);
		free(a);
	} else
		what = xasprintf("%s(%s) reads %s", ctx->def->name,
				 ctx->site->arg ? ctx->site->arg : "",
				 reg->name);
	f->message = xasprintf("%s (traps under %s) on a hot path; %s", what,
			       f->read.trap, advice);
	free(what);
	free(advice);
	return true;
}

/* The architecture's rewrite: arm64's reads the sanitised copy. */
bool rule_trapping_idreg_read_fix(const struct fix_ctx *ctx, struct fix_edit *e,
			     char **why)
{
	int k = sink_lookup_name(finding_sink(ctx->finding));

	/* A .S line: no C rewrite fits there. */
	if (k >= 0 && sink_at(k)->how == SINK_INSN) {
		*why = xstrdup("an assembly source: no rewrite is written "
			       "there (load a copy kept in memory, or pass "
			       "the value in from C)");
		return false;
	}
	return advice_fix_read(ctx, e, why);
}
