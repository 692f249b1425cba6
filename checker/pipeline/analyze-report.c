// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-report.c - a run without a compile database: the facts of one
 * or more databases linked (trapcheck report, the queries, the join of
 * shards), or of several configurations joined finding by finding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/input/kconfig.h"
#include "trapcheck/rules/rules.h"

#include "analyze-internal.h"

/*
 * Every TU the facts database @fdb holds, into the graph; a TU in @seen
 * (linked from an earlier database) is counted, not linked again.
 */
static int link_stored(struct analysis *a, struct db *fdb,
		       struct strmap *seen)
{
	struct tu_stats *s = &a->tus;
	char **tus;
	size_t n, i;
	int ret = 0;
	/* One snapshot: a run writing meanwhile is seen whole or not. */
	bool snap = !db_snapshot_begin(fdb);

	n = db_tus(fdb, &tus);
	for (i = 0; i < n; i++) {
		struct tu_facts f;

		if (strmap_get(seen, tus[i]) >= 0) {
			s->duplicates++;
			free(tus[i]);
			continue;
		}
		strmap_put(seen, tus[i], 0);
		s->entries++;
		if (!ret && !db_load(fdb, tus[i], &f)) {
			if (!f.parse_error)
				s->tus++;
			if (f.parse_error || f.nr_errors)
				facts_add_problem(s, xstrdup(tus[i]),
						  f.nr_errors, f.first_error ?
						  xstrdup(f.first_error) :
						  NULL, f.parse_error);
			if (!f.parse_error)
				graph_merge(&a->graph, &f);
			facts_free(&f);
		}
		ret = db_error(fdb, NULL, 0);
		free(tus[i]);
	}
	free(tus);
	if (snap)
		db_snapshot_end(fdb);
	return ret ? ret : db_error(fdb, NULL, 0);
}

/*
 * The facts of the databases @paths into @a's graph (a TU held by more
 * than one is linked from the first), then the rules. The first database
 * gives the source tree; facts are relative to it, so shards made in
 * checkouts at other paths join as well.
 */
static int link_dbs(struct analysis *a, const struct analysis_opts *o,
		    const struct root_sets *roots, const char *const *paths,
		    size_t nr, char *err, size_t errlen)
{
	struct strmap seen;
	struct db *fdb;
	size_t i;
	int ret = 0;

	strmap_init(&seen);
	analyze_graph_start(a, o);
	for (i = 0; i < nr && !ret; i++) {
		/* Read, never made nor written. */
		ret = db_open(&fdb, paths[i], DB_READ, err, errlen);
		if (ret)
			break;
		if (!db_root(fdb)) {
			snprintf(err, errlen, "%s: the database is empty",
				 paths[i]);
			ret = -ENOENT;
		} else {
			if (!a->root)
				a->root = xstrdup(db_root(fdb));
			ret = link_stored(a, fdb, &seen);
			if (ret)
				db_error(fdb, err, errlen);
		}
		db_close(fdb);
	}
	strmap_free(&seen);
	if (ret)
		return ret;
	a->graph.features = o->features;
	graph_finish(&a->graph);
	analyze_stats(a);
	analyze_rules(a, o, roots);
	return 0;
}

/* "NAME=FILE": the length of NAME, or 0 when @arg names no configuration. */
static size_t config_name_len(const char *arg)
{
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-");

	return n && arg[n] == '=' && arg[n + 1] ? n : 0;
}

/*
 * The architecture of the report's databases (@paths, NAME=FILE or
 * FILE), set as the run's before their facts are read: one for all.
 * A database that cannot be opened is left to link_dbs() to report.
 */
static int dbs_arch(const char *const *paths, size_t nr, char *err,
		    size_t errlen)
{
	const struct arch *found = NULL;
	char *first = NULL, *which = NULL;
	char ignore[256];
	struct db *fdb;
	size_t i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		size_t n = config_name_len(paths[i]);
		const char *file = n ? paths[i] + n + 1 : paths[i];

		if (db_open(&fdb, file, DB_READ, ignore, sizeof(ignore)))
			continue;
		if (!db_arch(fdb)) {
			db_close(fdb);
			continue;
		}
		if (!first) {
			first = xstrdup(db_arch(fdb));
			which = xstrdup(file);
			found = arch_find(first);
			if (!found) {
				snprintf(err, errlen, "%s: its facts are of "
					 "arch/%s, which this trapcheck has no "
					 "tables for", file, first);
				ret = -EINVAL;
			}
		} else if (strcmp(first, db_arch(fdb))) {
			snprintf(err, errlen, "%s: its facts are of arch/%s, "
				 "those of %s of arch/%s: one architecture "
				 "per report", file, db_arch(fdb), which,
				 first);
			ret = -EINVAL;
		}
		db_close(fdb);
	}
	if (!ret && found)
		arch_set(found);
	free(first);
	free(which);
	return ret;
}

/*
 * The findings of each configuration's analysis into @dst, one per site
 * (and root set, with --per-root: otherwise the configurations may reach
 * one site first from different root sets), each with the configurations
 * that have it: the first configuration's finding is moved (its slot
 * left zeroed), the others only add their name.
 */
static void join_findings(struct analysis *a, struct findings *dst,
			  bool low, bool per_root)
{
	struct finding_note *n;
	struct strmap at;
	size_t c, i;

	strmap_init(&at);
	for (c = 0; c < a->nr_configs; c++) {
		struct findings *src = low ? &a->parts[c].low :
					     &a->parts[c].findings;

		for (i = 0; i < src->nr; i++) {
			struct finding *f = &src->v[i], *d;
			char *key = xasprintf("%s|%s|%u|%u|%s", f->rule,
					      FINDING_AT(f),
					      per_root && f->root ? f->root :
					      "-");
			int k = strmap_get(&at, key);

			if (k < 0) {
				strmap_put(&at, key, (int)dst->nr);
				d = PUSH(dst->v, dst->nr, dst->alloc);
				*d = *f;
				memset(f, 0, sizeof(*f));
			} else {
				d = &dst->v[k];
			}
			free(key);
			n = finding_note(dst, d);
			n->configs = xrealloc(n->configs,
					      (n->nr_configs + 1) *
					      sizeof(*n->configs));
			n->configs[n->nr_configs++] = a->configs[c];
		}
	}
	for (i = 0; i < dst->nr; i++) {
		n = finding_note(dst, &dst->v[i]);
		n->in_all_configs = n->nr_configs == a->nr_configs;
	}
	strmap_free(&at);
	findings_sort(dst);
}

/* Do the values of @sym differ between every config with @f and without? */
static bool differs(const struct analysis *a, const struct kconfig *k,
		    const bool *have, const char *sym)
{
	size_t w, o;

	for (w = 0; w < a->nr_configs; w++) {
		for (o = 0; have[w] && o < a->nr_configs; o++) {
			const char *x = kconfig_value(&k[w], sym);
			const char *y = kconfig_value(&k[o], sym);

			if (!have[o] && (x == y || (x && y && !strcmp(x, y))))
				return false;
		}
	}
	return true;
}

static void chain_symbols(const char *root, const struct chain *c,
			  struct kconfig_syms *cand)
{
	size_t i;

	for (i = 0; i < c->len; i++) {
		kconfig_line_symbols(root, c->steps[i].file, c->steps[i].line,
				     cand);
		if (c->steps[i].guards)
			kconfig_text_symbols(c->steps[i].guards, cand);
	}
}

/*
 * Why a finding exists under some configurations only, where trapcheck
 * can tell: the CONFIG_ symbols of the lines its chains pass (#if
 * conditions open there, kbuild lines building their files, guards)
 * whose values (each tree's .config) differ between every configuration
 * that has it and every one that does not.
 */
static void explain_configs(struct analysis *a, struct findings *fs)
{
	struct kconfig *k = xcalloc(a->nr_configs, sizeof(*k));
	bool *have = xcalloc(a->nr_configs, sizeof(*have));
	bool all_loaded = true;
	size_t c, i, j;

	for (c = 0; c < a->nr_configs; c++)
		all_loaded &= !kconfig_load(&k[c], a->parts[c].root);
	for (i = 0; all_loaded && i < fs->nr; i++) {
		struct finding *f = &fs->v[i];
		struct finding_note *n = finding_note(fs, f);
		struct kconfig_syms cand = { NULL };
		const char *root = NULL;

		if (!n->nr_configs || n->in_all_configs)
			continue;
		for (c = 0; c < a->nr_configs; c++) {
			have[c] = false;
			for (j = 0; j < n->nr_configs; j++)
				have[c] |= n->configs[j] == a->configs[c];
			if (have[c] && !root)
				root = a->parts[c].root;
		}
		chain_symbols(root, &f->chains[0], &cand);
		for (j = 0; j < f->nr_also; j++)
			chain_symbols(root, &f->also[j].chains[0], &cand);
		for (j = 0; j < cand.nr; j++)
			if (differs(a, k, have, cand.v[j]))
				*PUSH(n->config_syms, n->nr_config_syms,
				      n->alloc_config_syms) =
					xstrdup(cand.v[j]);
		kconfig_syms_free(&cand);
	}
	for (c = 0; c < a->nr_configs; c++)
		kconfig_free(&k[c]);
	free(k);
	free(have);
}

/* The run's counts: the configurations' added up. */
static void join_summaries(struct analysis *a)
{
	struct graph_stats *g = &a->graph_stats;
	struct tables_stats *t = &a->tables;
	struct rules_stats *r = &a->rules;
	size_t c, i;

	for (c = 0; c < a->nr_configs; c++) {
		const struct analysis *p = &a->parts[c];

		a->tus.entries += p->tus.entries;
		a->tus.tus += p->tus.tus;
		a->tus.duplicates += p->tus.duplicates;
		g->functions += p->graph_stats.functions;
		g->edges += p->graph_stats.edges;
		g->sinks += p->graph_stats.sinks;
		g->inferred += p->graph_stats.inferred;
		g->rate_limited += p->graph_stats.rate_limited;
		g->ruled_out += p->graph_stats.ruled_out;
		g->features = p->graph_stats.features;
		g->masked_across += p->graph_stats.masked_across;
		g->max_targets = p->graph_stats.max_targets;
		t->seen |= p->tables.seen;
		t->caps = t->caps > p->tables.caps ? t->caps : p->tables.caps;
		t->copies = t->copies > p->tables.copies ? t->copies :
							   p->tables.copies;
		if (p->tables.caps_label) {
			t->caps_label = p->tables.caps_label;
			t->unresolved_label = p->tables.unresolved_label;
			t->copies_label = p->tables.copies_label;
			t->unknown_label = p->tables.unknown_label;
		}
		r->stopped += p->rules.stopped;
		r->args_refuted += p->rules.args_refuted;
		for (i = 0; i < p->rules.nr_refuted_ex &&
		     r->nr_refuted_ex < ARRAY_SIZE(r->refuted_ex); i++)
			memcpy(r->refuted_ex[r->nr_refuted_ex++],
			       p->rules.refuted_ex[i],
			       sizeof(r->refuted_ex[0]));
		r->cpu_refuted += p->rules.cpu_refuted;
		for (i = 0; i < p->rules.nr_cpu_refuted_ex &&
		     r->nr_cpu_refuted_ex < ARRAY_SIZE(r->cpu_refuted_ex);
		     i++)
			memcpy(r->cpu_refuted_ex[r->nr_cpu_refuted_ex++],
			       p->rules.cpu_refuted_ex[i],
			       sizeof(r->cpu_refuted_ex[0]));
		r->low += p->rules.low;
	}
}

/*
 * Databases named NAME=FILE: the databases of one name are one
 * configuration's (its shards), analysed together; each configuration
 * alone; then the findings joined.
 */
static int join_configs(struct analysis *a, const struct analysis_opts *o,
			const struct root_sets *roots,
			const char *const *paths, size_t nr, char *err,
			size_t errlen)
{
	const char **files = xcalloc(nr, sizeof(*files));
	size_t i, c, k, alloc = 0;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		size_t n = config_name_len(paths[i]);

		for (c = 0; c < a->nr_configs; c++)
			if (strlen(a->configs[c]) == n &&
			    !strncmp(a->configs[c], paths[i], n))
				break;
		if (c == a->nr_configs)
			*PUSH(a->configs, a->nr_configs, alloc) =
				xstrndup(paths[i], n);
	}
	a->parts = xcalloc(a->nr_configs, sizeof(*a->parts));
	for (c = 0; c < a->nr_configs && !ret; c++) {
		size_t n = strlen(a->configs[c]);

		for (i = k = 0; i < nr; i++)
			if (config_name_len(paths[i]) == n &&
			    !strncmp(paths[i], a->configs[c], n))
				files[k++] = paths[i] + n + 1;
		ret = link_dbs(&a->parts[c], o, roots, files, k, err, errlen);
	}
	free(files);
	if (ret)
		return ret;
	a->root = xstrdup(a->parts[0].root);
	join_findings(a, &a->findings, false, o->per_root);
	join_findings(a, &a->low, true, o->per_root);
	explain_configs(a, &a->findings);
	explain_configs(a, &a->low);
	join_summaries(a);
	return 0;
}

/* The databases @paths into one at @out (--db-out), when asked. */
static int join_into(const char *out, const char *const *paths, size_t nr,
		     char *err, size_t errlen)
{
	struct sigaction old[2];
	size_t tus;
	int ret;

	if (!out)
		return 0;
	analyze_catch_signals(old);
	ret = db_join(out, paths, nr, &tus, analysis_interrupted, err,
		      errlen);
	analyze_restore_signals(old);
	if (!ret)
		diag_info("%zu database%s joined into %s: %zu TUs", nr,
			  nr == 1 ? "" : "s", out, tus);
	return ret;
}

/*
 * No compile database: link what the facts databases hold (filled by
 * "trapcheck check" under make C=1, by earlier runs or by the shards of
 * one) and report; databases named NAME=FILE are configurations.
 */
int analyze_from_db(struct analysis *a, const struct analysis_opts *o,
			    const struct root_sets *roots, char *err,
			    size_t errlen)
{
	size_t n = 1 + o->nr_more_dbs, i, named = 0;
	const char **paths = xcalloc(n, sizeof(*paths));
	int ret;

	paths[0] = o->db_path;
	for (i = 1; i < n; i++)
		paths[i] = o->more_dbs[i - 1];
	for (i = 0; i < n; i++)
		named += config_name_len(paths[i]) > 0;
	ret = dbs_arch(paths, n, err, errlen);
	if (ret)
		goto out_free_paths;
	if (named && o->db_out) {
		snprintf(err, errlen, "--db-out joins the shards of one "
			 "configuration, not configurations (NAME=FILE)");
		ret = -EINVAL;
	} else if (!named) {
		ret = join_into(o->db_out, paths, n, err, errlen);
		if (!ret)
			ret = link_dbs(a, o, roots, paths, n, err, errlen);
	} else if (named < n) {
		for (i = 0; config_name_len(paths[i]); i++)
			;
		snprintf(err, errlen, "--db %s: name every database "
			 "(NAME=FILE: a configuration) or none", paths[i]);
		ret = -EINVAL;
	} else {
		ret = join_configs(a, o, roots, paths, n, err, errlen);
	}
out_free_paths:
	free(paths);
	if (ret) {
		analysis_free(a);
		memset(a, 0, sizeof(*a));
	}
	return ret;
}
