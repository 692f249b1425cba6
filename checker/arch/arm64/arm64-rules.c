// SPDX-License-Identifier: GPL-2.0
/*
 * arch/arm64-rules.c - arm64's part of the trapping-idreg-read rule: the
 * cached alternative the kernel keeps for an ID register (the sanitised
 * copy, read_sanitised_ftr_reg(), when the tree's arm64_ftr_regs[] serves
 * the register) as advice, and the rewrite of commit a89c6bcdac22
 * ("arm64: Avoid repeated AA64MMFR1_EL1 register read on pagefault path")
 * as a fix. struct arch reaches them (arch_arm64.read_advice, .fix_read).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/graph/caps.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/base/util.h"

#include "arm64.h"

/* What to do instead, from what the tree's arm64_ftr_regs[] holds. */
/*
 * In hyp code (the architecture's no_rewrite paths: EL2, linked on its
 * own), read_sanitised_ftr_reg() cannot be called: the copy the host
 * keeps for it, when the tree has one (tables.def: the "*_sys_val"
 * globals), else a value read once at init.
 */
static char *hyp_advice(const struct cap_table *t, const char *reg)
{
	char *name = xasprintf("%s_sys_val", reg), *p, *s;

	for (p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (caps_has_hyp_copy(t, name))
		s = xasprintf("in hyp code, where read_sanitised_ftr_reg() "
			      "cannot be called, read the copy the host keeps, "
			      "%s (kvm_nvhe_sym(%s), set at KVM's init)", name,
			      name);
	else
		s = xasprintf("in hyp code, where read_sanitised_ftr_reg() "
			      "cannot be called and the tree keeps no copy of "
			      "%s, read it once at init into per-CPU host data "
			      "and use that", reg);
	free(name);
	return s;
}

static bool in_hyp(const char *file)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; file && i < a->nr_no_rewrite; i++)
		if (!strncmp(file, a->no_rewrite[i].prefix,
			     strlen(a->no_rewrite[i].prefix)))
			return true;
	return false;
}

static char *read_advice(const struct cap_table *t, const char *reg,
			 const char *field, const char *file, int *sanitised)
{
	if (in_hyp(file)) {
		*sanitised = t->have_ftr ? caps_is_sanitised(t, reg) : -1;
		return hyp_advice(t, reg);
	}
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

/* The fields of one register a function tests, as *_SHIFT spellings. */
struct tested_fields {
	char **shift;
	size_t nr, alloc;
	bool nonstrict;		/* one of them is FTR_NONSTRICT */
};

static void add_field(struct tested_fields *tf, const char *s, size_t n)
{
	strv_add_once(&tf->shift, &tf->nr, &tf->alloc, s, n);
}

/*
 * The identifier that starts at @p after blanks, or on the next line when
 * @p's line ends first (a SYS_FIELD_GET() split over two lines); its end
 * in *@end. NULL when there is none.
 */
static const char *next_ident(const struct src_file *src, unsigned int l,
			      const char *p, const char **end)
{
	while (isspace((unsigned char)*p))
		p++;
	if (!*p && l < src->nr_lines) {
		p = src->lines[l];
		while (isspace((unsigned char)*p))
			p++;
	}
	for (*end = p; ident_char(**end); (*end)++)
		;
	return *end > p ? p : NULL;
}

/*
 * The fields of @reg that the rest of the function (from line @from to
 * its closing brace in column 0, kernel style) names, as REG_Field_SHIFT:
 * REG_Field_SHIFT and REG_Field_MASK (FIELD_GET(), masks), the spelling
 * of older trees without _EL1 (ID_AA64MMFR1_HADBS_SHIFT), and
 * SYS_FIELD_GET(REG, Field, ...). A value returned or passed on whole is
 * not followed (docs/fixes.md).
 */
static void fields_tested(const struct src_file *src, unsigned int from,
			  const char *reg, struct tested_fields *tf)
{
	size_t nreg = strlen(reg), nbase = nreg;
	unsigned int l;

	if (nbase > 4 && !strcmp(reg + nbase - 4, "_EL1"))
		nbase -= 4;
	for (l = from; l <= src->nr_lines; l++) {
		const char *line = src->lines[l - 1], *p, *q, *f;

		if (l > from && line[0] == '}')
			break;
		for (p = line; *p; p++) {
			if (p > line && ident_char(p[-1]))
				continue;
			if (!strncmp(p, "SYS_FIELD_GET(", 14)) {
				q = next_ident(src, l, p + 14, &f);
				if (!q || (size_t)(f - q) != nreg ||
				    strncmp(q, reg, nreg))
					continue;
				for (q = f; isspace((unsigned char)*q); q++)
					;
				if (*q != ',')
					continue;
				f = next_ident(src, l, q + 1, &q);
				if (f) {
					char *s = xasprintf("%s_%.*s_SHIFT",
							    reg, (int)(q - f),
							    f);

					add_field(tf, s, strlen(s));
					free(s);
				}
				continue;
			}
			if (strncmp(p, reg, nbase) || p[nbase] != '_')
				continue;
			for (q = p; ident_char(*q); q++)
				;
			if (q - p > 6 && !strncmp(q - 6, "_SHIFT", 6)) {
				add_field(tf, p, q - p);
			} else if (q - p > 5 && !strncmp(q - 5, "_MASK", 5)) {
				char *s = xasprintf("%.*s_SHIFT",
						    (int)(q - p - 5), p);

				add_field(tf, s, strlen(s));
				free(s);
			}
			p = q - 1;
		}
	}
}

/*
 * read_sanitised_ftr_reg() answers for a field only when the register's
 * arm64_ftr_bits array describes it: init_cpu_ftr_reg() keeps only the
 * described bits (val &= valid_mask), so any other field reads as 0. A
 * test of such a field would change meaning (upstream kept a per-CPU
 * value instead: 38131c02a53f "KVM: arm64: Track presence of SPE/TRBE in
 * kvm_host_data instead of vCPU"). False, and why, when one is tested.
 */
static bool fields_served(const struct fix_ctx *ctx, const char *reg,
			  struct tested_fields *tf, char **why)
{
	const struct cap_table *t = &ctx->graph->caps;
	size_t i;

	fields_tested(ctx->src, ctx->finding->line, reg, tf);
	for (i = 0; i < tf->nr; i++) {
		switch (caps_ftr_field(t, reg, tf->shift[i])) {
		case FTR_FIELD_ABSENT:
			*why = xasprintf("%s() tests %s, a field the tree's "
					 "arm64_ftr_bits of %s do not "
					 "describe: read_sanitised_ftr_reg() "
					 "returns 0 there; keep this CPU's "
					 "value, cached at CPU bring-up",
					 ctx->finding->function, tf->shift[i],
					 reg);
			return false;
		case FTR_FIELD_NONSTRICT:
			tf->nonstrict = true;
			break;
		default:
			break;
		}
	}
	return true;
}

static void tested_fields_free(struct tested_fields *tf)
{
	size_t i;

	for (i = 0; i < tf->nr; i++)
		free(tf->shift[i]);
	free(tf->shift);
}

/*
 * The fix of commit a89c6bcdac22: the read becomes
 * read_sanitised_ftr_reg(SYS_<REG>), under that commit's comment, when the tree's arm64_ftr_regs[] serves the
 * register and the read is written on one line.
 */
static bool fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		     char **why)
{
	const struct finding *f = ctx->finding;
	struct tested_fields tf = { 0 };
	const char *line, *at, *close;
	char *ind, *area;

	if (!f->read.reg) {
		*why = xasprintf("%s() reads a register chosen at run time: "
				 "no single sanitised register to read",
				 f->sink);
		return false;
	}
	if (f->read.sanitised != 1) {
		*why = xasprintf("%s is not in the tree's arm64_ftr_regs[]: "
				 "no sanitised copy to read", f->read.reg);
		return false;
	}
	if (f->line > ctx->src->nr_lines)
		goto err_shape;
	if (!fields_served(ctx, f->read.reg, &tf, why)) {
		tested_fields_free(&tf);
		return false;
	}
	at = fix_sink_call(ctx, &line);
	if (!at)
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
			  (int)(at - line), line, f->read.reg, close + 1);
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
			    "and hence no trap.%s", f->function, f->read.reg,
			    f->sink, f->read.trap, tf.nonstrict ?
			    "\n\nA field the function tests is FTR_NONSTRICT: "
			    "the sanitised value is the system-wide safe "
			    "value, which every CPU now sees." : "");
	tested_fields_free(&tf);
	return true;

err_shape:
	tested_fields_free(&tf);
	*why = xasprintf("the read is not written as %s(...) on one line",
			 f->sink);
	return false;
}

const struct arch_rules arm64_rules = {
	.read_advice = read_advice,
	.any_read_advice = "read the sanitised copy with "
			   "read_sanitised_ftr_reg()",
	.fix_read = fix_read,
	.fix_cap_check = arm64_fix_cap_check,
};
