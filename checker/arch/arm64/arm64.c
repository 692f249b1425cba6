// SPDX-License-Identifier: GPL-2.0
/*
 * arm64.c - arm64: its sinks (sinks.def), its system registers and the
 * HCR_EL2 trap controls that make a read exit to the hypervisor
 * (registers.def), the tables it reads from the tree (tables.def), the
 * code no rewrite may touch, the subject prefixes of its patches, its
 * guard atoms (phases.def), where its KVM host code lives (context.def),
 * its cold functions (cold.def), its conditions (conditions.def), its
 * advice and rewrites; its own rule is rule-local-cap-check.c.
 *
 * Below, in order: the tables read from the tree and resolved against the
 * graph; what its KVM host's trace records; its part of the generic
 * rules (advice, the rewrite of a trapping read); its struct arch.
 */
#include <ctype.h>
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/input/trace.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/base/util.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/model/conditions.h"

#include "arm64.h"

/*
 * Its tables read from the tree (tables.def): the
 * registers read_sanitised_ftr_reg() serves and the fields of each
 * (arm64_ftr_regs[] and its arm64_ftr_bits arrays), the capabilities
 * (arm64_features[], arm64_errata[]: scope, matches() function and what
 * it reads), the copies the host keeps for KVM's hyp code; made into rows
 * at extraction, then resolved against the call graph after the link,
 * and printed (--list-caps) and counted (the summary).
 *
 * Source: arch/arm64/include/asm/cpufeature.h (struct
 * arm64_cpu_capabilities, ARM64_CPUCAP_SCOPE_*, ARM64_CPUID_FIELDS(),
 * struct arm64_ftr_bits), arch/arm64/kernel/cpufeature.c
 * (arm64_ftr_regs[], ARM64_FTR_REG(), ARM64_FTR_BITS()),
 * arch/arm64/include/asm/cputype.h (MIDR_*), Linux 6.1 and 6.12.
 */

/* A capability entry's members, as designated initialisers. */
#define CAP_NAME	"capability"
#define CAP_TYPE	"type"
#define CAP_MATCHES	"matches"
#define CAP_REG		"sys_reg"
#define CAP_FIELD_POS	"field_pos"
#define CAP_MIN		"min_field_value"
/* ARM64_CPUID_FIELDS(reg, field, min) (6.6+), and _NEG: a prefix. */
#define CAP_FIELDS_MACRO "ARM64_CPUID_FIELDS"
/* SYS_ID_AA64ISAR0_EL1; ID_AA64ISAR0_EL1_RNDR_SHIFT. */
#define REG_PREFIX	"SYS_"
#define SHIFT_SUFFIX	"_SHIFT"
/* ARM64_FTR_REG(SYS_..., ftr_...): the entry's field array... */
#define FTR_BITS_PREFIX	"ftr_"
/* ...whose entries are ARM64_FTR_BITS(...) (and S_ARM64_FTR_BITS). */
#define FTR_BITS_MACRO	"ARM64_FTR_BITS"
#define FTR_NONSTRICT	"FTR_NONSTRICT"
/* The register a match on the CPU's identity reads (no trap). */
#define ID_REG		"MIDR_EL1"

/* Tokens (prefixes) of an entry matched on the CPU's identity. */
static const char *const id_match[] = {
	"midr_range", "ERRATA_MIDR_", "MIDR_ALL_VERSIONS", "MIDR_RANGE",
	"MIDR_REV",
};

/* ARM64_CPUCAP_SCOPE_*: BIT(0), BIT(1), BIT(2). */
static const char *const scope_names[] = {
	"LOCAL_CPU", "SYSTEM", "BOOT_CPU",
};

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return m <= n && !strcmp(s + n - m, suffix);
}

static const char *tok(const struct table_view *v, unsigned int i)
{
	return i < v->nr_tok ? v->tok[i] : "";
}

/* ".name = VALUE" at token i: VALUE, or NULL. */
static const char *designated(const struct table_view *v, unsigned int i,
			      const char *name)
{
	if (strcmp(tok(v, i), ".") || strcmp(tok(v, i + 1), name) ||
	    strcmp(tok(v, i + 2), "="))
		return NULL;
	return tok(v, i + 3);
}

/* What a capability entry says, as written. */
struct cap_in {
	const char *name, *type, *matches;
	char *reg, *field, *min;
	unsigned int scope;
	bool midr;
};

/* The register, field and minimum as the entry spells them. */
static void scan_entry_tokens(struct cap_in *c, const struct table_view *v,
			      unsigned int from, unsigned int to)
{
	const char *pos = NULL, *s;
	unsigned int i;
	size_t j;

	for (i = from; i < to; i++) {
		const char *t = v->tok[i];

		/* ARM64_CPUID_FIELDS(reg, field, min) (6.6+), and _NEG. */
		if (starts(t, CAP_FIELDS_MACRO) &&
		    !strcmp(tok(v, i + 1), "(") && !c->reg) {
			c->reg = xstrdup(tok(v, i + 2));
			c->field = xstrdup(tok(v, i + 4));
			c->min = xstrdup(tok(v, i + 6));
		}
		s = designated(v, i, CAP_REG);
		if (s && !c->reg && starts(s, REG_PREFIX))
			c->reg = xstrdup(s + strlen(REG_PREFIX));
		s = designated(v, i, CAP_FIELD_POS);
		if (s && !pos)
			pos = s;
		s = designated(v, i, CAP_MIN);
		if (s && !c->min)
			c->min = xstrdup(s);
		for (j = 0; j < ARRAY_SIZE(id_match); j++)
			if (starts(t, id_match[j]))
				c->midr = true;
	}
	/* .field_pos = ID_AA64ISAR0_EL1_RNDR_SHIFT: the field is RNDR. */
	if (pos && c->reg && !c->field) {
		size_t n = strlen(c->reg), m = strlen(pos);
		size_t x = strlen(SHIFT_SUFFIX);

		if (!strncmp(pos, c->reg, n) && pos[n] == '_' &&
		    m > n + 1 + x && ends(pos, SHIFT_SUFFIX))
			c->field = xstrndup(pos + n + 1, m - n - 1 - x);
	}
}

static void read_cap(const struct table_view *v, size_t e,
		     struct tu_facts *out)
{
	const struct table_entry *en = &v->entries[e];
	struct cap_in c = { 0 };
	size_t i;

	if (!en->braced)
		return;
	for (i = 0; i < en->nr_members; i++) {
		const struct table_member *m = &en->members[i];

		if (!strcmp(m->name, CAP_NAME) && !c.name) {
			c.name = m->written;
		} else if (!strcmp(m->name, CAP_TYPE) && !c.type) {
			c.type = m->written;
			if (m->has_value)
				c.scope = (unsigned int)m->value &
					  ((1u << ARRAY_SIZE(scope_names)) - 1);
		} else if (!strcmp(m->name, CAP_MATCHES) && !c.matches) {
			c.matches = m->ref;
		}
	}
	if (!c.name)
		return;
	scan_entry_tokens(&c, v, en->tok, en->end);
	facts_add_row(out, &(struct table_row_in){
		.kind = ARCH_ROW_CAPS, .table = v->name, .key = c.name,
		.v = { c.type, c.matches, c.reg, c.field, c.min },
		.num = c.scope, .flag = c.midr, .file = en->file,
		.line = en->line,
	});
	free(c.reg);
	free(c.field);
	free(c.min);
}

/*
 * The fields of @reg that its arm64_ftr_bits array (@name) describes:
 * rows of key @reg, v1 the field's *_SHIFT macro and v2 "S" (FTR_STRICT)
 * or "N" (FTR_NONSTRICT), after one with no field that says every entry
 * of the array was read (none gives its shift as a number).
 * read_sanitised_ftr_reg() returns 0 in the bits of a field the array
 * leaves out (init_cpu_ftr_reg(): val &= valid_mask).
 */
static void read_ftr_bits(const struct table_view *v, size_t e,
			  const char *reg, const char *name,
			  struct tu_facts *out)
{
	struct table_row_in *bits = NULL;
	size_t nr = 0, alloc = 0, k;
	bool complete = true;
	char **t;
	unsigned int n, i, j, end;
	int depth;

	if (!v->ref_tokens(v, e, name, &t, &n))
		return;
	for (i = 0; i < n; i++) {
		const char *shift = NULL;
		bool nonstrict = false;

		if (!ends(t[i], FTR_BITS_MACRO) || i + 1 >= n ||
		    strcmp(t[i + 1], "("))
			continue;
		/* To the macro's closing parenthesis. */
		for (end = i + 1, depth = 0; end < n; end++) {
			if (!strcmp(t[end], "{") || !strcmp(t[end], "("))
				depth++;
			else if ((!strcmp(t[end], "}") ||
				  !strcmp(t[end], ")")) && --depth <= 0)
				break;
		}
		end = end < n ? end + 1 : n;
		for (j = i + 1; j < end; j++) {
			if (!strcmp(t[j], FTR_NONSTRICT))
				nonstrict = true;
			else if (!shift && ends(t[j], SHIFT_SUFFIX) &&
				 strcmp(t[j], SHIFT_SUFFIX))
				shift = t[j];
		}
		if (!shift) {
			/*
			 * A shift written as a number (ftr_generic_32bits):
			 * which fields the array leaves out is not known.
			 */
			complete = false;
			continue;
		}
		*PUSH(bits, nr, alloc) = (struct table_row_in){
			.kind = ARCH_ROW_FTR_BITS, .table = v->name,
			.key = reg, .v = { shift, nonstrict ? "N" : "S" },
		};
		i = end - 1;
	}
	if (complete)
		facts_add_row(out, &(struct table_row_in){
			.kind = ARCH_ROW_FTR_BITS, .table = v->name,
			.key = reg,
		});
	for (k = 0; k < nr; k++)
		facts_add_row(out, &bits[k]);
	free(bits);
	v->tokens_release(t, n);
}

/*
 * ARM64_FTR_REG(SYS_ID_PFR0_EL1, ftr_id_pfr0): the first SYS_ name of the
 * entry, and the fields of its ftr_ array.
 */
static void read_ftr(const struct table_view *v, size_t e,
		     struct tu_facts *out)
{
	const struct table_entry *en = &v->entries[e];
	const char *reg = NULL;
	unsigned int i;

	for (i = en->tok; i < en->end && i < v->nr_tok; i++) {
		if (!reg && starts(v->tok[i], REG_PREFIX)) {
			reg = v->tok[i] + strlen(REG_PREFIX);
			facts_add_row(out, &(struct table_row_in){
				.kind = ARCH_ROW_FTR_REGS, .table = v->name,
				.key = reg,
			});
		} else if (reg && starts(v->tok[i], FTR_BITS_PREFIX)) {
			read_ftr_bits(v, e, reg, v->tok[i], out);
			break;
		}
	}
}

static void arm64_read_table(const struct table_view *v, struct tu_facts *out)
{
	size_t e;

	for (e = 0; e < v->nr_entries; e++) {
		if (v->kind == ARCH_ROW_FTR_REGS)
			read_ftr(v, e, out);
		else if (v->kind == ARCH_ROW_CAPS)
			read_cap(v, e, out);
	}
}

static const char *cap_scope_name(unsigned int scope)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(scope_names); i++)
		if (scope & (1u << i))
			return scope_names[i];
	return "?";
}

const struct arm64_cap *arm64_cap_find(const struct arm64_tables *t,
				       const char *name)
{
	const struct arm64_cap *best = NULL;
	size_t i;

	/* A capability with several entries: the costliest read wins. */
	for (i = 0; t && i < t->nr; i++)
		if (!strcmp(t->caps[i].name, name) &&
		    (!best || (t->caps[i].reads && !best->reads) ||
		     t->caps[i].trap > best->trap))
			best = &t->caps[i];
	return best;
}

static bool arm64_is_sanitised(const struct arm64_tables *t, const char *reg)
{
	return t && reg && str_in(reg, t->ftr_regs, t->nr_ftr);
}

static bool arm64_has_hyp_copy(const struct arm64_tables *t, const char *name)
{
	return t && name && str_in(name, t->hyp_copies, t->nr_hyp_copies);
}

static enum ftr_field arm64_ftr_field(const struct arm64_tables *t,
				     const char *reg, const char *shift)
{
	enum ftr_field ret = FTR_FIELD_UNKNOWN;
	size_t i;

	for (i = 0; t && i < t->nr_bits; i++) {
		const struct grow *b = t->ftr_bits[i];

		if (strcmp(b->key, reg))
			continue;
		if (!b->v[0]) {
			ret = FTR_FIELD_ABSENT;
			continue;
		}
		if (!strcmp(b->v[0], shift))
			return b->v[1][0] == 'N' ? FTR_FIELD_NONSTRICT :
						   FTR_FIELD_STRICT;
	}
	return ret;
}

/*
 * Registers read by @fn and what it calls (not entering opaque sinks):
 * the costliest one, or NULL.
 */
static const struct reg_def *reads_from(const struct graph *g, int fn,
					bool *indirect)
{
	int *queue = xmalloc((g->nr_nodes + 1) * sizeof(*queue));
	unsigned char *seen = xcalloc(g->nr_nodes + 1, 1);
	const struct reg_def *best = NULL;
	size_t head = 0, tail = 0, i;

	queue[tail++] = fn;
	seen[fn] = 1;
	while (head < tail) {
		const struct gnode *n = &g->nodes[queue[head++]];

		/* A call through a pointer, or a body never seen. */
		if (n->indirect_calls || !n->defined)
			*indirect = true;
		for (i = 0; i < n->nr_out; i++) {
			int v = g->edges[n->out[i]].callee;

			if (seen[v] || g->nodes[v].opaque)
				continue;
			seen[v] = 1;
			queue[tail++] = v;
		}
	}
	for (i = 0; i < g->nr_sinks; i++) {
		const struct gsink *s = &g->sinks[i];
		const struct reg_def *r;

		if (!seen[s->func] || sink_at(s->sink)->class != SINK_IDREG)
			continue;
		r = reg_lookup_arg(sink_at(s->sink), s->arg);
		if (r && (!best || r->trap > best->trap))
			best = r;
	}
	free(queue);
	free(seen);
	return best;
}

/* What this_cpu_has_cap() of @c reads on the local CPU. */
static void resolve_cap(const struct graph *g, struct arm64_tables *t,
			struct arm64_cap *c)
{
	const struct reg_def *r = NULL;
	const char *name;
	bool indirect = false;
	int fn = -1;
	size_t j;

	if (c->reg) {
		r = reg_lookup(c->reg);
		c->reads = c->reg;
		c->trap = r ? r->trap : reg_idreg_trap(c->reg);
		c->how = CAP_REG;
		return;
	}
	/* Names are the graph's: compared by address. */
	name = strpool_find(&g->pool, c->matches);
	for (j = 0; name && j < g->nr_nodes; j++)
		if (g->nodes[j].defined && g->nodes[j].name == name)
			fn = (int)j;
	if (fn >= 0)
		r = reads_from(g, fn, &indirect);
	if (r) {
		c->reads = r->name;
		c->trap = r->trap;
		c->how = CAP_MATCHES;
	} else if (c->midr) {
		/* Matched on the CPU's identity: that register. */
		c->reads = ID_REG;
		r = reg_lookup(c->reads);
		c->trap = r ? r->trap : TRAP_NONE;
		c->how = "midr";
	} else if (fn >= 0 && !indirect) {
		/* matches() and all it calls read no ID register. */
		c->how = "none";
	} else {
		t->unresolved++;
	}
}

static int cap_order(const void *a, const void *b)
{
	const struct arm64_cap *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static void *arm64_tables_load(const struct graph *g)
{
	struct arm64_tables *t = xcalloc(1, sizeof(*t));
	size_t i;

	t->have_ftr = g->tables_seen & (1u << ARCH_ROW_FTR_REGS);
	t->have_caps = g->tables_seen & (1u << ARCH_ROW_CAPS);
	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];
		struct arm64_cap *c;

		switch (r->kind) {
		case ARCH_ROW_FTR_REGS:
			*PUSH(t->ftr_regs, t->nr_ftr, t->alloc_ftr) = r->key;
			break;
		case ARCH_ROW_FTR_BITS:
			*PUSH(t->ftr_bits, t->nr_bits, t->alloc_bits) = r;
			break;
		case ARCH_ROW_HYP_COPY:
			*PUSH(t->hyp_copies, t->nr_hyp_copies,
			      t->alloc_hyp_copies) = r->key;
			break;
		case ARCH_ROW_CAPS:
			c = PUSH(t->caps, t->nr, t->alloc);
			memset(c, 0, sizeof(*c));
			c->name = r->key;
			c->type = r->v[0];
			c->matches = r->v[1];
			c->reg = r->v[2];
			c->field = r->v[3];
			c->min = r->v[4];
			c->table = r->table;
			c->file = r->file;
			c->line = r->line;
			c->scope = r->num;
			c->midr = r->flag;
			break;
		}
	}
	sort_n(t->caps, t->nr, sizeof(*t->caps), cap_order);
	for (i = 0; i < t->nr; i++)
		resolve_cap(g, t, &t->caps[i]);
	return t;
}

static void arm64_tables_free(void *p)
{
	struct arm64_tables *t = p;

	if (!t)
		return;
	free(t->caps);
	free(t->ftr_regs);
	free(t->ftr_bits);
	free(t->hyp_copies);
	free(t);
}

static int arm64_tables_print(FILE *out, const void *p)
{
	const struct arm64_tables *t = p;
	size_t i;

	fprintf(out, "# arm64_ftr_regs[] (%zu):", t->nr_ftr);
	for (i = 0; i < t->nr_ftr; i++)
		fprintf(out, " %s", t->ftr_regs[i]);
	fputc('\n', out);
	fprintf(out, "# capability\tscope\tmatches\treads\tfield\tmin\ttrap\t"
		"sanitised\thow\tsource\n");
	for (i = 0; i < t->nr; i++) {
		const struct arm64_cap *c = &t->caps[i];

		fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s:%u\n",
			c->name, cap_scope_name(c->scope),
			c->matches ? c->matches : "-",
			c->reads ? c->reads : "?", c->field ? c->field : "-",
			c->min ? c->min : "-", reg_trap_name(c->trap),
			arm64_is_sanitised(t, c->reads) ? "yes" : "no",
			c->how ? c->how : "unresolved", c->file, c->line);
	}
	fflush(out);
	return ferror(out) ? -1 : 0;
}

static void arm64_tables_stats(const void *p, struct tables_stats *s)
{
	const struct arm64_tables *t = p;
	size_t i, j;

	s->seen = t->have_caps || t->have_ftr;
	s->caps = t->nr;
	s->copies = t->nr_ftr;
	s->caps_label = "capabilities";
	s->unresolved_label = "unresolved";
	s->copies_label = "sanitised registers";
	s->unknown_label = "unknown";
	for (i = 0; i < t->nr; i++) {
		bool dup = false;

		if (t->caps[i].how)
			continue;
		for (j = 0; j < s->nr_unresolved; j++)
			dup |= !strcmp(s->unresolved[j], t->caps[i].name);
		if (!dup)
			*PUSH(s->unresolved, s->nr_unresolved,
			      s->alloc_unresolved) = t->caps[i].name;
	}
	for (i = 0; i < t->nr_ftr; i++)
		if (!reg_lookup(t->ftr_regs[i]))
			*PUSH(s->unknown, s->nr_unknown, s->alloc_unknown) =
				t->ftr_regs[i];
}

bool arm64_cap_per_cpu_only(const struct arm64_cap *cap)
{
	return (cap->scope & CAP_SCOPE_LOCAL_CPU) &&
	       !(cap->scope & CAP_SCOPE_SYSTEM);
}

/*
 * What its KVM host's trace records of a guest's traps (input/trace.h):
 * kvm_sys_access, one event per trapped system register access, "PC: %lx
 * %s (%d,%d,%d,%d,%d) %s" (guest PC, register name, Op0..Op2, read or
 * write; arch/arm64/kvm/trace_handle_exit.h, emitted from perform_access()
 * in arch/arm64/kvm/sys_regs.c); and the trapping instruction, MRS, for
 * the KASLR inference.
 */

enum { KIND_SYSREG };

static const struct trace_kind_def arm64_trace_kinds[] = {
	/*
	 * MRS (L=1) of an op0=3 register: 0xd538xxxx..0xd53fxxxx; the
	 * kernel's KASLR moves it by multiples of 64 KiB
	 * (arch/arm64/kernel/pi/kaslr_early.c).
	 */
	[KIND_SYSREG] = { "sysreg", { EM_AARCH64, 0, 4, 4, 0xd5380000,
				      0xfff80000 }, 0x10000 },
};

/*
 * kvm_sys_access's fields, as the raw field list its print format gives
 * way to: the PC, whether it was a write, the register's encoding (Op0,
 * Op1, CRn, CRm, Op2).
 */
static const char *const sysreg_fields[] = {
	"vcpu_pc", "is_write", "Op0", "Op1", "CRn", "CRm", "Op2",
};

/*
 * What trace-cmd report prints when libtraceevent cannot parse the
 * event's print format (arm64 writes `__entry->name ?: "UNKN"`, which it
 * does not know): "[FAILED TO PARSE] vcpu_pc=0xffff800080012340
 * is_write=0 name=0xffff80008123d5a0 Op0=3 Op1=0 CRn=0 CRm=7 Op2=1".
 */
static int sys_access_raw(struct trace_reader *r, const char *p)
{
	unsigned long long v[ARRAY_SIZE(sysreg_fields)];
	char name[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sysreg_fields); i++)
		if (!trace_raw_field(p, sysreg_fields[i], &v[i]))
			return trace_bad(r, "kvm_sys_access: no vcpu_pc, "
					 "is_write, Op0, Op1, CRn, CRm and "
					 "Op2 fields");
	snprintf(name, sizeof(name), "S%llu_%llu_C%llu_C%llu_%llu", v[2], v[3],
		 v[4], v[5], v[6]);
	return v[1] ? 0 : trace_count(r, v[0], KIND_SYSREG, name);
}

/* "PC: ffff8000801234 ID_AA64MMFR1_EL1 (3,0,0,7,1) read" */
static int sys_access(struct trace_reader *r, unsigned int cpu,
		      const char *p)
{
	unsigned long long pc;
	int f[5], n = 0;
	char name[64];
	const char *e;

	(void)cpu;
	if (!strncmp(p, "[FAILED TO PARSE]", 17))
		return sys_access_raw(r, p + 17);
	if (strncmp(p, "PC: ", 4) || !trace_hex(p + 4, &pc, &e) || *e != ' ')
		return trace_bad(r, "kvm_sys_access: no \"PC: <hex>\"");
	if (sscanf(e, " %63s (%d,%d,%d,%d,%d)%n", name, &f[0], &f[1], &f[2],
		   &f[3], &f[4], &n) != 6 || !n)
		return trace_bad(r, "kvm_sys_access: no register and "
				 "encoding");
	e = e + n;
	while (*e == ' ')
		e++;
	/*
	 * The name is a pointer into the host kernel (__field(const char *,
	 * name)): from a trace.dat, libtraceevent prints its address. The
	 * encoding names it then, as the Arm ARM does.
	 */
	if (name[strspn(name, "0123456789abcdefx")] == '\0' ||
	    !strcmp(name, "(null)"))
		snprintf(name, sizeof(name), "S%d_%d_C%d_C%d_%d", f[0], f[1],
			 f[2], f[3], f[4]);
	if (!strcmp(e, "read"))
		return trace_count(r, pc, KIND_SYSREG, name);
	if (strcmp(e, "write"))
		return trace_bad(r, "kvm_sys_access: neither read nor write");
	return 0;
}

static const struct trace_event arm64_trace_events[] = {
	{ "kvm_sys_access", sys_access, sysreg_fields,
	  ARRAY_SIZE(sysreg_fields) },
};

/*
 * Its part of the trapping-idreg-read rule: the cached alternative the
 * kernel keeps for an ID register, when it answers the question the code
 * asks, as advice; and the rewrite of commit a89c6bcdac22 ("arm64: Avoid
 * repeated AA64MMFR1_EL1 register read on pagefault path") as a fix,
 * only where the advice is the sanitised copy. struct arch reaches them
 * (arm64_rules: .read_advice, .fix_read; .value_fields for extraction).
 */

/*
 * The fields of @reg that a function's tokens name from a read on, as the
 * tree spells their shift macros ("ID_AA64DFR0_EL1_PMSVer_SHIFT"):
 * <REG>_<F>_SHIFT, <REG>_<F>_MASK, <REG>_<F>_WIDTH and SYS_FIELD_GET(REG,
 * F, ...); <REG> also without its _EL1 (6.1's ID_AA64DFR0_PMSVER_SHIFT).
 */
static char *value_fields(char *const *tok, unsigned int n, const char *reg)
{
	static const char *const suffix[] = { "_SHIFT", "_MASK", "_WIDTH" };
	size_t nreg = strlen(reg), nbase = nreg;
	char **v = NULL, *out = NULL;
	size_t nr = 0, alloc = 0, k;
	unsigned int i;

	if (ends(reg, "_EL1"))
		nbase -= 4;
	for (i = 0; i < n; i++) {
		const char *t = tok[i];
		size_t len = strlen(t);

		if (!strcmp(t, "SYS_FIELD_GET") && i + 4 < n &&
		    !strcmp(tok[i + 1], "(") && !strcmp(tok[i + 2], reg) &&
		    !strcmp(tok[i + 3], ",") && ident_start(tok[i + 4][0])) {
			char *s = xasprintf("%s_%s_SHIFT", reg, tok[i + 4]);

			strv_add_once(&v, &nr, &alloc, s, strlen(s));
			free(s);
			continue;
		}
		if (strncmp(t, reg, nbase) || t[nbase] != '_')
			continue;
		for (k = 0; k < ARRAY_SIZE(suffix); k++) {
			size_t ne = strlen(suffix[k]);

			if (len > nbase + 1 + ne && ends(t, suffix[k])) {
				char *s = xasprintf("%.*s_SHIFT",
						    (int)(len - ne), t);

				strv_add_once(&v, &nr, &alloc, s, strlen(s));
				free(s);
				break;
			}
		}
	}
	for (k = 0; k < nr; k++) {
		char *more = xasprintf("%s%s%s", out ? out : "", out ? "," : "",
				       v[k]);

		free(out);
		out = more;
	}
	strv_free(v, nr);
	return out;
}

/* "ID_AA64DFR0_EL1_PMSVer_SHIFT": "PMSVer". */
static char *field_name(const char *shift, const char *reg)
{
	size_t nreg = strlen(reg), n = strlen(shift);

	if (ends(reg, "_EL1") && strncmp(shift, reg, nreg))
		nreg -= 4;
	if (n > nreg + 7 && !strncmp(shift, reg, nreg))
		return xasprintf("%.*s", (int)(n - nreg - 7), shift + nreg + 1);
	return xstrdup(shift);
}

/* What the code tests of @reg, against the tree's arm64_ftr_bits. */
struct field_verdict {
	char *absent;		/* a field the array does not describe */
	char *nonstrict;	/* a FTR_NONSTRICT one: each CPU's own */
};

static void judge_fields(const struct arm64_tables *t, const char *reg,
			 const char *fields, struct field_verdict *fv)
{
	char *copy = fields ? xstrdup(fields) : NULL, *save = NULL, *s;

	memset(fv, 0, sizeof(*fv));
	for (s = copy ? strtok_r(copy, ",", &save) : NULL; s;
	     s = strtok_r(NULL, ",", &save)) {
		switch (arm64_ftr_field(t, reg, s)) {
		case FTR_FIELD_ABSENT:
			if (!fv->absent)
				fv->absent = field_name(s, reg);
			break;
		case FTR_FIELD_NONSTRICT:
			if (!fv->nonstrict)
				fv->nonstrict = field_name(s, reg);
			break;
		default:
			break;
		}
	}
	free(copy);
}

static void field_verdict_free(struct field_verdict *fv)
{
	free(fv->absent);
	free(fv->nonstrict);
}

/*
 * Why the sanitised copy does not answer what @fn asks of @reg, or NULL
 * when it does (as far as the fields it names tell): a field the array
 * leaves out reads 0 there (init_cpu_ftr_reg(): val &= valid_mask); a
 * FTR_NONSTRICT one is the system-wide safe value, not this CPU's.
 * Upstream kept a per-CPU value instead (38131c02a53f "KVM: arm64: Track
 * presence of SPE/TRBE in kvm_host_data instead of vCPU").
 */
static char *copy_refused(const struct field_verdict *fv, const char *fn,
			  const char *reg)
{
	if (fv->absent)
		return xasprintf("%s() tests %s, a field the tree's "
				 "arm64_ftr_bits of %s do not describe: "
				 "read_sanitised_ftr_reg() returns 0 there",
				 fn, fv->absent, reg);
	if (fv->nonstrict)
		return xasprintf("%s() tests %s, a FTR_NONSTRICT field of %s: "
				 "CPUs may differ there, and the sanitised "
				 "copy holds the system-wide safe value, not "
				 "this CPU's", fn, fv->nonstrict, reg);
	return NULL;
}

/* Which hyp modes run code of @file: its MODE_PATH's, else both. */
static const char *hyp_mode_of(const char *file)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_mode_paths; i++)
		if (starts(file, a->mode_paths[i].prefix))
			return a->mode_paths[i].mode;
	return NULL;
}

/*
 * In hyp code (the architecture's no_rewrite paths: EL2, linked on its
 * own), read_sanitised_ftr_reg() cannot be called. The copy the host
 * keeps for it (tables.def: the "*_sys_val" globals) is set by
 * init_hyp_mode(), on an nVHE host only: code a VHE host runs too (the
 * shared hyp/include/ bodies) cannot use it. Else, and for what the copy
 * does not answer (@refused), a value read once per CPU at KVM's init
 * into the per-CPU host data both modes reach.
 */
static char *hyp_advice(const struct arm64_tables *t, const char *reg,
			const char *file, const char *refused)
{
	char *name = xasprintf("%s_sys_val", reg), *p, *s;
	const char *mode = hyp_mode_of(file);
	bool copy;

	for (p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	copy = arm64_has_hyp_copy(t, name);
	if (refused)
		s = xasprintf("%s; read this CPU's value once at KVM's init "
			      "into the per-CPU host data (host_data_ptr()) "
			      "and use that", refused);
	else if (copy && mode && !strcmp(mode, "nVHE host"))
		s = xasprintf("in hyp code, where read_sanitised_ftr_reg() "
			      "cannot be called, read the copy the host keeps, "
			      "%s (kvm_nvhe_sym(%s), set at KVM's init)", name,
			      name);
	else if (copy)
		s = xasprintf("in hyp code that a VHE host runs too, the "
			      "host's copy %s serves no VHE host "
			      "(init_hyp_mode() sets it for nVHE only): read "
			      "%s once per CPU at KVM's init into the per-CPU "
			      "host data (host_data_ptr()) and use that", name,
			      reg);
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

	return arch_path_in(a->no_rewrite, a->nr_no_rewrite, file);
}

/* percpu.def LOCAL_ASK: conditions under which code asks about its CPU. */
static const char *const local_asks[] = {
#define HOST_DATA(h, o, a, f, fn)
#define CPUINFO(file, store, reader, percpu, header)
#define STORED_BY(entry, store)
#define LOCAL_ASK(atom, source) atom,
#include "percpu.def"
#undef LOCAL_ASK
#undef STORED_BY
#undef CPUINFO
#undef HOST_DATA
};

/* The atom of @guards (" && "-joined) that asks about this CPU, or NULL. */
static const char *local_ask(const char *guards)
{
	const char *p = guards, *e;
	size_t i, len;

	while (p && *p) {
		e = strstr(p, " && ");
		len = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < ARRAY_SIZE(local_asks); i++)
			if (strlen(local_asks[i]) == len &&
			    !strncmp(p, local_asks[i], len))
				return local_asks[i];
		p = e ? e + 4 : NULL;
	}
	return NULL;
}

/* Why @fn's read under @atom wants this CPU's value: a new string. */
static char *local_ask_why(const char *fn, const char *atom)
{
	return xasprintf("%s() asks about the CPU it runs on (it reads the "
			 "register under %s): the sanitised copy, the "
			 "system-wide value, is not its answer", fn, atom);
}

/* A register chosen at run time, read under @guards by @fn: or NULL. */
static char *any_read_advice_at(const char *guards, const char *fn)
{
	const char *ask = local_ask(guards);
	char *why, *s;

	if (!ask)
		return NULL;
	why = local_ask_why(fn, ask);
	s = xasprintf("%s; read this CPU's value once at CPU bring-up into "
		      "per-CPU data and use that", why);
	free(why);
	return s;
}

char *arm64_read_advice(const void *tables, const struct read_ask *q,
			int *sanitised)
{
	const struct arm64_tables *t = tables;
	struct field_verdict fv;
	const char *live, *ask;
	char *refused, *s;

	judge_fields(t, q->reg, q->fields, &fv);
	refused = copy_refused(&fv, q->fn, q->reg);
	field_verdict_free(&fv);
	*sanitised = t && t->have_ftr ? arm64_is_sanitised(t, q->reg) : -1;
	live = arch_live_reg(q->reg);
	ask = local_ask(q->guards);
	if (live)
		s = xasprintf("%s is %s: no copy read at boot or bring-up "
			      "stands in for it; keep the value where it is "
			      "written, in memory, and read that", q->reg,
			      live);
	else if (ask && !in_hyp(q->file)) {
		char *why = local_ask_why(q->fn, ask);

		s = xasprintf("%s; read this CPU's value once at CPU bring-up "
			      "into per-CPU data and use that", why);
		free(why);
	} else if (in_hyp(q->file))
		s = hyp_advice(t, q->reg, q->file, refused);
	else if (*sanitised < 0)
		s = xasprintf("arm64_ftr_regs[] was not analysed "
			      "(arch/arm64/kernel/cpufeature.c): cache the "
			      "value or read the sanitised copy if it has "
			      "one");
	else if (!*sanitised)
		s = xasprintf("%s is not in arm64_ftr_regs[]: cache a "
			      "per-CPU or boot-time value", q->reg);
	else if (refused)
		s = xasprintf("%s; read this CPU's value once at CPU bring-up "
			      "into per-CPU data and use that", refused);
	else if (q->field)
		s = xasprintf("the sanitised copy is "
			      "read_sanitised_ftr_reg(SYS_%s), field %s",
			      q->reg, q->field);
	else
		s = xasprintf("the sanitised copy is "
			      "read_sanitised_ftr_reg(SYS_%s)", q->reg);
	free(refused);
	return s;
}

/*
 * The name of the copy the host keeps for hyp code that the advice names
 * for @f (hyp_advice(): code of the nVHE objects alone, a copy in the
 * tree, the fields it tests answered by it), or NULL (new).
 */
static char *advised_hyp_copy(const struct fix_ctx *ctx)
{
	const struct finding *f = ctx->finding;
	const struct arm64_tables *t = ctx->graph->arch_tables;
	const char *mode = hyp_mode_of(f->site->file);
	struct field_verdict fv;
	char *name, *p, *refused;

	if (!f->read.reg || !mode || strcmp(mode, "nVHE host"))
		return NULL;
	name = xasprintf("%s_sys_val", f->read.reg);
	for (p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	judge_fields(t, f->read.reg, f->site->fields, &fv);
	refused = copy_refused(&fv, f->fn->name, f->read.reg);
	field_verdict_free(&fv);
	if (refused || !arm64_has_hyp_copy(t, name)) {
		free(refused);
		free(name);
		return NULL;
	}
	return name;
}

/*
 * What the advice says for code of the nVHE objects alone: the read
 * becomes the host's copy, which init_hyp_mode() sets before that code
 * runs (kvm_hyp_init_symbols()).
 */
static bool fix_hyp_copy(const struct fix_ctx *ctx, struct fix_edit *e,
			 const char *copy, char **why)
{
	const struct finding *f = ctx->finding;
	const char *line, *at, *close;
	char *area;

	at = fix_sink_call(ctx, &line);
	close = at ? strchr(at, ')') : NULL;
	if (!close) {
		*why = xasprintf("the read is not written as %s(...) on one "
				 "line", finding_sink(f));
		return false;
	}
	e->first = e->last = f->site->line;
	fix_edit_add_line(e, "%.*s%s%s", (int)(at - line), line, copy,
			  close + 1);
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: Read the host's copy of %s in %s()",
			       area, f->read.reg, f->fn->name);
	free(area);
	e->body = xasprintf("%s() reads %s from hardware with %s(). Under "
			    "nested virtualisation the outer hypervisor traps "
			    "reads of the ID registers (%s): each read is an "
			    "exit to it.\n\nThis code is built for the nVHE "
			    "hyp objects only, where the host's init "
			    "(kvm_hyp_init_symbols(), called by "
			    "init_hyp_mode()) sets %s before any hyp code "
			    "runs: read that.", f->fn->name, f->read.reg,
			    finding_sink(f), f->read.trap, copy);
	return true;
}

/*
 * The fix of commit a89c6bcdac22: the read becomes
 * read_sanitised_ftr_reg(SYS_<REG>), under that commit's comment, when
 * the tree's arm64_ftr_regs[] serves the register, the fields the
 * function tests are ones the copy answers for (the advice's own test),
 * and the read is written on one line.
 */
static bool fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		     char **why)
{
	const struct finding *f = ctx->finding;
	const char *line, *at, *close;
	struct field_verdict fv;
	char *ind, *area, *refused;

	/*
	 * Hyp code: the host's copy where the advice names it, else a
	 * per-CPU copy in the host data (fix-percpu.c).
	 */
	if (ctx->no_rewrite) {
		char *copy = advised_hyp_copy(ctx);
		bool ok;

		if (!copy)
			return arm64_fix_host_data(ctx, e, why);
		ok = fix_hyp_copy(ctx, e, copy, why);
		free(copy);
		return ok;
	}
	if (!f->read.reg) {
		*why = xasprintf("%s() reads a register chosen at run time: "
				 "no single sanitised register to read",
				 finding_sink(f));
		return false;
	}
	/*
	 * Code that asks about its CPU runs while a CPU comes up, often
	 * through a capability's .matches, before its copy is stored
	 * (percpu.def): no rewrite, this CPU's copy included.
	 */
	if (local_ask(f->site->guards)) {
		char *r = local_ask_why(f->fn->name,
					local_ask(f->site->guards));

		*why = xasprintf("%s; keep this read: such code runs while a "
				 "CPU comes up, before its copy is stored "
				 "(check_local_cpu_capabilities() before "
				 "cpuinfo_store_cpu()), and a hot caller "
				 "should ask for the system instead", r);
		free(r);
		return false;
	}
	if (f->read.cached != 1) {
		*why = xasprintf("%s is not in the tree's arm64_ftr_regs[]: "
				 "no sanitised copy to read", f->read.reg);
		return false;
	}
	judge_fields(ctx->graph->arch_tables, f->read.reg, f->site->fields,
		     &fv);
	refused = copy_refused(&fv, f->fn->name, f->read.reg);
	field_verdict_free(&fv);
	if (refused) {
		/* This CPU's answer: the copy cpuinfo keeps (fix-percpu.c). */
		bool ok = arm64_fix_cpuinfo(ctx, refused, e, why);

		free(refused);
		return ok;
	}
	if (f->site->line > ctx->src->nr_lines)
		goto err_shape;
	at = fix_sink_call(ctx, &line);
	if (!at)
		goto err_shape;
	close = strchr(at, ')');
	if (!close)
		goto err_shape;
	ind = line_indent(line);
	e->first = e->last = f->site->line;
	fix_edit_add_line(e, "%s/*", ind);
	fix_edit_add_line(e, "%s * Use cached version to avoid emulated msr "
			  "operation on KVM", ind);
	fix_edit_add_line(e, "%s * guests.", ind);
	fix_edit_add_line(e, "%s */", ind);
	fix_edit_add_line(e, "%.*sread_sanitised_ftr_reg(SYS_%s)%s",
			  (int)(at - line), line, f->read.reg, close + 1);
	free(ind);
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: avoid trapping ID register read in %s()",
			       area, f->fn->name);
	free(area);
	e->body = xasprintf("%s() reads %s from hardware with %s(). Under "
			    "virtualization the hypervisor traps guest reads "
			    "of the ID registers (%s): each read is a "
			    "vmexit.\n\nThe register is invariant after boot "
			    "and the kernel keeps its sanitised value in "
			    "arm64_ftr_regs[]: read_sanitised_ftr_reg() "
			    "returns it from memory, with no register access "
			    "and hence no trap.", f->fn->name, f->read.reg,
			    finding_sink(f), f->read.trap);
	return true;

err_shape:
	*why = xasprintf("the read is not written as %s(...) on one line",
			 finding_sink(f));
	return false;
}

/*
 * asm/sysreg.h's "#define SYS_<NAME> sys_reg(op0, op1, crn, crm, op2)"
 * (the register's number in an MRS/MSR word) and its mrs_s macro, which
 * writes an MRS as .inst(0xd5200000|sys_reg(...)|Rt) for registers an
 * assembler may not name.
 */
static bool asm_define_reg(const char *d, char *name, size_t len,
			   unsigned long *enc)
{
	unsigned int op[5];
	char buf[128];

	if (sscanf(d, "SYS_%127[A-Za-z0-9_] sys_reg(%u, %u, %u, %u, %u)",
		   buf, &op[0], &op[1], &op[2], &op[3], &op[4]) != 6 ||
	    strlen(buf) >= len)
		return false;
	strcpy(name, buf);
	*enc = (unsigned long)op[0] << 19 | op[1] << 16 | op[2] << 12 |
	       op[3] << 8 | op[4] << 5;
	return true;
}

#define MRS_MASK	0xffe00000ul	/* MRS <Xt>, <systemreg> */
#define MRS_BITS	0xd5200000ul
#define SYSREG_MASK	0x001fffe0ul	/* op0, op1, CRn, CRm, op2 */

static const char *asm_inst_read(unsigned long word, unsigned long *enc)
{
	if ((word & MRS_MASK) != MRS_BITS)
		return NULL;
	*enc = word & SYSREG_MASK;
	return "mrs";
}

static const struct arch_rules arm64_rules = {
	.read_advice = arm64_read_advice,
	.any_read_advice = "read the sanitised copy with "
			   "read_sanitised_ftr_reg()",
	.any_read_advice_at = any_read_advice_at,
	.fix_read = fix_read,
	.fix_group = arm64_fix_group,
};

static const struct sink_def sinks[] = {
#define SINK ARCH_SINK
#include "sinks.def"
#undef SINK
};

/* The HCR_EL2 controls that make a read of an ID register exit. */
enum {
	ARCH_TRAP_NONE = TRAP_NONE, ARCH_TRAP_TID1, ARCH_TRAP_TID2,
	ARCH_TRAP_TID5, ARCH_TRAP_TID3,
};

static const struct reg_def regs[] = {
#define REG ARCH_REG
#include "registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[ARCH_TRAP_NONE] = "none", [ARCH_TRAP_TID1] = "HCR_EL2.TID1",
	[ARCH_TRAP_TID2] = "HCR_EL2.TID2", [ARCH_TRAP_TID5] = "HCR_EL2.TID5",
	[ARCH_TRAP_TID3] = "HCR_EL2.TID3",
};

static const struct arch_table tables[] = {
#define TABLE ARCH_TABLE_LINE
#include "tables.def"
#undef TABLE
};

static const char *const triples[] = { "aarch64-", "arm64-" };

/*
 * nVHE hyp code runs at EL2 linked on its own, where
 * read_sanitised_ftr_reg() and the kernel's data do not exist.
 */
static const struct arch_path no_rewrite[] = {
	{ "arch/arm64/kvm/hyp/", "hyp code (EL2, linked on its own) cannot "
	  "call read_sanitised_ftr_reg()" },
};

/* Registers that are state, not identification: pattern and what. */
static const struct arch_path live_regs[] = {
#define LIVE_REG ARCH_LIVE_REG
#include "live-regs.def"
#undef LIVE_REG
};

static const struct arch_path areas[] = {
	{ "arch/arm64/include/asm/", NULL },
	{ "arch/arm64/kernel/", NULL },
	{ "arch/arm64/mm/", "arm64: mm" },
	{ "arch/arm64/kvm/", "KVM: arm64" },
};

static const struct guard_def guards[] = {
#define GUARD ARCH_GUARD
#include "phases.def"
#undef GUARD
};

static const char *const host_paths[] = {
#define NESTED_PATH ARCH_NESTED_PATH
#include "context.def"
#undef NESTED_PATH
};

/* What its conditions say of when code runs (conditions.def). */
static const struct cond_def conds[] = {
#define COND ARCH_COND
#define MODE_PATH(prefix, mode)
#include "conditions.def"
#undef MODE_PATH
#undef COND
};

static const struct mode_path mode_paths[] = {
#define COND(kind, pattern, t, f)
#define MODE_PATH ARCH_MODE_PATH
#include "conditions.def"
#undef MODE_PATH
#undef COND
};

static const char *const cold_fns[] = {
#define COLD_FN ARCH_COLD_FN
#include "cold.def"
#undef COLD_FN
};

/* The devices its guest machines have (machine.def). */
static const struct arch_device machine[] = {
#define DEVICE ARCH_DEVICE
#define PROPERTY ARCH_PROPERTY
#include "machine.def"
#undef PROPERTY
#undef DEVICE
};

/* What KVM as the outer hypervisor does for its guests (outer.def). */
static const struct arch_guest_outer guest_outers[] = {
#define GUEST ARCH_GUEST
#define TRAP_SET(reg, bit, setter)
#define HOST(pattern, value, why)
#define NESTING(feature, limit, check, what)
#include "outer.def"
#undef NESTING
#undef HOST
#undef TRAP_SET
#undef GUEST
};

/* When KVM makes a guest's read of a register trap (outer.def). */
static const struct arch_trap_set trap_sets[] = {
#define GUEST(through, handler, calls, when)
#define TRAP_SET ARCH_TRAP_SET
#define HOST(pattern, value, why)
#define NESTING(feature, limit, check, what)
#include "outer.def"
#undef NESTING
#undef HOST
#undef TRAP_SET
#undef GUEST
};

static const struct arch_host_atom host_atoms[] = {
#define GUEST(through, handler, calls, when)
#define TRAP_SET(reg, bit, setter)
#define HOST ARCH_HOST
#define NESTING(feature, limit, check, what)
#include "outer.def"
#undef NESTING
#undef HOST
#undef TRAP_SET
#undef GUEST
};

/* Whether KVM runs a nested host at all (outer.def). */
static const struct arch_nesting nestings[] = {
#define GUEST(through, handler, calls, when)
#define TRAP_SET(reg, bit, setter)
#define HOST(pattern, value, why)
#define NESTING ARCH_NESTING
#include "outer.def"
#undef NESTING
#undef HOST
#undef TRAP_SET
#undef GUEST
};

const struct arch arch_arm64 = {
	.name = "arm64",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
	.idreg_prefix = "ID_", .idreg_trap = ARCH_TRAP_TID3,
	.reg_prefix = "SYS_",
	ARCH_TABLE(tables),
	.read_table = arm64_read_table,
	.tables_load = arm64_tables_load,
	.tables_free = arm64_tables_free,
	.tables_print = arm64_tables_print,
	.tables_stats = arm64_tables_stats,
	ARCH_TABLE(no_rewrite),
	ARCH_TABLE(areas),
	ARCH_TABLE(guards),
	ARCH_TABLE(host_paths),
	ARCH_TABLE(cold_fns),
	.rules = &arm64_rules,
	.value_fields = value_fields,
	ARCH_TABLE(live_regs),
	.own_rules = arm64_own_rules,
	ARCH_TABLE(conds),
	ARCH_TABLE(mode_paths),
	ARCH_TABLE(machine),
	ARCH_TABLE(guest_outers),
	ARCH_TABLE(trap_sets),
	ARCH_TABLE(host_atoms),
	ARCH_TABLE(nestings),
	/* Linux 6.12: cpucap-defs.h; 6.1: cpucaps.h (gen-cpucaps.awk). */
	.asm_caps = "*/generated/asm/cpucap*.h",
	.asm_define_reg = asm_define_reg,
	.asm_inst_read = asm_inst_read,
	.trace_kinds = arm64_trace_kinds,
	.nr_trace_kinds = ARRAY_SIZE(arm64_trace_kinds),
	.trace_events = arm64_trace_events,
	.nr_trace_events = ARRAY_SIZE(arm64_trace_events),
};
