// SPDX-License-Identifier: GPL-2.0
/*
 * graph.c - merge per-TU facts into one call graph.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/dispatch.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/model/sinks.h"

void graph_init(struct graph *g)
{
	memset(g, 0, sizeof(*g));
	strpool_init(&g->pool);
	strmap_init(&g->node_index);
	strmap_init(&g->guard_class);
	strmap_init(&g->row_index);
	g->pairs_mask = 1023;
	g->max_targets = GRAPH_MAX_TARGETS;
	g->pairs = xcalloc(g->pairs_mask + 1, sizeof(*g->pairs));
}

void graph_stats(const struct graph *g, struct graph_stats *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < g->nr_edges; i++)
		s->rate_limited += g->edges[i].periodic;
	for (i = 0; i < g->nr_sinks; i++)
		s->rate_limited += g->sinks[i].periodic;
	s->masked_across = g->region_sites;
	s->ruled_out = g->ruled_out;
	s->features = g->features;
	s->inferred = g->inferred_edges;
	s->have_dispatch = true;
	s->dispatch = g->dispatch;
	s->pruned = g->pruned;
	s->nr_pruned = g->nr_pruned;
	s->max_targets = g->max_targets;
	s->functions = g->nr_nodes;
	s->edges = g->nr_edges;
	s->sinks = g->nr_sinks;
}

void graph_free(struct graph *g)
{
	size_t i;

	for (i = 0; i < g->nr_nodes; i++) {
		free(g->nodes[i].out);
		free(g->nodes[i].in);
	}
	free(g->nodes);
	free(g->edges);
	free(g->sinks);
	free(g->rows);
	strmap_free(&g->row_index);
	if (g->arch_tables)
		arch_current()->tables_free(g->arch_tables);
	free(g->icalls);
	free(g->assigns);
	free(g->copies);
	free(g->regroots);
	free(g->argsites);
	free(g->pruned);
	free(g->pairs);
	strmap_free(&g->node_index);
	strmap_free(&g->guard_class);
	strpool_free(&g->pool);
	memset(g, 0, sizeof(*g));
}

static const char *intern(struct graph *g, const char *s)
{
	return s ? strpool_intern(&g->pool, s) : NULL;
}

/* The site of a graph record from its fact's, its strings interned. */
#define INTERN_SITE(g, to, from) do {					\
	SITE_COPY(to, from);						\
	(to)->file = intern(g, (to)->file);				\
	(to)->guards = intern(g, (to)->guards);				\
} while (0)

/* The same for a new record: no loop count (0) is one pass. */
#define MERGE_SITE(g, to, from) do {					\
	INTERN_SITE(g, to, from);					\
	if (!(to)->loop)						\
		(to)->loop = 1;						\
} while (0)

int graph_find(const struct graph *g, const char *key)
{
	return strmap_get(&g->node_index, key);
}

size_t graph_find_name(const struct graph *g, const char *name, int *out,
		       size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i].name, name) && n < max)
			out[n++] = (int)i;
	return n;
}

static int node_get(struct graph *g, const char *key, const char *name,
		    const char *file, unsigned int line, unsigned int col,
		    bool is_static)
{
	int idx = strmap_get(&g->node_index, key);
	struct gnode *n;

	if (idx >= 0)
		return idx;
	idx = strmap_put(&g->node_index, key, (int)g->nr_nodes);
	n = PUSH(g->nodes, g->nr_nodes, g->alloc_nodes);
	memset(n, 0, sizeof(*n));
	n->key = intern(g, key);
	n->name = intern(g, name);
	n->file = intern(g, file);
	n->line = line;
	n->col = col;
	n->is_static = is_static;
	n->opaque = sink_is_opaque(name);
	return idx;
}

static struct edge_slot *pair_slot(struct graph *g, uint64_t pair)
{
	size_t i = hash_mix(pair, 0) & g->pairs_mask;

	while (g->pairs[i].pair && g->pairs[i].pair != pair)
		i = (i + 1) & g->pairs_mask;
	return &g->pairs[i];
}

static void pairs_grow(struct graph *g)
{
	struct edge_slot *old = g->pairs;
	size_t n = g->pairs_mask + 1, i;

	g->pairs_mask = n * 2 - 1;
	g->pairs = xcalloc(n * 2, sizeof(*g->pairs));
	for (i = 0; i < n; i++)
		if (old[i].pair)
			*pair_slot(g, old[i].pair) = old[i];
	free(old);
}

/* Is call site @c a better site for edge @e than its own? */
static bool better_site(const struct gedge *e, bool inferred, bool periodic,
			bool boot, bool rare, const struct tu_call *c)
{
	if (e->inferred != inferred)
		return e->inferred;
	if (e->periodic != periodic)
		return e->periodic;
	if (e->boot != boot)
		return e->boot;
	if (e->rare != rare)
		return e->rare;
	return site_cmp(c->file, c->line, c->col, e->file, e->line,
			e->col) < 0;
}

/* At most this many different variants of constants per edge. */
#define EDGE_CONSTS_MAX 8

/* Is @v one of the '|'-separated variants of @have? *@n: how many. */
static bool has_variant(const char *have, const char *v, size_t *n)
{
	const char *p = have;
	size_t len = strlen(v);
	bool found = false;

	for (*n = 1;; (*n)++) {
		const char *end = strchr(p, '|');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		found |= l == len && !strncmp(p, v, len);
		if (!end)
			return found;
		p = end + 1;
	}
}

/*
 * Edge @e's constants with those of one more site, @add: a new variant
 * when it differs from all (past EDGE_CONSTS_MAX, the unknown one, "",
 * once).
 */
static void merge_consts(struct graph *g, struct gedge *e, const char *add)
{
	const char *have = e->consts ? e->consts : "";
	char *joined;
	size_t n;

	if (has_variant(have, add, &n))
		return;
	if (n >= EDGE_CONSTS_MAX) {
		add = "";
		if (has_variant(have, add, &n))
			return;
	}
	joined = xasprintf("%s|%s", have, add);
	e->consts = intern(g, joined);
	free(joined);
}

enum { RATE_BOOT = 1, RATE_PERIODIC = 2, RATE_RARE = 4, RATE_FEATURE = 8 };

/*
 * What @guards say of a site's rate, classified once per distinct text
 * (a whole kernel has a million call sites and some thousands of texts).
 */
static int guard_bits(struct graph *g, const char *guards)
{
	int bits;

	if (!guards || !*guards)
		return 0;
	bits = strmap_get(&g->guard_class, guards);
	if (bits >= 0)
		return bits;
	bits = (guards_boot(guards) ? RATE_BOOT : 0) |
	       (guards_periodic(guards) ? RATE_PERIODIC : 0) |
	       (cond_rare(guards, NULL) ? RATE_RARE : 0) |
	       (cond_has_feature(guards) ? RATE_FEATURE : 0);
	return strmap_put(&g->guard_class, guards, bits);
}

int graph_add_edge(struct graph *g, int caller, int callee,
		   const struct tu_call *c, bool inferred)
{
	/* +1 keeps pair 0 free as the empty marker. */
	uint64_t pair = ((uint64_t)caller << 32 | (uint32_t)callee) + 1;
	struct edge_slot *s = pair_slot(g, pair);
	struct gedge *e;
	struct gnode *n;
	int bits;

	if (s->pair) {
		int cls = guard_bits(g, c->guards);
		bool boot = cls & RATE_BOOT;
		bool periodic = cls & RATE_PERIODIC;
		bool rare = cls & RATE_RARE;

		e = &g->edges[s->edge];
		/* --features may rule the pair out only if every site is tested. */
		e->feature_only &= !!(cls & RATE_FEATURE);
		/*
		 * One edge per pair: a direct call beats one inferred
		 * through a member; then a site that is not rate-limited
		 * beats one that is; then a steady site beats a boot one;
		 * then a common site beats a rare one; then source order.
		 */
		if (better_site(e, inferred, periodic, boot, rare, c)) {
			e->inferred = inferred;
			INTERN_SITE(g, e, c);
			e->via = intern(g, c->via);
			e->boot = boot;
			e->periodic = periodic;
			e->rare = rare;
		}
		merge_consts(g, e, c->consts ? c->consts : "");
		return s->edge;
	}
	s->pair = pair;
	s->edge = (int)g->nr_edges;
	e = PUSH(g->edges, g->nr_edges, g->alloc_edges);
	e->caller = caller;
	e->callee = callee;
	MERGE_SITE(g, e, c);
	e->via = intern(g, c->via);
	bits = guard_bits(g, c->guards);
	e->boot = bits & RATE_BOOT;
	e->periodic = bits & RATE_PERIODIC;
	e->rare = bits & RATE_RARE;
	e->inferred = inferred;
	e->registered = false;
	e->ruled_out = false;
	e->feature_only = bits & RATE_FEATURE;
	e->consts = intern(g, c->consts);
	n = &g->nodes[caller];
	*PUSH(n->out, n->nr_out, n->alloc_out) = s->edge;
	if ((g->nr_edges + 1) * 2 > g->pairs_mask)
		pairs_grow(g);
	return (int)g->nr_edges - 1;
}

void graph_reserve(struct graph *g, size_t nodes, size_t edges)
{
	strmap_reserve(&g->node_index, nodes);
	while ((edges + 1) * 2 > g->pairs_mask)
		pairs_grow(g);
}

int graph_index_edge(struct graph *g, int e)
{
	const struct gedge *ed = &g->edges[e];
	uint64_t pair = ((uint64_t)ed->caller << 32 | (uint32_t)ed->callee) + 1;
	struct edge_slot *s = pair_slot(g, pair);
	struct gnode *n = &g->nodes[ed->caller];

	if (s->pair)
		return -EEXIST;
	s->pair = pair;
	s->edge = e;
	*PUSH(n->out, n->nr_out, n->alloc_out) = e;
	if ((size_t)(e + 2) * 2 > g->pairs_mask)
		pairs_grow(g);
	return 0;
}

/* Add row @r, its strings interned, unless the graph has it. */
void graph_add_row(struct graph *g, const struct grow *r)
{
	struct grow x = {
		.kind = r->kind, .table = intern(g, r->table),
		.key = intern(g, r->key), .num = r->num, .flag = r->flag,
		.file = intern(g, r->file), .line = r->line,
	};
	char *key;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(x.v); i++)
		x.v[i] = intern(g, r->v[i]);
	/* Interned: the same strings are the same pointers. */
	key = xasprintf("%u %p %p %p %p %p %p %p %u %d %p %u", x.kind,
			(void *)x.table, (void *)x.key, (void *)x.v[0],
			(void *)x.v[1], (void *)x.v[2], (void *)x.v[3],
			(void *)x.v[4], x.num, x.flag, (void *)x.file,
			x.line);
	if (strmap_get(&g->row_index, key) < 0) {
		strmap_put(&g->row_index, key, (int)g->nr_rows);
		*PUSH(g->rows, g->nr_rows, g->alloc_rows) = x;
	}
	free(key);
}

static void merge_tables(struct graph *g, const struct tu_facts *f)
{
	size_t i;

	g->tables_seen |= f->tables_seen;
	for (i = 0; i < f->nr_rows; i++) {
		const struct tu_row *t = &f->rows[i];
		struct grow r = {
			.kind = t->kind, .table = t->table, .key = t->key,
			.v = { t->v1, t->v2, t->v3, t->v4, t->v5 },
			.num = t->num, .flag = t->flag, .file = t->file,
			.line = t->line,
		};

		graph_add_row(g, &r);
	}
}

/* The sink @k of the TU's function @func. */
static void merge_sink(struct graph *g, const struct tu_sink *k, int func)
{
	struct gsink *s = PUSH(g->sinks, g->nr_sinks, g->alloc_sinks);
	int bits = guard_bits(g, k->guards);

	s->func = func;
	s->sink = k->sink;
	s->arg = intern(g, k->arg);
	s->mask = intern(g, k->mask);
	s->feature = intern(g, k->feature);
	s->fields = intern(g, k->fields);
	MERGE_SITE(g, s, k);
	s->boot = bits & RATE_BOOT;
	s->periodic = bits & RATE_PERIODIC;
	s->rare = bits & RATE_RARE;
}

/* The call through a member @ic in the TU's function @caller. */
static void merge_icall(struct graph *g, const struct tu_icall *ic,
			int caller)
{
	struct gicall *c = PUSH(g->icalls, g->nr_icalls, g->alloc_icalls);

	c->caller = caller;
	c->member = intern(g, ic->member);
	c->object = intern(g, ic->object);
	c->consts = intern(g, ic->consts);
	MERGE_SITE(g, c, ic);
}

void graph_merge(struct graph *g, const struct tu_facts *f)
{
	int *map = xmalloc((f->nr_funcs + 1) * sizeof(*map));
	bool *dup = xcalloc(f->nr_funcs + 1, sizeof(*dup));
	size_t i;

	for (i = 0; i < f->nr_funcs; i++) {
		const struct tu_func *fn = &f->funcs[i];
		int idx = node_get(g, fn->key, fn->name, fn->file, fn->line,
				   fn->col, fn->is_static);
		struct gnode *n = &g->nodes[idx];

		/*
		 * A header function another TU brought already (parser
		 * processes claim headers each for themselves): the first
		 * body wins, as claims do within one process.
		 */
		dup[i] = n->defined && fn->file && f->file &&
			 strcmp(fn->file, f->file);
		if (!n->defined) {
			/* A declaration seen first: now the definition. */
			n->defined = true;
			n->is_static = fn->is_static;
			n->indirect_calls = fn->indirect_calls;
			n->cold = fn->cold;
			n->file = intern(g, fn->file);
			n->line = fn->line;
			n->col = fn->col;
			/* Regions at entry and exit (graph-regions.c). */
			n->region_in = fn->region_in;
			n->region_seen = fn->region_seen;
			n->region_out = fn->region_out;
			n->params = intern(g, fn->params);
		}
		map[i] = idx;
	}
	for (i = 0; i < f->nr_calls; i++) {
		const struct tu_call *c = &f->calls[i];
		int callee;

		/* Compiled out under this configuration (guards.h). */
		if (dup[c->caller] || guards_never(c->guards))
			continue;
		callee = node_get(g, c->callee_key, c->callee_name,
				  c->callee_file, c->callee_line, 0, false);
		graph_add_edge(g, map[c->caller], callee, c, false);
		if (c->args) {
			struct gargsite *a = PUSH(g->argsites, g->nr_argsites,
						  g->alloc_argsites);

			a->caller = map[c->caller];
			a->callee = callee;
			a->args = intern(g, c->args);
			MERGE_SITE(g, a, c);
		}
	}
	for (i = 0; i < f->nr_sinks; i++)
		if (!dup[f->sinks[i].func] && !guards_never(f->sinks[i].guards))
			merge_sink(g, &f->sinks[i], map[f->sinks[i].func]);
	for (i = 0; i < f->nr_assigns; i++) {
		const struct tu_assign *as = &f->assigns[i];
		struct gassign *a;

		if (as->from_member) {
			struct gcopy *c = PUSH(g->copies, g->nr_copies,
					       g->alloc_copies);

			c->member = intern(g, as->member);
			c->from = intern(g, as->from_member);
			c->file = intern(g, as->file);
			c->line = as->line;
			continue;
		}
		a = PUSH(g->assigns, g->nr_assigns, g->alloc_assigns);

		a->member = intern(g, as->member);
		a->object = intern(g, as->object);
		a->file = intern(g, as->file);
		a->line = as->line;
		a->fn = node_get(g, as->fn_key, as->fn_name, as->fn_file,
				 as->fn_line, 0, false);
	}
	for (i = 0; i < f->nr_icalls; i++)
		if (!dup[f->icalls[i].caller] &&
		    !guards_never(f->icalls[i].guards))
			merge_icall(g, &f->icalls[i], map[f->icalls[i].caller]);
	merge_tables(g, f);
	free(dup);
	free(map);
}
