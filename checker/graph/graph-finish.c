// SPDX-License-Identifier: GPL-2.0
/*
 * graph-finish.c - the graph once every TU is merged (graph.c): calls
 * through struct members resolved (ops tables, then registrations:
 * graph-dispatch.c), interrupts masked across calls (graph-regions.c),
 * cold functions marked, and everything sorted so that every walk is
 * the same for any -j.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/dispatch.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/model/sinks.h"

static int edge_order(const void *a, const void *b, void *graph)
{
	const struct graph *g = graph;
	const struct gedge *x = &g->edges[*(const int *)a];
	const struct gedge *y = &g->edges[*(const int *)b];
	int c = site_cmp(x->file, x->line, x->col, y->file, y->line, y->col);

	if (c)
		return c;
	c = strcmp(g->nodes[x->callee].key, g->nodes[y->callee].key);
	if (c)
		return c;
	return strcmp(g->nodes[x->caller].key, g->nodes[y->caller].key);
}

static int sink_order(const void *a, const void *b)
{
	const struct gsink *x = a, *y = b;
	int c = site_cmp(x->file, x->line, x->col, y->file, y->line, y->col);

	if (c)
		return c;
	return x->sink - y->sink;
}

/*
 * Each sink's ordinal among its function's sites of the same sink and
 * argument (g->sinks is in source order by now).
 */
static void number_sinks(struct graph *g)
{
	unsigned int *count = xcalloc(g->nr_sinks + 1, sizeof(*count));
	struct strmap seen;
	size_t i;

	strmap_init(&seen);
	for (i = 0; i < g->nr_sinks; i++) {
		struct gsink *s = &g->sinks[i];
		char *k = xasprintf("%d:%d:%s", s->func, s->sink,
				    s->arg ? s->arg : "");
		int n = strmap_put(&seen, k, (int)i);

		s->ordinal = ++count[n];
		free(k);
	}
	strmap_free(&seen);
	free(count);
}

/* Cold by name: the oops and task-death paths (checker/model/cold.def). */
static const char *const cold_functions[] = {
#define COLD_FN(name) name,
#include "model/cold.def"
};

/* ... and the architecture's own (its cold.def). */
static bool cold_by_name(const char *name)
{
	const struct arch *a = arch_current();

	return str_in(name, cold_functions, ARRAY_SIZE(cold_functions)) ||
	       str_in(name, a->cold_fns, a->nr_cold_fns);
}

static int assign_order(const void *a, const void *b, void *graph)
{
	const struct graph *g = graph;
	const struct gassign *x = a, *y = b;
	int c = strcmp(x->member, y->member);

	return c ? c : strcmp(g->nodes[x->fn].key, g->nodes[y->fn].key);
}

/*
 * A member set from another holds each of its functions (struct gcopy):
 * "static_call(kvm_x86_run)" those of "kvm_x86_ops.run", wherever stored.
 * One step: a copy of a copy is not followed.
 */
static void expand_copies(struct graph *g)
{
	size_t nr = g->nr_assigns, i, j;

	for (i = 0; i < g->nr_copies; i++) {
		const struct gcopy *c = &g->copies[i];

		for (j = 0; j < nr; j++) {
			struct gassign *a;

			if (g->assigns[j].member != c->from)
				continue;
			a = PUSH(g->assigns, g->nr_assigns, g->alloc_assigns);
			a->member = c->member;
			a->fn = g->assigns[j].fn;
			a->object = NULL;
			a->file = c->file;
			a->line = c->line;
		}
	}
}

/*
 * Calls through struct members: an inferred edge to every function stored
 * in that member anywhere (ops tables, assignments), unless the member has
 * more than max_targets of them (then it is pruned, and said so).
 */
static void resolve_icalls(struct graph *g)
{
	size_t i, lo, hi, j;

	expand_copies(g);
	sort_r(g->assigns, g->nr_assigns, sizeof(*g->assigns), assign_order,
		g);
	for (i = 0; i < g->nr_icalls; i++) {
		const struct gicall *ic = &g->icalls[i];
		/* static_call(NAME) (extract-body.c, staticcall.def) */
		bool sc = !strncmp(ic->member, "static_call(", 12);
		size_t targets = 0;

		/*
		 * Filled by registration: resolved per list head instead;
		 * a control block's member on an object that can be named:
		 * per object (dispatch.c).
		 */
		if (dispatch_member(ic->member) ||
		    (ic->object && dispatch_ctl_member(ic->member)))
			continue;

		/* The run of assignments of this member (sorted). */
		lo = 0;
		hi = g->nr_assigns;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(g->assigns[mid].member, ic->member) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < g->nr_assigns &&
		     g->assigns[j].member == ic->member; j++)
			if (j == lo || g->assigns[j].fn != g->assigns[j - 1].fn)
				targets++;
		if (!targets) {
			if (sc)
				g->dispatch.static_no_target++;
			else
				g->dispatch.no_target++;
			continue;
		}
		if (targets > g->max_targets) {
			size_t p;
			bool seen = false;

			for (p = 0; p < g->nr_pruned; p++)
				seen |= g->pruned[p].member == ic->member;
			if (!seen) {
				struct pruned *pr = PUSH(g->pruned,
							 g->nr_pruned,
							 g->alloc_pruned);

				pr->member = ic->member;
				pr->targets = targets;
			}
			continue;
		}
		if (sc)
			g->dispatch.by_static++;
		else
			g->dispatch.by_table++;
		for (j = lo; j < g->nr_assigns &&
		     g->assigns[j].member == ic->member; j++) {
			struct tu_call c = {
				.file = (char *)ic->file, .line = ic->line,
				.col = ic->col, .via = (char *)ic->member,
				.guards = (char *)ic->guards, .loop = ic->loop,
				.loop_guess = ic->loop_guess,
				.consts = (char *)ic->consts,
			};
			size_t before = g->nr_edges;

			graph_add_edge(g, ic->caller, g->assigns[j].fn, &c,
				       true);
			g->inferred_edges += g->nr_edges - before;
		}
	}
}

/*
 * The sites a feature test the machine fails guards (g->features): their
 * edges are not walked, their sinks are gone (after numbering, so that
 * the others keep their fingerprints).
 */
static void rule_out(struct graph *g)
{
	size_t i, k = 0;

	g->ruled_out = 0;
	for (i = 0; i < g->nr_edges; i++) {
		struct gedge *e = &g->edges[i];

		/* The kept site decides when every site is tested. */
		e->ruled_out = e->feature_only &&
			       cond_features_rule_out(e->guards, g->features);
		g->ruled_out += e->ruled_out;
	}
	for (i = 0; i < g->nr_sinks; i++) {
		if (cond_features_rule_out(g->sinks[i].guards, g->features)) {
			g->ruled_out++;
			continue;
		}
		g->sinks[k++] = g->sinks[i];
	}
	g->nr_sinks = k;
}

void graph_finish(struct graph *g)
{
	size_t i, k = 0;

	resolve_icalls(g);
	graph_dispatch(g);
	g->region_sites = graph_infer_regions(g);
	for (i = 0; i < g->nr_nodes; i++)
		if (cold_by_name(g->nodes[i].name))
			g->nodes[i].cold = true;

	for (i = 0; i < g->nr_edges; i++)
		g->nodes[g->edges[i].callee].nr_in++;
	for (i = 0; i < g->nr_nodes; i++) {
		g->nodes[i].in = xmalloc((g->nodes[i].nr_in + 1) * sizeof(int));
		g->nodes[i].nr_in = 0;
	}
	for (i = 0; i < g->nr_edges; i++) {
		struct gnode *n = &g->nodes[g->edges[i].callee];

		n->in[n->nr_in++] = (int)i;
	}
	for (i = 0; i < g->nr_nodes; i++) {
		sort_r(g->nodes[i].out, g->nodes[i].nr_out, sizeof(int),
			edge_order, g);
		sort_r(g->nodes[i].in, g->nodes[i].nr_in, sizeof(int),
			edge_order, g);
	}

	sort_n(g->sinks, g->nr_sinks, sizeof(*g->sinks), sink_order);
	/* A header's sink is seen once; a .c listed twice would repeat. */
	for (i = 0; i < g->nr_sinks; i++) {
		if (k && !sink_order(&g->sinks[k - 1], &g->sinks[i]))
			continue;
		g->sinks[k++] = g->sinks[i];
	}
	g->nr_sinks = k;
	number_sinks(g);
	rule_out(g);
	g->finished = true;
	/* The architecture's tables, resolved against the whole graph. */
	if (arch_current()->tables_load)
		g->arch_tables = arch_current()->tables_load(g);
}
