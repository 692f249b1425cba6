// SPDX-License-Identifier: GPL-2.0
/*
 * trapping-idreg-read: an ID register read from hardware (read_cpuid(),
 * read_sysreg_s(), read_sysreg(), __read_sysreg_by_encoding()) whose
 * register traps to the hypervisor. Commit a89c6bcdac22 ("arm64: Avoid
 * repeated AA64MMFR1_EL1 register read on pagefault path"):
 * cpu_has_hw_af() on every page fault.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/guards.h"
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

/*
 * The fix of commit a89c6bcdac22: the read becomes
 * read_sanitised_ftr_reg(SYS_<REG>), under that commit's comment, when the tree's arm64_ftr_regs[] serves the
 * register and the read is written on one line.
 */
bool fix_trapping_idreg_read(const struct fix_ctx *ctx, struct fix_edit *e,
			     char **why)
{
	const struct finding *f = ctx->finding;
	const char *line, *at, *close;
	size_t n = strlen(f->sink);
	char *ind, *area;

	if (!f->reg) {
		*why = xasprintf("%s() reads a register chosen at run time: "
				 "no single sanitised register to read",
				 f->sink);
		return false;
	}
	if (f->sanitised != 1) {
		*why = xasprintf("%s is not in the tree's arm64_ftr_regs[]: "
				 "no sanitised copy to read", f->reg);
		return false;
	}
	if (f->line > ctx->src->nr_lines)
		goto err_shape;
	line = ctx->src->lines[f->line - 1];
	at = line + f->col - 1;
	if (strlen(line) < f->col - 1 + n || strncmp(at, f->sink, n) ||
	    at[n] != '(')
		goto err_shape;
	close = strchr(at, ')');
	if (!close)
		goto err_shape;
	ind = line_indent(line);
	e->first = e->last = f->line;
	fix_edit_add_line(e, "%s/*", ind);
	fix_edit_add_line(e, "%s * Use cached version to avoid emulated msr "
			  "operation on KVM", ind);
	fix_edit_add_line(e, "%s * guests.", ind);
	fix_edit_add_line(e, "%s */", ind);
	fix_edit_add_line(e, "%.*sread_sanitised_ftr_reg(SYS_%s)%s",
			  (int)(at - line), line, f->reg, close + 1);
	free(ind);
	area = fix_area(f->file);
	e->subject = xasprintf("%s: avoid trapping ID register read in %s()",
			       area, f->function);
	free(area);
	e->body = xasprintf("%s() reads %s from hardware with %s(). Under "
			    "virtualization the hypervisor traps guest reads "
			    "of the ID registers (%s): each read is a "
			    "vmexit.\n\nThe register is invariant after boot "
			    "and the kernel keeps its sanitised value in "
			    "arm64_ftr_regs[]: read_sanitised_ftr_reg() "
			    "returns it from memory, with no register access "
			    "and hence no trap.", f->function, f->reg,
			    f->sink, f->trap);
	return true;

err_shape:
	*why = xasprintf("the read is not written as %s(...) on one line",
			 f->sink);
	return false;
}
