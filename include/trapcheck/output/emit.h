/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Emitters: the same findings and summary as gcc-style text or JSON.
 */
#ifndef TRAPCHECK_EMIT_H
#define TRAPCHECK_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/output/baseline.h"
#include "trapcheck/rules/rules.h"

struct rule_switches;

/*
 * The run's summary: what each stage counted, gathered for the emitters
 * (every member may be NULL: that stage did not run). The stages own
 * their counts; this only points at them.
 */
struct summary {
	const struct tu_stats *tus;		/* the pipeline's */
	const struct graph_stats *graph;	/* the graph's */
	const struct rules_stats *rules;	/* the rules' */
	const struct tables_stats *tables;	/* the architecture's */
	const struct baseline_stats *baseline;	/* baseline and waivers */
};

struct emit_opts {
	bool verbose;		/* text: one note per chain step */
	/*
	 * text: a finding of a rule these switches make an error is
	 * printed "error:", as sparse prints its warnings under -Werror
	 * (trapcheck check); NULL: every finding "warning:".
	 */
	const struct rule_switches *errors;
};

/* Return 0, or -EIO when the stream could not be written. */
int emit_text(FILE *out, const struct findings *fs,
	      const struct emit_opts *o);
/* Sites of low confidence (@low, may be NULL): "low_confidence". */
int emit_json(FILE *out, const struct findings *fs,
	      const struct findings *low, const struct summary *sum);
/*
 * SARIF 2.1.0: each root set's chain as a codeFlow; paths relative to
 * @root. Findings on a KVM host, and @low's, at level "note".
 */
int emit_sarif(FILE *out, const struct findings *fs,
	       const struct findings *low, const struct summary *sum,
	       const char *root);
/*
 * The same, with @more_rules appended to the rules and @more_results to
 * the results (may be NULL; not stolen): trapcheck trace's missed sites.
 * Each of @more_results names its rule by "ruleId"; its "ruleIndex" is
 * set here.
 */
int emit_sarif_more(FILE *out, const struct findings *fs,
		    const struct findings *low, const struct summary *sum,
		    const char *root, json_t *more_rules, json_t *more_results);
/*
 * A GitLab code quality report (Code Climate issues): a warning is
 * "major" ("minor" on a KVM host: nested), a site of @low "info".
 */
int emit_codequality(FILE *out, const struct findings *fs,
		     const struct findings *low);
/* Sites of low confidence, one note line each. */
void emit_low(FILE *out, const struct findings *low);

/* TUs with errors and the totals, for a human, on @diag (stderr). */
void emit_summary(FILE *diag, const struct summary *sum,
		  size_t nr_findings);

#endif /* TRAPCHECK_EMIT_H */
