// SPDX-License-Identifier: GPL-2.0
/*
 * arch/x86-rules.c - x86's part of the trapping-idreg-read and
 * trapping-msr-read rules: the answers the kernel keeps of CPUID
 * (boot_cpu_data and cpu_data(cpu), their x86_capability[] feature words,
 * filled at boot and CPU bring-up by arch/x86/kernel/cpu/common.c) as
 * advice, and the rewrite of a one-bit CPUID test into boot_cpu_has() of
 * the X86_FEATURE_* that the tree's cpufeatures.h names for that bit.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/caps.h"
#include "trapcheck/base/util.h"

#include "x86.h"

/* @field: the X86_FEATURE_* the code tests, when the tree names it. */
static char *read_advice(const struct cap_table *t, const char *reg,
			 const char *field, const char *file, int *sanitised)
{
	(void)t;
	(void)file;
	*sanitised = -1;
	if (field)
		return xasprintf("the kernel keeps %s's answers in "
				 "boot_cpu_data: the bit tested is %s, test "
				 "boot_cpu_has(%s) or cpu_feature_enabled(%s)",
				 reg, field, field, field);
	return xasprintf("the kernel keeps %s's answers in boot_cpu_data "
			 "and cpu_data(cpu): test the feature with "
			 "boot_cpu_has() or cpu_feature_enabled(), or cache "
			 "the leaf at boot", reg);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The end of the operand at @p: "(...)", "NAME(...)", a name or number. */
static const char *operand_end(const char *p)
{
	int depth = 0;

	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (*p != '(')
		return p;
	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth)
			return p + 1;
	}
	return NULL;
}

/* Does text ending at @end (from @line) end with @s, spaces left out? */
static bool ends_with(const char *line, const char *end, const char *s)
{
	size_t n = strlen(s);

	while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return (size_t)(end - line) >= n && !strncmp(end - n, s, n);
}

/*
 * Is the test's value used only for its truth where it stands: in a
 * condition ("if (", "while (", "&&", "||") or returned from a function
 * that returns bool? ("!v & BIT" tests !v.) Then boot_cpu_has() (0 or 1)
 * replaces
 * "value & bit" (0 or the bit) with no change of meaning.
 */
static bool truth_only(const struct fix_ctx *ctx, const char *line,
		       const char *at, const char *after)
{
	const struct finding *f = ctx->finding;
	const char *a = skip_space(after);
	bool before, follows;

	before = ends_with(line, at, "if (") || ends_with(line, at, "if(") ||
		 ends_with(line, at, "while (") || ends_with(line, at, "&&") ||
		 ends_with(line, at, "||");
	follows = *a == ')' || !strncmp(a, "&&", 2) || !strncmp(a, "||", 2);
	if (before && follows)
		return true;
	if (ends_with(line, at, "return") && *a == ';' && f->func_file &&
	    !strcmp(f->func_file, f->file) && f->func_line >= 1 &&
	    f->func_line <= ctx->src->nr_lines) {
		const char *d = ctx->src->lines[f->func_line - 1];
		const char *name = strstr(d, f->function);

		/* The return type, just before the function's name. */
		return name && name - d >= 5 && !strncmp(name - 5, "bool ", 5);
	}
	return false;
}

/* cpuid_ebx(0x7) & (1u << 20) -> boot_cpu_has(X86_FEATURE_SMAP) */
static bool fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		     char **why)
{
	const struct finding *f = ctx->finding;
	const char *line, *at, *p, *op, *end;
	size_t n = strlen(f->sink);
	char *mask, *area;
	int bit;

	if (!f->read.feature) {
		if (!strncmp(f->sink, "asm:", 4) &&
		    sink_lookup(SINK_ASM, f->sink + 4) >= 0)
			*why = xasprintf("CPUID in inline assembly: no feature "
					 "test to rewrite; cache the leaf at "
					 "boot, or serialize without it");
		else if (f->read.mask && mask_bit(f->read.mask) >= 0)
			*why = xasprintf("no X86_FEATURE_* of the tree names "
					 "bit %d of %s(): cache the leaf at "
					 "boot",
					 mask_bit(f->read.mask), f->sink);
		else
			*why = f->read.mask ?
			       xasprintf("%s()'s value is tested with %s, "
					 "not one bit: cache the leaf at boot",
					 f->sink, f->read.mask) :
			       xasprintf("%s()'s value is not tested for one "
					 "bit there: cache the leaf at boot",
					 f->sink);
		return false;
	}
	at = fix_sink_call(ctx, &line);
	if (!at)
		goto err_shape;
	p = strchr(at + n, ')');
	if (!p)
		goto err_shape;
	p = skip_space(p + 1);
	if (*p != '&' || p[1] == '&')
		goto err_shape;
	op = skip_space(p + 1);
	end = operand_end(op);
	if (!end || end == op)
		goto err_shape;
	mask = xasprintf("%.*s", (int)(end - op), op);
	bit = mask_bit(mask);
	free(mask);
	if (bit < 0 || bit != mask_bit(f->read.mask))
		goto err_shape;
	if (!truth_only(ctx, line, at, end)) {
		*why = xasprintf("%s() & %s is used for more than its truth "
				 "there: boot_cpu_has() returns 0 or 1, not "
				 "the bit", f->sink, f->read.mask);
		return false;
	}
	e->first = e->last = f->line;
	fix_edit_add_line(e, "%.*sboot_cpu_has(%s)%s", (int)(at - line), line,
			  f->read.feature, end);
	area = fix_area(f->file);
	e->subject = xasprintf("%s: test %s with boot_cpu_has() in %s()",
			       area, f->read.feature, f->function);
	free(area);
	e->body = xasprintf("%s() executes CPUID to test one bit, %s. "
			    "Under virtualization CPUID always exits to the "
			    "hypervisor: each call is a VM exit.\n\nThe "
			    "kernel reads the leaf at boot and keeps the bit "
			    "as %s in boot_cpu_data: boot_cpu_has() tests it "
			    "in memory.",
			    f->function, f->read.mask, f->read.feature);
	return true;

err_shape:
	*why = xasprintf("the test is not written as %s(...) & %s on one "
			 "line", f->sink, f->read.mask ? f->read.mask : "BIT");
	return false;
}

const struct arch_rules x86_rules = {
	.read_advice = read_advice,
	.any_read_advice = "cache the value at boot",
	/*
	 * SERIALIZE (X86_FEATURE_SERIALIZE) does not exit; sync_core()
	 * uses it where the CPU has it (arch/x86/include/asm/sync_core.h).
	 */
	.serialize_advice = "no cached answer replaces it: serialize with "
			    "SERIALIZE where the CPU has it "
			    "(X86_FEATURE_SERIALIZE, as sync_core() does), or "
			    "use the operation's own command where there is "
			    "one",
	.fix_read = fix_read,
	.msr_advice = "keep the value in memory where the kernel writes the "
		      "MSR (a per-CPU copy, as x86_spec_ctrl_current keeps "
		      "MSR_IA32_SPEC_CTRL's) and read that",
};
