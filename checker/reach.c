// SPDX-License-Identifier: GPL-2.0
/*
 * reach.c - multi-source breadth-first search over the call graph.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/reach.h"

static int key_cmp(const void *a, const void *b, void *g)
{
	const struct graph *gr = g;

	return strcmp(gr->nodes[*(const int *)a].key,
		      gr->nodes[*(const int *)b].key);
}

void reach_compute(const struct graph *g, const struct root_set *set,
		   bool steady, struct reach *r)
{
	int *queue = xmalloc((g->nr_nodes + 1) * sizeof(*queue));
	size_t head = 0, tail = 0, i;

	r->set = set;
	r->steady = steady;
	r->parent = xmalloc((g->nr_nodes + 1) * sizeof(*r->parent));
	r->depth = xcalloc(g->nr_nodes + 1, sizeof(*r->depth));
	r->nr_roots = 0;
	for (i = 0; i < g->nr_nodes; i++)
		r->parent[i] = REACH_NONE;

	/* Roots: every defined function of a listed name, in key order. */
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *n = &g->nodes[i];
		size_t j;

		if (!n->defined || n->opaque || n->cold)
			continue;
		for (j = 0; j < set->nr; j++) {
			if (!strcmp(n->name, set->funcs[j])) {
				queue[tail++] = (int)i;
				r->parent[i] = REACH_ROOT;
				break;
			}
		}
	}
	r->nr_roots = tail;
	sort_r(queue, tail, sizeof(*queue), key_cmp, (void *)g);

	while (head < tail) {
		int u = queue[head++];
		const struct gnode *n = &g->nodes[u];

		for (i = 0; i < n->nr_out; i++) {
			const struct gedge *e = &g->edges[n->out[i]];
			int v = e->callee;

			/* Opaque sinks are reported at the call, not entered. */
			if (r->parent[v] != REACH_NONE || g->nodes[v].opaque ||
			    g->nodes[v].cold || (steady && e->boot))
				continue;
			r->parent[v] = n->out[i];
			r->depth[v] = r->depth[u] + 1;
			queue[tail++] = v;
		}
	}
	free(queue);
}

void reach_free(struct reach *r)
{
	free(r->parent);
	free(r->depth);
	memset(r, 0, sizeof(*r));
}

size_t reach_chain(const struct graph *g, const struct reach *r, int node,
		   int **edges)
{
	size_t n = r->depth[node], i = n;
	int *out = xmalloc((n + 1) * sizeof(*out));
	int v = node;

	while (i > 0) {
		int e = r->parent[v];

		out[--i] = e;
		v = g->edges[e].caller;
	}
	*edges = out;
	return n;
}
