// SPDX-License-Identifier: GPL-2.0
/*
 * x86.c - x86: its sinks (sinks.def: the CPUID wrappers, CPUID in inline
 * assembly, the RDMSR wrappers), what they cost in a guest
 * (registers.def), where its KVM host code lives (context.def), its
 * patch subjects, its cold functions (cold.def), the tables it reads from
 * the tree (tables.def: the MSRs KVM may pass through), how a CPUID test
 * names its feature (X86_FEATURE_*), its advice and rewrite, its trace;
 * its own rule is rule-trapping-msr-read.c. No guard atoms of its own.
 *
 * Below, in order: the tables read from the tree; what its KVM host's
 * trace records; its part of the generic rules; its struct arch.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/input/trace.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/base/util.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/model/conditions.h"

#include "x86.h"

/*
 * Its tables read from the tree (tables.def): the MSRs
 * KVM may pass through to a guest, as written, made into rows at
 * extraction and looked up by the MSR rule after the link.
 *
 * Source: arch/x86/kvm/vmx/vmx.c (vmx_possible_passthrough_msrs[], plain
 * MSR_* entries), arch/x86/kvm/svm/svm.c (direct_access_msrs[], { .index
 * = MSR_STAR, .always = true } entries ended by MSR_INVALID), Linux 6.12.
 */

/* An entry { .index = MSR }: the member naming its MSR... */
#define MSR_MEMBER	"index"
/* ...and the SVM list's end marker, which is no MSR. */
#define MSR_END		"MSR_INVALID"

static const char *tok(const struct table_view *v, unsigned int i)
{
	return i < v->nr_tok ? v->tok[i] : "";
}

/*
 * An entry of a list of MSRs KVM may pass through, as written: a plain
 * MSR_IA32_SPEC_CTRL (VMX), or { .index = MSR_STAR, .always = true }
 * (SVM).
 */
static void x86_read_table(const struct table_view *v, struct tu_facts *out)
{
	size_t e;

	for (e = 0; e < v->nr_entries; e++) {
		const struct table_entry *en = &v->entries[e];
		unsigned int i = en->tok, end = en->end;
		const char *msr = NULL;

		if (i < end && !strcmp(tok(v, i), "{")) {
			for (; i < end && !msr; i++)
				if (!strcmp(tok(v, i), ".") &&
				    !strcmp(tok(v, i + 1), MSR_MEMBER) &&
				    !strcmp(tok(v, i + 2), "="))
					msr = tok(v, i + 3);
		} else if (i < end) {
			msr = tok(v, i);
		}
		if (!msr || !ident_start(msr[0]) || !strcmp(msr, MSR_END))
			continue;
		facts_add_row(out, &(struct table_row_in){
			.kind = ARCH_ROW_MSR_LIST, .table = v->name,
			.key = msr,
		});
	}
}

static void *x86_tables_load(const struct graph *g)
{
	struct x86_tables *t = xcalloc(1, sizeof(*t));
	size_t i;

	for (i = 0; i < g->nr_rows; i++)
		if (g->rows[i].kind == ARCH_ROW_MSR_LIST)
			*PUSH(t->msrs, t->nr_msrs, t->alloc_msrs) =
				&g->rows[i];
	return t;
}

static void x86_tables_free(void *p)
{
	struct x86_tables *t = p;

	if (!t)
		return;
	free(t->msrs);
	free(t);
}

/* It has no capability table nor sanitised registers: an empty list. */
static int x86_tables_print(FILE *out, const void *t)
{
	(void)t;
	fprintf(out, "# sanitised registers[] (0):\n");
	fprintf(out, "# capability\tscope\tmatches\treads\tfield\tmin\ttrap\t"
		"sanitised\thow\tsource\n");
	fflush(out);
	return ferror(out) ? -1 : 0;
}

static void x86_tables_stats(const void *t, struct tables_stats *s)
{
	(void)t;
	(void)s;
}

/* Which host each pass-through list is for (passthrough.def). */
static const struct {
	const char *table, *mode;
} passthrough[] = {
#define PASSTHROUGH(t, m) { t, m },
#include "passthrough.def"
#undef PASSTHROUGH
};

/* The host of list @table, or NULL (a list passthrough.def lacks). */
static const char *list_mode(const char *table)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(passthrough); i++)
		if (!strcmp(passthrough[i].table, table))
			return passthrough[i].mode;
	return NULL;
}

/*
 * Can a host of @mode (a MODE_PATH mode) have MSR @msr? Not when the CPU
 * families that run its code (cpus.def) have none of the MSR's.
 */
static bool mode_has_msr(const char *mode, const char *msr)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_mode_paths; i++)
		if (!strcmp(a->mode_paths[i].mode, mode))
			return cond_path_cpus(a->mode_paths[i].prefix) &
			       cond_reg_cpus(msr);
	return true;
}

char *x86_msr_lists(const struct x86_tables *t, const char *msr,
		    const char *mode, char **missing)
{
	char *out = NULL, *o;
	size_t i, j;

	*missing = NULL;
	/* Code of both hosts reading an MSR that only one host's CPUs have. */
	for (j = 0; msr && !mode && j < ARRAY_SIZE(passthrough); j++) {
		const char *m = passthrough[j].mode, *other = NULL;
		size_t k;

		for (k = 0; k < ARRAY_SIZE(passthrough); k++)
			if (strcmp(passthrough[k].mode, m) &&
			    mode_has_msr(passthrough[k].mode, msr))
				other = passthrough[k].mode;
		if (mode_has_msr(m, msr) && !other)
			mode = m;
	}
	for (i = 0; t && msr && i < t->nr_msrs; i++) {
		const struct grow *r = t->msrs[i];
		const char *m = list_mode(r->table);

		if (strcmp(r->key, msr) || (mode && m && strcmp(m, mode)))
			continue;
		o = out ? xasprintf("%s, %s[]", out, r->table) :
			  xasprintf("%s[]", r->table);
		free(out);
		out = o;
	}
	/* The hosts whose lists were read and name it nowhere. */
	for (j = 0; t && msr && j < ARRAY_SIZE(passthrough); j++) {
		const char *m = passthrough[j].mode;
		bool read = false, named = false;

		if (mode && strcmp(m, mode))
			continue;
		for (i = 0; i < t->nr_msrs; i++) {
			const char *rm = list_mode(t->msrs[i]->table);

			if (!rm || strcmp(rm, m))
				continue;
			read = true;
			named |= !strcmp(t->msrs[i]->key, msr);
		}
		if (!read || named || (*missing && strstr(*missing, m)))
			continue;
		o = *missing ? xasprintf("%s, %s", *missing, m) : xstrdup(m);
		free(*missing);
		*missing = o;
	}
	return out;
}

/*
 * What its KVM host's trace records of a guest's traps
 * (input/trace.h): kvm_exit, "[vcpu %u ]reason %s rip 0x%lx info1 ..."
 * with the exit reason (VMX: CPUID, MSR_READ; SVM: cpuid, msr with info1
 * 0 for a read; kvm-exits.def), and kvm_msr, "msr_read %x = 0x%llx",
 * after the kvm_exit of an MSR read on the same CPU: which MSR it was
 * (arch/x86/kvm/trace.h); RDPMC's (VMX: RDPMC; SVM: rdpmc); and the
 * trapping instructions, CPUID, RDMSR and RDPMC, for the KASLR inference.
 */

enum { KIND_CPUID, KIND_MSR, KIND_PMC };

/*
 * x86's KASLR moves the kernel by multiples of 2 MiB
 * (CONFIG_PHYSICAL_ALIGN).
 */
static const struct trace_kind_def x86_trace_kinds[] = {
	/* CPUID: 0f a2; RDMSR: 0f 32 (every place the two bytes occur). */
	[KIND_CPUID] = { "cpuid", { EM_X86_64, EM_386, 2, 1, 0xa20f, 0xffff },
			 0x200000 },
	[KIND_MSR] = { "msr", { EM_X86_64, EM_386, 2, 1, 0x320f, 0xffff },
		       0x200000 },
	/* RDPMC: 0f 33. */
	[KIND_PMC] = { "pmc", { EM_X86_64, EM_386, 2, 1, 0x330f, 0xffff },
		       0x200000 },
};

/*
 * A kvm_exit reason that a sink causes, as the trace names it ("CPUID",
 * "EXIT_MSR"): a trap of @kind; with @read, only when info1 is 0 (SVM's
 * one MSR exit for reads and writes).
 */
struct kvm_exit_reason {
	const char *reason;
	unsigned int kind;
	bool read;
};

static const struct kvm_exit_reason exits[] = {
#define KVM_EXIT(reason, kind, read)	{ reason, KIND_##kind, read },
#include "kvm-exits.def"
#undef KVM_EXIT
};

/* What a site of a kvm_exit trap is called, by kind. */
static const char *const kind_what[] = {
	[KIND_CPUID] = "CPUID", [KIND_MSR] = "MSR", [KIND_PMC] = "RDPMC",
};

/*
 * "vcpu 0 reason CPUID rip 0xffffffff8103a2b1 info1 0x0 ..." (VMX), or
 * "reason msr rip 0x... info1 0x0000000000000000 ..." (SVM: info1 0 is a
 * read), as the kernel's print format has it; trace-cmd report's kvm
 * plugin prints "reason CPUID rip 0x... info 0 0" and, for SVM, "reason
 * EXIT_CPUID" and "reason EXIT_MSR rip 0x... info 0 0" (info1 first).
 */
static int kvm_exit(struct trace_reader *r, unsigned int cpu, const char *p)
{
	unsigned long long pc, info1 = 0;
	const char *reason, *rip, *info, *e;
	size_t n, i;

	reason = strstr(p, "reason ");
	rip = strstr(p, " rip 0x");
	if (!reason || !rip || rip < reason)
		return trace_bad(r, "kvm_exit: no \"reason <name> rip "
				 "0x<hex>\"");
	reason += 7;
	n = strcspn(reason, " ");
	if (!n || !trace_hex(rip + 7, &pc, &e))
		return trace_bad(r, "kvm_exit: no reason or rip");
	info = strstr(e, "info1 0x");
	if (info && !trace_hex(info + 8, &info1, &e))
		return trace_bad(r, "kvm_exit: trace_bad info1");
	info = info ? NULL : strstr(e, " info ");
	if (info && !trace_hex(info + 6, &info1, &e))
		return trace_bad(r, "kvm_exit: trace_bad info");
	/* An MSR exit still waiting for its kvm_msr: counted unnamed. */
	if (trace_flush(r, cpu))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(exits); i++) {
		const struct kvm_exit_reason *x = &exits[i];

		if (strlen(x->reason) != n || strncmp(reason, x->reason, n) ||
		    (x->read && info1))
			continue;
		if (x->kind != KIND_MSR)
			return trace_count(r, pc, x->kind, kind_what[x->kind]);
		/* Named by the kvm_msr line that follows on this CPU. */
		if (!trace_pend(r, cpu, pc, KIND_MSR, kind_what[KIND_MSR]))
			return trace_count(r, pc, KIND_MSR,
					   kind_what[KIND_MSR]);
		break;
	}
	return 0;
}

/* "msr_read 48 = 0x0" (or msr_write ..., " (#GP)" after a fault). */
static int kvm_msr(struct trace_reader *r, unsigned int cpu, const char *p)
{
	unsigned long long msr, pc;
	unsigned int kind;
	const char *e;
	char what[32];

	if (!strncmp(p, "msr_write ", 10))
		return 0;
	if (strncmp(p, "msr_read ", 9) || !trace_hex(p + 9, &msr, &e))
		return trace_bad(r, "kvm_msr: no \"msr_read <hex>\"");
	if (!trace_take(r, cpu, &pc, &kind))
		return 0;
	snprintf(what, sizeof(what), "MSR 0x%llx", msr);
	return trace_count(r, pc, kind, what);
}

static const struct trace_event x86_trace_events[] = {
	{ "kvm_exit", kvm_exit, NULL, 0 },
	{ "kvm_msr", kvm_msr, NULL, 0 },
};

/*
 * Its part of the trapping-idreg-read rule: the answers
 * the kernel keeps of CPUID (boot_cpu_data and cpu_data(cpu), their
 * x86_capability[] feature words, filled at boot and CPU bring-up by
 * arch/x86/kernel/cpu/common.c) as advice, and the rewrite of a one-bit
 * CPUID test into boot_cpu_has() of the X86_FEATURE_* that the tree's
 * cpufeatures.h names for that bit (x86_feature_macro() reads those).
 */

struct percpu_leaf {
	unsigned long leaf;
	const char *reg;
	bool whole;
	const char *what, *copy;
};

static const struct percpu_leaf percpu_leaves[] = {
#define CPUID_PERCPU(l, r, all, w, c) { l, r, all, w, c },
#include "percpu-leaves.def"
#undef CPUID_PERCPU
};

/*
 * The register a CPUID sink returns ("EBX" for cpuid_ebx()), or NULL
 * for one that returns them all (cpuid(), inline assembly).
 */
static const char *cpuid_sink_reg(const char *sink)
{
	static const char *const regs[] = { "EAX", "EBX", "ECX", "EDX" };
	const char *u = sink ? strrchr(sink, '_') : NULL;
	size_t i;

	for (i = 0; u && i < ARRAY_SIZE(regs); i++)
		if (strlen(u + 1) == 3 && !strncasecmp(u + 1, regs[i], 3))
			return regs[i];
	return NULL;
}

/* The per-CPU leaf @q reads (a register of it that differs), or NULL. */
static const struct percpu_leaf *percpu_leaf_of(const struct read_ask *q)
{
	const char *reg = cpuid_sink_reg(q->sink);
	unsigned long leaf;
	char *end;
	size_t i;

	if (!q->arg)
		return NULL;
	leaf = strtoul(q->arg, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (end == q->arg || *end)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(percpu_leaves); i++) {
		const struct percpu_leaf *p = &percpu_leaves[i];

		if (p->leaf == leaf && (!reg || !strcmp(p->reg, reg)))
			return p;
	}
	return NULL;
}

/* What to read instead of per-CPU leaf @pl: a new string. */
static char *percpu_instead(const struct percpu_leaf *pl)
{
	if (pl->copy)
		return xasprintf("the kernel keeps each CPU's in %s: read that",
				 pl->copy);
	return xstrdup("read it once per CPU at bring-up into per-CPU data "
		       "and use that");
}

/* @field: the X86_FEATURE_* the code tests, when the tree names it. */
static char *read_advice(const void *t, const struct read_ask *q,
			 int *cached)
{
	const char *reg = q->reg, *field = q->field;
	const struct percpu_leaf *pl = field ? NULL : percpu_leaf_of(q);
	char *instead, *s;

	(void)t;
	*cached = -1;
	if (field)
		return xasprintf("the kernel keeps %s's answers in "
				 "boot_cpu_data: the bit tested is %s, test "
				 "boot_cpu_has(%s) or cpu_feature_enabled(%s)",
				 reg, field, field, field);
	if (!pl)
		return xasprintf("the kernel keeps %s's answers in "
				 "boot_cpu_data and cpu_data(cpu): test the "
				 "feature with boot_cpu_has() or "
				 "cpu_feature_enabled(), or cache the leaf at "
				 "boot", reg);
	instead = percpu_instead(pl);
	/* That register alone, all of it this CPU's: no common answer. */
	if (pl->whole && cpuid_sink_reg(q->sink))
		s = xasprintf("leaf %#lx's %s differs from CPU to CPU (%s): "
			      "no copy read at boot stands in; %s", pl->leaf,
			      pl->reg, pl->what, instead);
	else
		s = xasprintf("the kernel keeps %s's answers in boot_cpu_data "
			      "and cpu_data(cpu): test the feature with "
			      "boot_cpu_has() or cpu_feature_enabled(), or "
			      "cache the leaf at boot; but leaf %#lx's %s "
			      "differs from CPU to CPU (%s): for that, %s", reg,
			      pl->leaf, pl->reg, pl->what, instead);
	free(instead);
	return s;
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
	if (ends_with(line, at, "return") && *a == ';' && f->fn->file &&
	    !strcmp(f->fn->file, f->site->file) && f->fn->line >= 1 &&
	    f->fn->line <= ctx->src->nr_lines) {
		const char *d = ctx->src->lines[f->fn->line - 1];
		const char *name = strstr(d, f->fn->name);

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
	const struct percpu_leaf *pl;
	const char *line, *at, *p, *op, *end;
	size_t n = strlen(finding_sink(f));
	char *mask, *area;
	int bit;

	if (!f->read.feature) {
		pl = percpu_leaf_of(&(struct read_ask){
					.sink = finding_sink(f),
					.arg = f->site->arg });
		if (pl) {
			char *instead = percpu_instead(pl);
			bool all = pl->whole &&
				   cpuid_sink_reg(finding_sink(f));

			*why = all ?
			       xasprintf("leaf %#lx's %s differs from CPU to "
					 "CPU (%s): no boot copy to read; %s",
					 pl->leaf, pl->reg, pl->what,
					 instead) :
			       xasprintf("what is read of leaf %#lx differs "
					 "from CPU to CPU in part (%s: %s): no "
					 "one copy to read; for that part, %s",
					 pl->leaf, pl->reg, pl->what,
					 instead);
			free(instead);
			return false;
		}
		if (!strncmp(finding_sink(f), "asm:", 4) &&
		    sink_lookup(SINK_ASM, finding_sink(f) + 4) >= 0) {
			if (f->site->arg && !strcmp(f->site->arg, "serialize")) {
				*why = xasprintf("CPUID used to serialize: no "
						 "copy replaces it; serialize "
						 "without it");
				return false;
			}
			return x86_fix_asm_cpuid(ctx, e, why);
		} else if (f->read.mask && arch_mask_bit(f->read.mask) >= 0)
			*why = xasprintf("no X86_FEATURE_* of the tree names "
					 "bit %d of %s(): cache the leaf at "
					 "boot",
					 arch_mask_bit(f->read.mask),
					 finding_sink(f));
		else
			*why = f->read.mask ?
			       xasprintf("%s()'s value is tested with %s, "
					 "not one bit: cache the leaf at boot",
					 finding_sink(f), f->read.mask) :
			       xasprintf("%s()'s value is not tested for one "
					 "bit there: cache the leaf at boot",
					 finding_sink(f));
		return false;
	}
	if (ctx->attempt) {
		*why = xstrdup("no second rewrite of a boot_cpu_has() test");
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
	bit = arch_mask_bit(mask);
	free(mask);
	if (bit < 0 || bit != arch_mask_bit(f->read.mask))
		goto err_shape;
	if (!truth_only(ctx, line, at, end)) {
		*why = xasprintf("%s() & %s is used for more than its truth "
				 "there: boot_cpu_has() returns 0 or 1, not "
				 "the bit", finding_sink(f), f->read.mask);
		return false;
	}
	e->first = e->last = f->site->line;
	fix_edit_add_line(e, "%.*sboot_cpu_has(%s)%s", (int)(at - line), line,
			  f->read.feature, end);
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: test %s with boot_cpu_has() in %s()",
			       area, f->read.feature, f->fn->name);
	free(area);
	e->body = xasprintf("%s() executes CPUID to test one bit, %s. "
			    "Under virtualization CPUID always exits to the "
			    "hypervisor: each call is a VM exit.\n\nThe "
			    "kernel reads the leaf at boot and keeps the bit "
			    "as %s in boot_cpu_data: boot_cpu_has() tests it "
			    "in memory.",
			    f->fn->name, f->read.mask, f->read.feature);
	return true;

err_shape:
	*why = xasprintf("the test is not written as %s(...) & %s on one "
			 "line", finding_sink(f),
			 f->read.mask ? f->read.mask : "BIT");
	return false;
}

static const struct arch_rules x86_rules = {
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
	.fix_read_again = true,
	.fix_group = x86_fix_group,
};

/* "NAME ( W * 32 + B )": cpufeatures.h's form of a feature bit. */
static bool x86_feature_macro(char *const *k, unsigned int n,
			      unsigned int *word, unsigned int *bit)
{
	char *e;

	if (n != 8 || strcmp(k[1], "(") || strcmp(k[3], "*") ||
	    strcmp(k[4], "32") || strcmp(k[5], "+") || strcmp(k[7], ")"))
		return false;
	*word = (unsigned int)strtoul(k[2], &e, 0);
	if (*e)
		return false;
	*bit = (unsigned int)strtoul(k[6], &e, 0);
	return !*e;
}

static const struct sink_def sinks[] = {
#define SINK ARCH_SINK
#include "sinks.def"
#undef SINK
};

/* What makes an identification read exit. */
enum {
	ARCH_TRAP_NONE = TRAP_NONE, ARCH_TRAP_CPUID, ARCH_TRAP_RDMSR,
	ARCH_TRAP_RDPMC
};

static const struct reg_def regs[] = {
#define REG ARCH_REG
#include "registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[ARCH_TRAP_NONE] = "none",
	[ARCH_TRAP_CPUID] = "unconditional CPUID exit",
	[ARCH_TRAP_RDMSR] = "RDMSR exit unless passed through",
	[ARCH_TRAP_RDPMC] = "RDPMC exit under KVM's default controls",
};

static const char *const triples[] = {
	"x86_64-", "i386-", "i486-", "i586-", "i686-",
};

static const struct arch_path areas[] = {
	{ "arch/x86/kvm/", "KVM: x86" },
	{ "arch/x86/", NULL },
};

static const char *const host_paths[] = {
#define NESTED_PATH ARCH_NESTED_PATH
#include "context.def"
#undef NESTED_PATH
};

/* The tables it reads from the tree (x86/tables.def). */
static const struct arch_table tables[] = {
#define TABLE ARCH_TABLE_LINE
#include "tables.def"
#undef TABLE
};

/* MSRs the hardware changes under the kernel: pattern and what. */
static const struct arch_path live_regs[] = {
#define LIVE_REG ARCH_LIVE_REG
#include "live-regs.def"
#undef LIVE_REG
};

/* The output register of a cpuid_e?x() sink: "cpuid_ebx" -> "EBX". */
static bool sink_reg(const char *name, char reg[4])
{
	size_t n = strlen(name);

	if (n < 4 || name[n - 4] != '_' || name[n - 3] != 'e' ||
	    name[n - 1] != 'x' || !strchr("abcd", name[n - 2]))
		return false;
	reg[0] = 'E';
	reg[1] = (char)(name[n - 2] - 'a' + 'A');
	reg[2] = 'X';
	reg[3] = '\0';
	return true;
}

/*
 * enum cpuid_leafs spells a leaf in upper-case hexadecimal, 8 digits in
 * two groups: 7 -> "7", 0x80000001 -> "8000_0001".
 */
static void leaf_name(unsigned int leaf, char *buf, size_t len)
{
	if (leaf > 0xffff)
		snprintf(buf, len, "%04X_%04X", leaf >> 16, leaf & 0xffff);
	else
		snprintf(buf, len, "%X", leaf);
}

/*
 * cpuid_ebx(7) & (1u << 20): cpuid_e?x() asks sub-leaf 0 (cpuid() clears
 * ECX), so the word is CPUID_7_0_EBX, or CPUID_1_ECX for a leaf with no
 * sub-leaves.
 */
static bool feature_bit(const char *name, const char *arg, const char *mask,
			const struct arch_enum *words, size_t nr_words,
			unsigned int *word, unsigned int *bit)
{
	char reg[4], leaf[24], with_sub[48], plain[48], *end;
	unsigned long l;
	size_t i;
	int b;

	if (!arg || !mask || !sink_reg(name, reg))
		return false;
	l = strtoul(arg, &end, 0);
	if (end == arg || *end || l > 0xffffffffUL)
		return false;
	b = arch_mask_bit(mask);
	if (b < 0 || b > 31)
		return false;
	leaf_name((unsigned int)l, leaf, sizeof(leaf));
	snprintf(with_sub, sizeof(with_sub), "CPUID_%s_0_%s", leaf, reg);
	snprintf(plain, sizeof(plain), "CPUID_%s_%s", leaf, reg);
	for (i = 0; i < nr_words; i++) {
		if (strcmp(words[i].name, with_sub) &&
		    strcmp(words[i].name, plain))
			continue;
		if (words[i].value < 0)
			return false;
		*word = (unsigned int)words[i].value;
		*bit = (unsigned int)b;
		return true;
	}
	return false;
}

/* What its conditions say of when code runs (conditions.def). */
static const struct cond_def conds[] = {
#define COND ARCH_COND
#define MODE_PATH(prefix, mode)
#define CPU_FILE(prefix, cap, when)
#include "conditions.def"
#undef CPU_FILE
#undef MODE_PATH
#undef COND
};

static const struct mode_path mode_paths[] = {
#define COND(kind, pattern, t, f)
#define MODE_PATH ARCH_MODE_PATH
#define CPU_FILE(prefix, cap, when)
#include "conditions.def"
#undef CPU_FILE
#undef MODE_PATH
#undef COND
};

static const struct arch_cpu_file cpu_files[] = {
#define COND(kind, pattern, t, f)
#define MODE_PATH(prefix, mode)
#define CPU_FILE ARCH_CPU_FILE
#include "conditions.def"
#undef CPU_FILE
#undef MODE_PATH
#undef COND
};

/* The CPU families of cpus.def, and what only some of them run or have. */
enum {
#define CPU_NAME(bit, name)	CPU_BIT_##bit,
#define CPU_PATH(prefix, cpus)
#define CPU_REG(prefix, cpus)
#include "cpus.def"
#undef CPU_REG
#undef CPU_PATH
#undef CPU_NAME
};

#define CPU(bit)	(1u << CPU_BIT_##bit)

static const char *const cpu_names[] = {
#define CPU_NAME(bit, name)	name,
#define CPU_PATH(prefix, cpus)
#define CPU_REG(prefix, cpus)
#include "cpus.def"
#undef CPU_REG
#undef CPU_PATH
#undef CPU_NAME
};

static const struct arch_cpu_only cpu_paths[] = {
#define CPU_NAME(bit, name)
#define CPU_PATH ARCH_CPU_ONLY
#define CPU_REG(prefix, cpus)
#include "cpus.def"
#undef CPU_REG
#undef CPU_PATH
#undef CPU_NAME
};

static const struct arch_cpu_only cpu_regs[] = {
#define CPU_NAME(bit, name)
#define CPU_PATH(prefix, cpus)
#define CPU_REG ARCH_CPU_ONLY
#include "cpus.def"
#undef CPU_REG
#undef CPU_PATH
#undef CPU_NAME
};

/* What its KVM host code needs of the outer hypervisor (outer.def). */
static const struct arch_outer outers[] = {
#define OUTER ARCH_OUTER
#define OUTER_SET ARCH_OUTER_SET
#define HOST(pattern, value, why)
#define CPU_OFFER(cap, bit, offer, vendors)
#define OFFER_SPELL(macro, prefix)
#define OFFER_CLEAR(call)
#define OFFER_TEST(call)
#include "outer.def"
#undef OFFER_TEST
#undef OFFER_CLEAR
#undef OFFER_SPELL
#undef CPU_OFFER
#undef HOST
#undef OUTER_SET
#undef OUTER
};

/* What an atom of an offer's conditions is on a common host (outer.def). */
static const struct arch_host_atom host_atoms[] = {
#define OUTER(atom, probe, bits, offer)
#define OUTER_SET(atom, probe, bit, offer)
#define HOST ARCH_HOST
#define CPU_OFFER(cap, bit, offer, vendors)
#define OFFER_SPELL(macro, prefix)
#define OFFER_CLEAR(call)
#define OFFER_TEST(call)
#include "outer.def"
#undef OFFER_TEST
#undef OFFER_CLEAR
#undef OFFER_SPELL
#undef CPU_OFFER
#undef HOST
#undef OUTER_SET
#undef OUTER
};

/* What a guest's CPU capabilities need KVM to offer (outer.def). */
static const struct arch_cpu_offer cpu_offers[] = {
#define OUTER(atom, probe, bits, offer)
#define OUTER_SET(atom, probe, bit, offer)
#define HOST(pattern, value, why)
#define CPU_OFFER ARCH_CPU_OFFER
#define OFFER_SPELL(macro, prefix)
#define OFFER_CLEAR(call)
#define OFFER_TEST(call)
#include "outer.def"
#undef OFFER_TEST
#undef OFFER_CLEAR
#undef OFFER_SPELL
#undef CPU_OFFER
#undef HOST
#undef OUTER_SET
#undef OUTER
};

/* How its offer functions spell a bit (outer.def). */
static const struct arch_offer_spell offer_spells[] = {
#define OUTER(atom, probe, bits, offer)
#define OUTER_SET(atom, probe, bit, offer)
#define HOST(pattern, value, why)
#define CPU_OFFER(cap, bit, offer, vendors)
#define OFFER_SPELL ARCH_OFFER_SPELL
#define OFFER_CLEAR ARCH_OFFER_CLEAR
#define OFFER_TEST ARCH_OFFER_TEST
#include "outer.def"
#undef OFFER_TEST
#undef OFFER_CLEAR
#undef OFFER_SPELL
#undef CPU_OFFER
#undef HOST
#undef OUTER_SET
#undef OUTER
};

/* The devices its guest machines have (machine.def). */
static const struct arch_device machine[] = {
#define DEVICE ARCH_DEVICE
#define PROPERTY ARCH_PROPERTY
#define CPU_CAP ARCH_CPU_CAP
#include "machine.def"
#undef CPU_CAP
#undef PROPERTY
#undef DEVICE
};

static const char *const cold_fns[] = {
#define COLD_FN ARCH_COLD_FN
#include "cold.def"
#undef COLD_FN
};

/* Its own rules (rule-*.c here), in the order they are asked. */
const struct rule x86_own_rules[] = {
	{ .id = "trapping-msr-read",
	  .summary = "an MSR read that exits to the hypervisor on a hot path",
	  .check = x86_msr_read_check },
	{ .id = "trapping-pmc-read",
	  .summary = "a performance counter read (RDPMC) that exits to the "
		     "hypervisor on a hot path",
	  .check = x86_pmc_read_check },
	{ .id = NULL },
};

const struct arch arch_x86 = {
	.name = "x86",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
	ARCH_TABLE(areas),
	ARCH_TABLE(host_paths),
	ARCH_TABLE(cold_fns),
	ARCH_TABLE(tables),
	.read_table = x86_read_table,
	.tables_load = x86_tables_load,
	.tables_free = x86_tables_free,
	.tables_print = x86_tables_print,
	.tables_stats = x86_tables_stats,
	ARCH_TABLE(live_regs),
	.rules = &x86_rules,
	.own_rules = x86_own_rules,
	ARCH_TABLE(conds),
	ARCH_TABLE(mode_paths),
	ARCH_TABLE(cpu_files),
	ARCH_TABLE(cpu_paths),
	ARCH_TABLE(cpu_regs),
	ARCH_TABLE(cpu_names),
	.feature_prefix = "X86_FEATURE_",
	.feature_enum = "cpuid_leafs",
	.feature_bit = feature_bit,
	.feature_macro = x86_feature_macro,
	.reg_macro_prefix = "MSR_",
	ARCH_TABLE(outers),
	ARCH_TABLE(host_atoms),
	ARCH_TABLE(cpu_offers),
	ARCH_TABLE(offer_spells),
	ARCH_TABLE(machine),
	.trace_kinds = x86_trace_kinds,
	.nr_trace_kinds = ARRAY_SIZE(x86_trace_kinds),
	.trace_events = x86_trace_events,
	.nr_trace_events = ARRAY_SIZE(x86_trace_events),
};
