// SPDX-License-Identifier: GPL-2.0
/*
 * rules.c - the rule table and the engine that ties sites to roots.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/reach.h"
#include "trapcheck/rules.h"
#include "trapcheck/util.h"

const struct rule rule_table[] = {
	{ "trapping-idreg-read",
	  "a trapping ID register read on a hot path",
	  rule_trapping_idreg_read },
	{ "local-cap-check",
	  "a local-CPU capability check on a hot path",
	  rule_local_cap_check },
	{ "slow-entropy",
	  "a slow entropy instruction on a hot path",
	  rule_slow_entropy },
};
const size_t rule_table_size = ARRAY_SIZE(rule_table);

/* Steps for @n edges from a root, then the sink site in @func. */
static void build_chain(const struct graph *g, const int *edges, size_t n,
			const struct gsink *s, struct chain *c)
{
	size_t i;

	c->len = n + 1;
	c->steps = xcalloc(n + 1, sizeof(*c->steps));
	for (i = 0; i < n; i++) {
		const struct gedge *e = &g->edges[edges[i]];

		c->steps[i].function = g->nodes[e->caller].name;
		c->steps[i].file = e->file;
		c->steps[i].line = e->line;
		c->steps[i].col = e->col;
		c->steps[i + 1].via = e->via;
	}
	c->steps[n].function = g->nodes[s->func].name;
	c->steps[n].file = s->file;
	c->steps[n].line = s->line;
	c->steps[n].col = s->col;
}

static void fill_chains(const struct graph *g, const struct reach *r,
			const struct gsink *s, struct finding *f)
{
	const struct gnode *fn = &g->nodes[s->func];
	int *edges;
	size_t n = reach_chain(g, r, s->func, &edges), i;

	build_chain(g, edges, n, s, &f->chain);
	free(edges);

	/*
	 * The sink's function may be entered from several hot callers
	 * (cpu_has_hw_af() as arch_has_hw_pte_young() and as
	 * arch_wants_old_prefaulted_pte()): one chain through each.
	 */
	for (i = 0; i < fn->nr_in && f->nr_others < FINDING_MAX_OTHER_CHAINS;
	     i++) {
		int e = fn->in[i], caller = g->edges[e].caller;

		if (e == r->parent[s->func] || !reach_has(r, caller) ||
		    g->nodes[caller].opaque)
			continue;
		n = reach_chain(g, r, caller, &edges);
		edges = xrealloc(edges, (n + 1) * sizeof(*edges));
		edges[n] = e;
		f->others = xrealloc(f->others, (f->nr_others + 1) *
				     sizeof(*f->others));
		build_chain(g, edges, n + 1, s, &f->others[f->nr_others++]);
		free(edges);
	}
}

void rules_run(const struct graph *g, const struct root_sets *roots,
	       struct findings *out)
{
	struct reach *reach = xcalloc(roots->nr + 1, sizeof(*reach));
	size_t i, j, k;

	for (j = 0; j < roots->nr; j++)
		reach_compute(g, &roots->sets[j], &reach[j]);

	for (i = 0; i < g->nr_sinks; i++) {
		const struct gsink *s = &g->sinks[i];
		struct rule_ctx ctx = {
			.graph = g,
			.site = s,
			.def = &sink_table[s->sink],
			.func = &g->nodes[s->func],
		};

		for (k = 0; k < rule_table_size; k++) {
			struct finding proto = { 0 };

			if (!rule_table[k].check(&ctx, &proto))
				continue;
			for (j = 0; j < roots->nr; j++) {
				struct finding *f;

				if (!reach_has(&reach[j], s->func))
					continue;
				f = PUSH(out->v, out->nr, out->alloc);
				*f = proto;
				f->message = xstrdup(proto.message);
				f->rule = rule_table[k].id;
				f->file = s->file;
				f->line = s->line;
				f->col = s->col;
				f->function = ctx.func->name;
				f->sink = ctx.def->name;
				f->root = roots->sets[j].name;
				fill_chains(g, &reach[j], s, f);
			}
			free(proto.message);
		}
	}
	for (j = 0; j < roots->nr; j++)
		reach_free(&reach[j]);
	free(reach);
	findings_sort(out);
}
