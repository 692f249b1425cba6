// SPDX-License-Identifier: GPL-2.0
/*
 * trapping-idreg-read: an ID register read from hardware (read_cpuid(),
 * read_sysreg_s(), read_sysreg(), __read_sysreg_by_encoding()) whose
 * register traps to the hypervisor. Seed 004: cpu_has_hw_af() on every
 * page fault.
 */
#include "trapcheck/rules.h"
#include "trapcheck/util.h"

bool rule_trapping_idreg_read(const struct rule_ctx *ctx, struct finding *f)
{
	const struct reg_def *reg;

	if (ctx->def->class != SINK_IDREG)
		return false;
	reg = reg_lookup_arg(ctx->def, ctx->site->arg);
	if (!reg) {
		/* __read_sysreg_by_encoding(entry->sys_reg): any ID reg. */
		if (ctx->def->how != SINK_CALL)
			return false;
		f->trap = trap_class_name(TRAP_TID3);
		f->message = xasprintf("%s() reads an ID register from "
				       "hardware on a hot path: each read "
				       "traps to the hypervisor (%s)",
				       ctx->def->name, f->trap);
		return true;
	}
	if (reg->trap == TRAP_NONE)
		return false;
	f->reg = reg->name;
	f->trap = trap_class_name(reg->trap);
	if (reg->trap == TRAP_TID3)
		f->message = xasprintf("%s(%s) traps to the hypervisor (%s) "
				       "on a hot path; read the sanitised "
				       "copy: read_sanitised_ftr_reg(SYS_%s)",
				       ctx->def->name, ctx->site->arg,
				       f->trap, reg->name);
	else
		f->message = xasprintf("%s(%s) traps to the hypervisor (%s) "
				       "on a hot path; cache the value",
				       ctx->def->name, ctx->site->arg,
				       f->trap);
	return true;
}
