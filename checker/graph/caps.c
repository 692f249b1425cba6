// SPDX-License-Identifier: GPL-2.0
/*
 * caps.c - what each capability of the analysed tree reads, resolved
 * against the call graph (the entries come from tables.c), and the
 * --list-caps table.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/graph/caps.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/base/util.h"

const char *cap_scope_name(unsigned int scope)
{
	const char *name;
	size_t i;

	/* The architecture's scope words, in bit order (words.def). */
	for (i = 0; (name = arch_word(WORD_CAP_SCOPE, i)); i++)
		if (scope & (1u << i))
			return name;
	return "?";
}

const struct cap *caps_find(const struct cap_table *t, const char *name)
{
	const struct cap *best = NULL;
	size_t i;

	/* A capability with several entries: the costliest read wins. */
	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->caps[i].name, name) &&
		    (!best || (t->caps[i].reads && !best->reads) ||
		     t->caps[i].trap > best->trap))
			best = &t->caps[i];
	return best;
}

bool caps_is_sanitised(const struct cap_table *t, const char *reg)
{
	return reg && str_in(reg, t->ftr_regs, t->nr_ftr);
}

bool caps_has_hyp_copy(const struct cap_table *t, const char *name)
{
	return name && str_in(name, t->hyp_copies, t->nr_hyp_copies);
}

char *caps_msr_lists(const struct cap_table *t, const char *msr)
{
	char *out = NULL, *o;
	size_t i, n;

	for (i = 0; msr && i < t->nr_msrs; i++) {
		const char *e = t->msrs[i], *sp = strchr(e, ' ');

		if (!sp || strcmp(sp + 1, msr))
			continue;
		n = (size_t)(sp - e);
		o = out ? xasprintf("%s, %.*s[]", out, (int)n, e) :
			  xasprintf("%.*s[]", (int)n, e);
		free(out);
		out = o;
	}
	return out;
}

enum ftr_field caps_ftr_field(const struct cap_table *t, const char *reg,
			      const char *shift)
{
	enum ftr_field ret = FTR_FIELD_UNKNOWN;
	size_t n = strlen(reg), i;

	for (i = 0; i < t->nr_bits; i++) {
		const char *b = t->ftr_bits[i];
		size_t m;

		if (strncmp(b, reg, n) || b[n] != ' ')
			continue;
		b += n + 1;
		if (!strcmp(b, "*")) {
			ret = FTR_FIELD_ABSENT;
			continue;
		}
		m = strlen(shift);
		if (!strncmp(b, shift, m) && b[m] == ' ')
			return b[m + 1] == 'N' ? FTR_FIELD_NONSTRICT :
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

/*
 * How a capability matched on the CPU's identity is resolved, in
 * --list-caps: the identity register's name, lower case, to its first
 * '_' ("MIDR_EL1": "midr").
 */
static const char *id_label(void)
{
	static char label[32];
	const char *r = arch_word(WORD_ID_REG, 0);
	size_t i;

	for (i = 0; r && r[i] && r[i] != '_' && i < sizeof(label) - 1; i++)
		label[i] = (char)tolower((unsigned char)r[i]);
	label[i] = '\0';
	return label;
}

void caps_resolve(struct graph *g)
{
	struct cap_table *t = &g->caps;
	size_t i;

	t->unresolved = 0;
	for (i = 0; i < t->nr; i++) {
		struct cap *c = &t->caps[i];
		const struct reg_def *r = NULL;
		const char *name;
		bool indirect = false;
		int fn = -1;
		size_t j;

		if (c->reg) {
			r = reg_lookup(c->reg);
			c->reads = c->reg;
			c->trap = r ? r->trap : idreg_trap(c->reg);
			c->how = arch_word(WORD_CAP_REG, 0);
			continue;
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
			c->how = arch_word(WORD_CAP_MATCHES, 0);
		} else if (c->midr && arch_word(WORD_ID_REG, 0)) {
			/* Matched on the CPU's identity: that register. */
			c->reads = arch_word(WORD_ID_REG, 0);
			r = reg_lookup(c->reads);
			c->trap = r ? r->trap : TRAP_NONE;
			c->how = id_label();
		} else if (fn >= 0 && !indirect) {
			/* matches() and all it calls read no ID register. */
			c->how = "none";
		} else {
			t->unresolved++;
		}
	}
}

int caps_print(FILE *out, const struct cap_table *t)
{
	size_t i;

	const struct arch *a = arch_current();
	const char *ftr = "sanitised registers";

	/* The tree's table of them, as the architecture names it. */
	for (i = 0; i < a->nr_tables; i++)
		if (a->tables[i].kind == TABLE_FTR_REGS)
			ftr = a->tables[i].global;
	fprintf(out, "# %s[] (%zu):", ftr, t->nr_ftr);
	for (i = 0; i < t->nr_ftr; i++)
		fprintf(out, " %s", t->ftr_regs[i]);
	fputc('\n', out);
	fprintf(out, "# capability\tscope\tmatches\treads\tfield\tmin\ttrap\t"
		"sanitised\thow\tsource\n");
	for (i = 0; i < t->nr; i++) {
		const struct cap *c = &t->caps[i];

		fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s:%u\n",
			c->name, cap_scope_name(c->scope),
			c->matches ? c->matches : "-",
			c->reads ? c->reads : "?", c->field ? c->field : "-",
			c->min ? c->min : "-", trap_class_name(c->trap),
			caps_is_sanitised(t, c->reads) ? "yes" : "no",
			c->how ? c->how : "unresolved", c->file, c->line);
	}
	fflush(out);
	return ferror(out) ? -1 : 0;
}

bool caps_per_cpu_only(const struct cap *cap)
{
	return (cap->scope & CAP_SCOPE_LOCAL_CPU) &&
	       !(cap->scope & CAP_SCOPE_SYSTEM);
}
