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

static void fill_chain(const struct graph *g, const struct reach *r,
		       const struct gsink *s, struct finding *f)
{
	int *edges;
	size_t n = reach_chain(g, r, s->func, &edges), i;

	f->chain_len = n + 1;
	f->chain = xcalloc(n + 1, sizeof(*f->chain));
	for (i = 0; i < n; i++) {
		const struct gedge *e = &g->edges[edges[i]];

		f->chain[i].function = g->nodes[e->caller].name;
		f->chain[i].file = e->file;
		f->chain[i].line = e->line;
		f->chain[i].col = e->col;
		f->chain[i + 1].via = e->via;
	}
	f->chain[n].function = g->nodes[s->func].name;
	f->chain[n].file = s->file;
	f->chain[n].line = s->line;
	f->chain[n].col = s->col;
	free(edges);
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
				fill_chain(g, &reach[j], s, f);
			}
			free(proto.message);
		}
	}
	for (j = 0; j < roots->nr; j++)
		reach_free(&reach[j]);
	free(reach);
	findings_sort(out);
}
