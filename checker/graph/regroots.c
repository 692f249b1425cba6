// SPDX-License-Identifier: GPL-2.0
/*
 * regroots.c - roots from registrations (include/trapcheck/graph/
 * regroots.h).
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/base/util.h"
#include "trapcheck/graph/regroots.h"

static int by_set_node_site(const void *a, const void *b)
{
	const struct groot *x = a, *y = b;
	int c = strcmp(x->set, y->set);

	if (c)
		return c;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

void regroots_find(struct graph *g, const struct root_sets *rs)
{
	size_t i, j, k, n = 0;

	g->nr_regroots = 0;
	for (i = 0; i < rs->nr; i++) {
		const struct root_set *s = &rs->sets[i];
		const char *set = strpool_intern(&g->pool, s->name);

		for (j = 0; j < s->nr_regs; j++) {
			/* Member strings are interned: compare pointers. */
			const char *slot = strpool_intern(&g->pool,
							  s->regs[j].slot);

			for (k = 0; k < g->nr_assigns; k++) {
				const struct gassign *as = &g->assigns[k];
				const struct gnode *fn = &g->nodes[as->fn];
				struct groot *r;

				if (as->member != slot || !fn->defined ||
				    fn->cold || fn->opaque)
					continue;
				r = PUSH(g->regroots, g->nr_regroots,
					 g->alloc_regroots);
				r->set = set;
				r->node = as->fn;
				r->slot = slot;
				r->file = as->file;
				r->line = as->line;
			}
		}
	}
	/* One per set and node: the first registration. */
	sort_n(g->regroots, g->nr_regroots, sizeof(*g->regroots),
	       by_set_node_site);
	for (i = 0; i < g->nr_regroots; i++)
		if (!n || g->regroots[n - 1].set != g->regroots[i].set ||
		    g->regroots[n - 1].node != g->regroots[i].node)
			g->regroots[n++] = g->regroots[i];
	g->nr_regroots = n;
}

bool *regroots_of(const struct graph *g, const char *set)
{
	bool *on = NULL;
	size_t i;

	for (i = 0; i < g->nr_regroots; i++) {
		if (strcmp(g->regroots[i].set, set))
			continue;
		if (!on)
			on = xcalloc(g->nr_nodes + 1, sizeof(*on));
		on[g->regroots[i].node] = true;
	}
	return on;
}
