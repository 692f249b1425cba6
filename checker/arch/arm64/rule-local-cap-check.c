// SPDX-License-Identifier: GPL-2.0
/*
 * rule-local-cap-check.c - local-cap-check, arm64's rule:
 * this_cpu_has_cap() resolves a SCOPE_LOCAL_CPU capability by reading the
 * ID register from hardware on every call ("arm64: archrandom: avoid
 * trapping ID register read in __cpu_has_rng()": __cpu_has_rng() on every
 * early get_random_*()). Its rewrite: this_cpu_has_cap() in the
 * pre-finalization !preemptible() branch becomes the test of the
 * sanitised register field, as that patch wrote it after review.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/base/util.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/rules/rules.h"

#include "arm64.h"

static bool check(const struct rule_ctx *ctx, struct finding *f,
		  enum rule_scope *scope)
{
	const struct arm64_tables *t = ctx->graph->arch_tables;
	const char *name = ctx->site->arg ? ctx->site->arg : "...";
	const struct arm64_cap *cap;
	char *advice, *fields;

	(void)scope;
	if (ctx->def->class != SINK_LOCAL_CAP)
		return false;
	f->read.cap = ctx->site->arg;
	f->read.cached = -1;
	cap = ctx->site->arg ? arm64_cap_find(t, ctx->site->arg) : NULL;
	if (cap && cap->how && !cap->reads)
		return false;	/* its matches() reads no register */
	if (cap && cap->reads && cap->trap == TRAP_NONE)
		return false;		/* MIDR: virtualised, no trap */
	if (!cap || !cap->reads) {
		f->read.trap = reg_trap_name(reg_idreg_trap(NULL));
		f->message = xasprintf("%s(%s) may read an ID register from "
				       "hardware on a hot path (%s); each "
				       "read traps under %s",
				       ctx->def->name, name,
				       !t || !t->have_caps ?
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
	f->read.trap = reg_trap_name(cap->trap);
	fields = cap->field ? xasprintf("%s_%s_SHIFT", cap->reads, cap->field) :
			      NULL;
	advice = arm64_read_advice(t, &(struct read_ask){
					.reg = cap->reads, .field = cap->field,
					.fields = fields,
					.fn = ctx->func->name,
					.file = ctx->site->file,
					.guards = ctx->site->guards,
				   }, &f->read.cached);
	free(fields);
	/*
	 * A capability each CPU answers for itself (SCOPE_LOCAL_CPU alone:
	 * ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, local errata) may differ
	 * between CPUs: the sanitised copy is the system-wide value, not
	 * this CPU's, so it is no stand-in; the kernel's own answer for such
	 * features is a per-CPU record made at bring-up (amu_cpus).
	 */
	if (arm64_cap_per_cpu_only(cap)) {
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

/* "ID_AA64ISAR0_EL1" -> "isar0", the reviewer's variable name. */
static char *reg_var(const char *reg)
{
	const char *p = reg;
	char *v, *q;

	if (!strncmp(p, "ID_AA64", 7))
		p += 7;
	else if (!strncmp(p, "ID_", 3))
		p += 3;
	v = xstrdup(p);
	q = strstr(v, "_EL");
	if (q)
		*q = '\0';
	for (q = v; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return v;
}

static char *lower(const char *s)
{
	char *v = xstrdup(s), *q;

	for (q = v; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return v;
}

static bool tree_has(const char *tree, const char *rel, const char *text)
{
	char *path = path_join(tree, rel), buf[4096];
	FILE *fp = fopen(path, "r");
	bool found = false;

	free(path);
	if (!fp)
		return false;
	while (!found && fgets(buf, sizeof(buf), fp))
		found = strstr(buf, text) != NULL;
	fclose(fp);
	return found;
}

static bool is_comment(const char *line)
{
	line += strspn(line, " \t");
	return !strncmp(line, "//", 2) || !strncmp(line, "/*", 2) ||
	       *line == '*';
}

/*
 * Why a check outside the pre-finalization !preemptible() branch keeps
 * its trap, by the capability's scope (ARM64_CPUCAP_SCOPE_*): a
 * system-wide capability has a trap-free test, cpus_have_final_cap(),
 * but it gives the system-wide answer and BUG()s before finalization,
 * and whether every path to the call wants that is not something the
 * call graph tells. (A per-CPU capability is refused before: see
 * per_cpu_only().)
 */
static char *outside_branch_reason(const struct arm64_cap *cap)
{
	if (cap->scope & CAP_SCOPE_SYSTEM)
		return xasprintf("the call is not in the pre-finalization "
				 "!preemptible() branch; %s is a system-wide "
				 "capability: where the code wants the "
				 "system-wide answer and runs only after "
				 "finalization, cpus_have_final_cap(%s) tests "
				 "it without a trap (it BUG()s before): decide "
				 "that by hand", cap->name, cap->name);
	return xasprintf("the call is not in the pre-finalization "
			 "!preemptible() branch: the sanitised value is no "
			 "safe stand-in there");
}

/*
 * The fix of that patch in the reviewer's form: inside the pre-finalization
 * !preemptible() branch,
 *	if (cond)
 *		return this_cpu_has_cap(CAP);
 * becomes the sanitised field test, the guard kept:
 *	if (cond) {
 *		comment
 *		u64 isar0 = read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);
 *		u64 rndr = SYS_FIELD_GET(ID_AA64ISAR0_EL1, RNDR, isar0);
 *
 *		return rndr >= ID_AA64ISAR0_EL1_RNDR_IMP;
 *	}
 *
 * (cpuid_feature_extract_unsigned_field() where the tree has no
 * SYS_FIELD_GET(), as 6.1).
 */
/* Can the read be rewritten at all? False, and why, when not. */
static bool can_fix(const struct fix_ctx *ctx, const struct arm64_cap *cap,
		    char **why)
{
	const struct finding *f = ctx->finding;
	const struct gsink *site = NULL;
	size_t i;

	for (i = 0; i < ctx->graph->nr_sinks; i++)
		if (ctx->graph->sinks[i].file == f->site->file &&
		    ctx->graph->sinks[i].line == f->site->line &&
		    ctx->graph->sinks[i].col == f->site->col)
			site = &ctx->graph->sinks[i];
	if (!cap || !cap->reg || !cap->field) {
		*why = xasprintf("capability %s not found in the tree's tables "
				 "with a register field: no sanitised field to "
				 "test",
				 f->read.cap ? f->read.cap : "(unnamed)");
		return false;
	}
	if (f->read.cached != 1) {
		*why = xasprintf("%s is not in the tree's arm64_ftr_regs[]",
				 cap->reg);
		return false;
	}
	/*
	 * Even inside the pre-finalization branch: the sanitised copy is
	 * what the CPUs up so far agree on, not this CPU's answer.
	 */
	if (arm64_cap_per_cpu_only(cap)) {
		*why = xasprintf("%s is a per-CPU capability: the sanitised "
				 "copy is the system-wide value, not this "
				 "CPU's; keep this CPU's answer, recorded at "
				 "CPU bring-up", cap->name);
		return false;
	}
	if (!site || !guards_have(site->guards, GUARD_CAPS_UNFINALIZED) ||
	    !guards_have(site->guards, GUARD_NOT_PREEMPTIBLE)) {
		*why = outside_branch_reason(cap);
		return false;
	}
	return true;
}

/*
 * The branch rewritten: lines @c (its "if (...)") to the finding's
 * return, indented @ind0 and @ind, reading the sanitised field.
 */
static void fix_lines(const struct fix_ctx *ctx, const struct arm64_cap *cap,
		      size_t c, const char *ind0, const char *ind,
		      struct fix_edit *e)
{
	const struct finding *f = ctx->finding;
	const char *const *lines = (const char *const *)ctx->src->lines;
	char *rv = reg_var(cap->reg), *fv = lower(cap->field);
	char *min = isdigit((unsigned char)cap->min[0]) ? xstrdup(cap->min) :
		    xasprintf("%s_%s_%s", cap->reg, cap->field, cap->min);

	e->first = c;
	e->last = f->site->line;
	fix_edit_add_line(e, "%s {", lines[c - 1]);
	for (c++; c < f->site->line; c++)
		fix_edit_add_line(e, "%s", lines[c - 1]);
	fix_edit_add_line(e, "%s/*", ind);
	fix_edit_add_line(e, "%s * Query the in-memory sanitised value to "
			  "avoid a potential", ind);
	fix_edit_add_line(e, "%s * trap when accessing the ID register under "
			  "a hypervisor.", ind);
	fix_edit_add_line(e, "%s */", ind);
	fix_edit_add_line(e, "%su64 %s = read_sanitised_ftr_reg(SYS_%s);",
			  ind, rv, cap->reg);
	if (tree_has(ctx->tree, "arch/arm64/include/asm/sysreg.h",
		     "#define SYS_FIELD_GET(")) {
		fix_edit_add_line(e, "%su64 %s = SYS_FIELD_GET(%s, %s, %s);",
				  ind, fv, cap->reg, cap->field, rv);
		fix_edit_add_line(e, "%s", "");
		fix_edit_add_line(e, "%sreturn %s >= %s;", ind, fv, min);
	} else {
		fix_edit_add_line(e, "%s", "");
		fix_edit_add_line(e, "%sreturn cpuid_feature_extract_unsigned_"
				  "field(%s,", ind, rv);
		fix_edit_add_line(e, "%s\t\t%s_%s_SHIFT) >= %s;", ind,
				  cap->reg, cap->field, min);
	}
	fix_edit_add_line(e, "%s}", ind0);
	/* The reviewer's blank line before what follows the branch. */
	if (f->site->line < ctx->src->nr_lines && lines[f->site->line][0])
		fix_edit_add_line(e, "%s", "");
	free(rv);
	free(fv);
	free(min);
}

/* The patch's subject and message. */
static void fix_message(const struct finding *f, const struct arm64_cap *cap,
			struct fix_edit *e)
{
	char *area = fix_area(f->site->file);

	e->subject = xasprintf("%s: avoid trapping ID register read in %s()",
			       area, f->fn->name);
	e->body = xasprintf("%s() has a fallback, taken before capabilities "
			    "are finalized and while !preemptible(), that "
			    "calls %s(%s). For this capability that resolves "
			    "%s.%s by reading %s from hardware on every call; "
			    "under virtualization each ID register read traps "
			    "to the hypervisor (%s).\n\nQuery the in-memory "
			    "sanitised value instead. The !preemptible() "
			    "guard stays: secondary CPUs coming online only "
			    "lower the sanitised value, so the answer is "
			    "right for the CPU the caller is pinned to.",
			    f->fn->name, finding_sink(f), f->read.cap, cap->reg,
			    cap->field, cap->reg, f->read.trap);
	free(area);
}

static bool fix(const struct fix_ctx *ctx, struct fix_edit *e, char **why)
{
	const struct finding *f = ctx->finding;
	const struct arm64_cap *cap = f->read.cap ?
		arm64_cap_find(ctx->graph->arch_tables, f->read.cap) : NULL;
	const char *const *lines = (const char *const *)ctx->src->lines;
	char *ind, *ind0, *want;
	const char *cond;
	bool shape;
	size_t n, c;

	if (ctx->no_rewrite) {
		*why = xstrdup(ctx->no_rewrite);
		return false;
	}
	if (!can_fix(ctx, cap, why))
		return false;
	if (f->site->line < 2 || f->site->line > ctx->src->nr_lines)
		goto err_shape;
	/* The if may be separated from the return by comment lines. */
	for (c = f->site->line - 1; c > 1 && is_comment(lines[c - 1]); c--)
		;
	ind = line_indent(lines[f->site->line - 1]);
	want = xasprintf("%sreturn %s(%s);", ind, finding_sink(f), f->read.cap);
	cond = lines[c - 1];
	ind0 = line_indent(cond);
	n = strlen(cond);
	shape = !strcmp(lines[f->site->line - 1], want) &&
		!strncmp(cond + strlen(ind0), "if (", 4) && n &&
		cond[n - 1] == ')' && strlen(ind) == strlen(ind0) + 1;
	free(want);
	if (shape) {
		fix_lines(ctx, cap, c, ind0, ind, e);
		fix_message(f, cap, e);
	}
	free(ind);
	free(ind0);
	if (shape)
		return true;

err_shape:
	*why = xasprintf("not the shape \"if (...)\\n\\treturn %s(%s);\": "
			 "rewrite by hand", finding_sink(f), f->read.cap);
	return false;
}

const struct rule arm64_own_rules[] = {
	{ .id = "local-cap-check",
	  .summary = "a local-CPU capability check on a hot path",
	  .check = check, .fix = fix },
	{ .id = NULL },
};
