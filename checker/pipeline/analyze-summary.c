// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-summary.c - what every run ends with, from a compile database
 * or from facts databases: the rules over the linked graph and the
 * summary of what was analysed (analyze-internal.h); freeing an analysis.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/graph/regroots.h"
#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/input/kconfig.h"
#include "trapcheck/rules/rules.h"

#include "analyze-internal.h"

void summary_tables(const struct cap_table *t,
			     struct run_summary *s)
{
	size_t i, j;

	s->have_caps = t->have_caps;
	s->have_ftr = t->have_ftr;
	s->caps = t->nr;
	s->ftr_regs = t->nr_ftr;
	for (i = 0; i < t->nr; i++) {
		bool dup = false;

		if (t->caps[i].how)
			continue;
		for (j = 0; j < s->nr_unresolved; j++)
			dup |= !strcmp(s->unresolved_caps[j], t->caps[i].name);
		if (!dup)
			*PUSH(s->unresolved_caps, s->nr_unresolved,
			      s->alloc_unresolved) = t->caps[i].name;
	}
	for (i = 0; i < t->nr_ftr; i++)
		if (!reg_lookup(t->ftr_regs[i]))
			*PUSH(s->unknown_regs, s->nr_unknown_regs,
			      s->alloc_unknown_regs) = t->ftr_regs[i];
}

/* A TU with errors, or not analysed: @file and @first_error are taken. */
void summary_add_problem(struct run_summary *s, char *file,
			unsigned int nr_errors, char *first_error,
			int parse_error)
{
	struct tu_problem *pr = PUSH(s->problems, s->nr_problems,
				     s->alloc_problems);

	pr->file = file;
	pr->nr_errors = nr_errors;
	pr->first_error = first_error;
	pr->parse_error = parse_error;
}

/* What the summary says of the linked graph. */
void summary_graph(struct run_summary *s, const struct graph *g)
{
	size_t i;

	summary_tables(&g->caps, s);
	for (i = 0; i < g->nr_edges; i++)
		s->rate_limited += g->edges[i].periodic;
	for (i = 0; i < g->nr_sinks; i++)
		s->rate_limited += g->sinks[i].periodic;
	s->masked_across = g->region_sites;
	s->ruled_out = g->ruled_out;
	s->features = g->features;

	s->inferred = g->inferred_edges;
	s->dispatch = &g->dispatch;
	s->pruned = g->pruned;
	s->nr_pruned = g->nr_pruned;
	s->max_targets = g->max_targets;
	s->functions = g->nr_nodes;
	s->edges = g->nr_edges;
	s->sinks = g->nr_sinks;
}

/* The rules over the linked graph, and what the summary says of them. */
void analysis_rules(struct analysis *a, const struct analysis_opts *o,
		      const struct root_sets *roots)
{
	struct rules_opts ro = { o->per_root, o->all_chains, o->outer_any };
	struct rules_stats st = { 0 };

	regroots_find(&a->graph, roots);
	rules_run(&a->graph, roots, &ro, &a->findings, &a->low, &st);
	a->summary.stopped = st.stopped;
	a->summary.args_refuted = st.args_refuted;
	memcpy(a->summary.refuted_ex, st.refuted_ex,
	       sizeof(a->summary.refuted_ex));
	a->summary.nr_refuted_ex = st.args_refuted < RULES_REFUTED_EXAMPLES ?
				   st.args_refuted : RULES_REFUTED_EXAMPLES;
	a->summary.low = a->low.nr;
}

void analysis_graph_start(struct analysis *a, const struct analysis_opts *o)
{
	graph_init(&a->graph);
	if (o->max_targets)
		a->graph.max_targets = o->max_targets;
}

void analysis_free(struct analysis *a)
{
	size_t i;

	findings_free(&a->findings);
	findings_free(&a->low);
	run_summary_free(&a->summary);
	graph_free(&a->graph);
	free(a->root);
	for (i = 0; i < a->nr_configs; i++) {
		if (a->parts)
			analysis_free(&a->parts[i]);
		free(a->configs[i]);
	}
	free(a->parts);
	free(a->configs);
	for (i = 0; i < a->nr_earlier; i++)
		analysis_free(&a->earlier[i]);
	free(a->earlier);
}
