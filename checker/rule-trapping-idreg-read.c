// SPDX-License-Identifier: GPL-2.0
/*
 * trapping-idreg-read: an ID register read from hardware (read_cpuid(),
 * read_sysreg_s(), read_sysreg(), __read_sysreg_by_encoding()) whose
 * register traps to the hypervisor. Seed 004: cpu_has_hw_af() on every
 * page fault.
 */
#include <stdlib.h>

#include "trapcheck/rules.h"
#include "trapcheck/util.h"

/* What to do instead, from what the tree's arm64_ftr_regs[] holds. */
char *idreg_advice(const struct cap_table *t, const char *reg,
		   const char *field, int *sanitised)
{
	if (!t->have_ftr) {
		*sanitised = -1;
		return xasprintf("arm64_ftr_regs[] was not analysed "
				 "(arch/arm64/kernel/cpufeature.c): cache the "
				 "value or read the sanitised copy if it has "
				 "one");
	}
	*sanitised = caps_is_sanitised(t, reg);
	if (!*sanitised)
		return xasprintf("%s is not in arm64_ftr_regs[]: cache a "
				 "per-CPU or boot-time value", reg);
	if (field)
		return xasprintf("the sanitised copy is "
				 "read_sanitised_ftr_reg(SYS_%s), field %s",
				 reg, field);
	return xasprintf("the sanitised copy is "
			 "read_sanitised_ftr_reg(SYS_%s)", reg);
}

bool rule_trapping_idreg_read(const struct rule_ctx *ctx, struct finding *f,
                              enum rule_scope *scope)
{
	const struct cap_table *t = &ctx->graph->caps;
	const struct reg_def *reg;
	char *advice;

	if (ctx->def->class != SINK_IDREG)
		return false;
	f->sanitised = -1;
	reg = reg_lookup_arg(ctx->def, ctx->site->arg);
	if (!reg) {
		/* __read_sysreg_by_encoding(entry->sys_reg): any ID reg. */
		if (ctx->def->how != SINK_CALL)
			return false;
		f->trap = trap_class_name(TRAP_TID3);
		f->message = xasprintf("%s() reads an ID register from "
				       "hardware on a hot path (traps under "
				       "%s); read the sanitised copy with "
				       "read_sanitised_ftr_reg()",
				       ctx->def->name, f->trap);
		return true;
	}
	if (reg->trap == TRAP_NONE)
		return false;
	f->reg = reg->name;
	f->trap = trap_class_name(reg->trap);
	advice = idreg_advice(t, reg->name, NULL, &f->sanitised);
	f->message = xasprintf("%s(%s) reads %s (traps under %s) on a hot "
			       "path; %s", ctx->def->name, ctx->site->arg,
			       reg->name, f->trap, advice);
	free(advice);
	return true;
}
