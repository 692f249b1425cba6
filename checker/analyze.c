// SPDX-License-Identifier: GPL-2.0
/*
 * analyze.c - parse every TU of a compile database in parser processes,
 * merge the facts into one graph and run the rules.
 *
 * This file plans and links a run: which entries are parsed, which keep
 * the facts a database holds for them (and which header functions they
 * own), the link of every TU's facts into the graph, the summary and the
 * rules. The parse itself, in processes or threads, is analyze-pool.c's.
 * The merge order varies with -j but the graph's walks are ordered by
 * keys and call sites, so results do not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/analyze.h"
#include "trapcheck/arch.h"
#include "trapcheck/compdb.h"
#include "trapcheck/db.h"
#include "trapcheck/diag.h"
#include "trapcheck/flags.h"
#include "trapcheck/kconfig.h"
#include "trapcheck/rules.h"

#include "analyze-internal.h"

/*
 * The hash of a TU's translated flags, before any retry drops some. The
 * tree's own path is left out (flags_translate() makes -I and -include
 * paths absolute): a database keeps its facts when its tree is moved or
 * copied (cp -a, a hard-linked copy), and only what changed is parsed.
 */
uint64_t flags_hash(const struct clang_args *args, const char *root)
{
	uint64_t h = hash_str(FACTS_VERSION);
	size_t n = strlen(root);
	int j;

	for (j = 0; j < args->argc; j++) {
		const char *a = args->argv[j], *at;
		uint64_t v = 0xcbf29ce484222325ULL;

		/* Each "ROOT/" or final "ROOT" counts as "$ROOT". */
		while (n && (at = strstr(a, root)) &&
		       (at[n] == '/' || !at[n])) {
			char *head = xstrndup(a, (size_t)(at - a));

			v = hash_mix(v, hash_str(head));
			v = hash_mix(v, hash_str("$ROOT"));
			free(head);
			a = at + n;
		}
		v = hash_mix(v, hash_str(a));
		h = hash_mix(h, v);
	}
	return h;
}

/* "flags-hash:contents-hash" of a TU: what makes its facts stale. */
char *tu_key(struct pool *p, uint64_t h, const char *rel, char **includes,
	     size_t nr)
{
	uint64_t c = 0xcbf29ce484222325ULL;
	size_t i;

	pthread_mutex_lock(&p->db_lock);
	for (i = 0; i <= nr; i++) {
		const char *file = i ? includes[i - 1] : rel;
		char *fh = db_file_hash(p->fdb, p->a->root, file);

		c = hash_mix(c, hash_str(file));
		c = hash_mix(c, hash_str(fh));
		free(fh);
	}
	pthread_mutex_unlock(&p->db_lock);
	return xasprintf("%016llx:%016llx", (unsigned long long)h,
			 (unsigned long long)c);
}

/* Is the TU's file @file, or one it includes, given as unsaved text? */
static bool reads_unsaved(const struct pool *p, const char *file,
			  char **inc, size_t nr)
{
	unsigned int u;
	size_t i;

	for (u = 0; u < p->opts->nr_unsaved; u++) {
		char *rel = path_relative(p->opts->unsaved[u].path,
					  p->a->root);
		bool hit = !strcmp(file, rel);

		for (i = 0; i < nr && !hit; i++)
			hit = !strcmp(inc[i], rel);
		free(rel);
		if (hit)
			return true;
	}
	return false;
}

static void summarise_tables(const struct cap_table *t,
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
static void add_problem(struct run_summary *s, char *file,
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
static void summarise_graph(struct run_summary *s, const struct graph *g)
{
	size_t i;

	summarise_tables(&g->caps, s);
	for (i = 0; i < g->nr_edges; i++)
		s->rate_limited += g->edges[i].periodic;
	for (i = 0; i < g->nr_sinks; i++)
		s->rate_limited += g->sinks[i].periodic;
	s->masked_across = g->region_sites;

	s->inferred = g->inferred_edges;
	s->dispatch = &g->dispatch;
	s->pruned = g->pruned;
	s->nr_pruned = g->nr_pruned;
	s->max_targets = g->max_targets;
	s->functions = g->nr_nodes;
	s->edges = g->nr_edges;
	s->sinks = g->nr_sinks;
}

static void summarise(struct pool *p)
{
	struct run_summary *s = &p->a->summary;
	size_t i;

	s->entries = p->db->nr;
	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];

		if (st->skip != FLAGS_PARSE) {
			s->skipped++;
			continue;
		}
		if (!st->parse_error)
			s->tus++;
		if (!st->parse_error && !st->nr_errors) {
			free(st->first_error);
			st->first_error = NULL;
			continue;
		}
		/* The first error is the summary's now. */
		add_problem(s, path_relative(p->db->entries[i].file,
					     p->a->root),
			    st->nr_errors, st->first_error, st->parse_error);
		st->first_error = NULL;
	}
	summarise_graph(s, &p->a->graph);
}

/* Index of @file in the pool's list of orphan candidate files. */
static int orphan_file(struct pool *p, const char *file)
{
	int k = strmap_get(&p->ofile_index, file);

	if (k >= 0)
		return k;
	*PUSH(p->ofiles, p->nr_ofiles, p->alloc_ofiles) = xstrdup(file);
	strmap_put(&p->ofile_index, file, (int)p->nr_ofiles - 1);
	return (int)p->nr_ofiles - 1;
}

/*
 * The header functions the database says TU @rel extracted: claimed by
 * entry @owner when that TU is kept, else (-1) orphans, for a kept TU
 * that includes their file to adopt (adopt_orphans()).
 */
static void stored_header_funcs(struct pool *p, struct strmap *prev_owned,
				const char *rel, int owner)
{
	char **keys, **files;
	size_t nk = db_tu_header_funcs(p->fdb, rel, &keys, &files), j;

	for (j = 0; j < nk; j++) {
		if (owner >= 0)
			claims_take(&p->claims, keys[j], owner);
		else
			strmap_put(prev_owned, keys[j],
				   orphan_file(p, files[j]));
		free(keys[j]);
		free(files[j]);
	}
	if (nk) {
		free(keys);
		free(files);
	}
}

/*
 * TUs the database holds that the compile database does not (a smaller
 * compile database, a shard, a file gone): link_from_db() prunes them,
 * so the header functions they owned are orphans, for adopt_orphans()
 * to have a kept TU re-extract; else they would vanish from the graph.
 */
static void forget_dropped(struct pool *p, struct strmap *prev_owned)
{
	struct strmap here;
	char **tus;
	size_t n, i;

	strmap_init(&here);
	for (i = 0; i < p->db->nr; i++)
		strmap_put(&here, p->status[i].dbkey, 0);
	n = db_tus(p->fdb, &tus);
	for (i = 0; i < n; i++) {
		if (strmap_get(&here, tus[i]) < 0)
			stored_header_funcs(p, prev_owned, tus[i], -1);
		free(tus[i]);
	}
	free(tus);
	strmap_free(&here);
}

/*
 * With a database: which TUs can keep their stored facts (same flags,
 * same contents of the TU and of everything it included last time), and
 * the header functions they own, which the re-parsed TUs need not
 * extract again.
 */
static void plan_incremental(struct pool *p, struct strmap *prev_owned)
{
	size_t i;

	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];
		char *rel = xstrdup(st->dbkey);
		char *stored = db_tu_key(p->fdb, rel), *key = NULL;
		char **inc = NULL;
		size_t nr = 0;
		struct clang_args args;

		if (st->skip == FLAGS_PARSE && stored) {
			char *file = path_relative(p->db->entries[i].file,
						   p->a->root);

			flags_translate(&p->db->entries[i], p->a->root, &args);
			nr = db_tu_includes(p->fdb, rel, &inc);
			key = tu_key(p, flags_hash(&args, p->a->root), file,
				     inc, nr);
			clang_args_free(&args);
			st->reused = !strcmp(key, stored) &&
				     !reads_unsaved(p, file, inc, nr);
			free(file);
		}
		if (stored)
			stored_header_funcs(p, prev_owned, rel,
					    st->reused ? (int)i : -1);
		st->parse = st->skip == FLAGS_PARSE && !st->reused;
		strv_free(inc, nr);
		free(key);
		free(stored);
		free(rel);
	}
	forget_dropped(p, prev_owned);
}

/*
 * A header function whose owner was re-parsed or removed, and that no
 * re-parsed TU claimed, would vanish from the graph: a kept TU that
 * includes its file is re-parsed and claims it (with any other orphan of
 * the files it includes), re-extracting what it owned and the orphans.
 * One pass over the kept TUs' include lists finds the first includer of
 * each orphaned file (thousands of orphans when a big database meets a
 * small compile database).
 */
static void adopt_orphans(struct pool *p, struct strmap *prev_owned)
{
	int *includer = xmalloc((p->nr_ofiles + 1) * sizeof(*includer));
	size_t i, t, j, n;
	char **inc;

	for (i = 0; i < p->nr_ofiles; i++)
		includer[i] = -1;
	for (t = 0; t < p->db->nr && p->nr_ofiles; t++) {
		if (!p->status[t].reused)
			continue;
		n = db_tu_includes(p->fdb, p->status[t].dbkey, &inc);
		for (j = 0; j < n; j++) {
			int k = strmap_get(&p->ofile_index, inc[j]);

			if (k >= 0 && includer[k] < 0)
				includer[k] = (int)t;
		}
		strv_free(inc, n);
	}
	for (i = 0; i <= prev_owned->mask; i++) {
		const char *key = prev_owned->slots[i].key;
		struct tu_status *st;
		int who;

		if (!key || strmap_get(&p->claims.set, key) >= 0)
			continue;
		who = includer[prev_owned->slots[i].value];
		if (who < 0)
			continue;	/* no kept TU includes it now */
		st = &p->status[who];
		if (st->reused) {
			st->reused = false;
			st->parse = true;
			p->work[p->nr_work++] = (size_t)who;
		}
		claims_take(&p->claims, key, who);
	}
	free(includer);
}

/* The rules over the linked graph, and what the summary says of them. */
static void run_rules(struct analysis *a, const struct analysis_opts *o,
		      const struct root_sets *roots)
{
	struct rules_opts ro = { o->per_root, o->all_chains };
	struct rules_stats st = { 0 };

	rules_run(&a->graph, roots, &ro, &a->findings, &a->low, &st);
	a->summary.stopped = st.stopped;
	a->summary.low = a->low.nr;
}

static void graph_start(struct analysis *a, const struct analysis_opts *o)
{
	graph_init(&a->graph);
	if (o->max_targets)
		a->graph.max_targets = o->max_targets;
}

/*
 * Every TU the facts database @fdb holds, into the graph; a TU in @seen
 * (linked from an earlier database) is counted, not linked again.
 */
static int link_stored(struct analysis *a, struct db *fdb,
		       struct strmap *seen)
{
	struct run_summary *s = &a->summary;
	char **tus;
	size_t n, i;
	int ret = 0;

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
				add_problem(s, xstrdup(tus[i]), f.nr_errors,
					    f.first_error ?
					    xstrdup(f.first_error) : NULL,
					    f.parse_error);
			if (!f.parse_error)
				graph_merge(&a->graph, &f);
			tu_facts_free(&f);
		}
		ret = db_error(fdb, NULL, 0);
		free(tus[i]);
	}
	free(tus);
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
	graph_start(a, o);
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
	graph_finish(&a->graph);
	caps_resolve(&a->graph);
	summarise_graph(&a->summary, &a->graph);
	run_rules(a, o, roots);
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
	struct strmap at;
	size_t c, i;

	strmap_init(&at);
	for (c = 0; c < a->nr_configs; c++) {
		struct findings *src = low ? &a->parts[c].low :
					     &a->parts[c].findings;

		for (i = 0; i < src->nr; i++) {
			struct finding *f = &src->v[i], *d;
			char *key = xasprintf("%s|%s|%u|%u|%s", f->rule,
					      f->file, f->line, f->col,
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
			d->configs = xrealloc(d->configs, (d->nr_configs + 1) *
					      sizeof(*d->configs));
			d->configs[d->nr_configs++] = a->configs[c];
		}
	}
	for (i = 0; i < dst->nr; i++)
		dst->v[i].in_all_configs =
			dst->v[i].nr_configs == a->nr_configs;
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
		struct kconfig_syms cand = { NULL };
		const char *root = NULL;

		if (!f->nr_configs || f->in_all_configs)
			continue;
		for (c = 0; c < a->nr_configs; c++) {
			have[c] = false;
			for (j = 0; j < f->nr_configs; j++)
				have[c] |= f->configs[j] == a->configs[c];
			if (have[c] && !root)
				root = a->parts[c].root;
		}
		chain_symbols(root, &f->chain, &cand);
		for (j = 0; j < f->nr_also; j++)
			chain_symbols(root, &f->also[j].chain, &cand);
		for (j = 0; j < cand.nr; j++)
			if (differs(a, k, have, cand.v[j]))
				*PUSH(f->config_syms, f->nr_config_syms,
				      f->alloc_config_syms) =
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
	struct run_summary *s = &a->summary;
	size_t c;

	for (c = 0; c < a->nr_configs; c++) {
		const struct run_summary *p = &a->parts[c].summary;

		s->entries += p->entries;
		s->tus += p->tus;
		s->duplicates += p->duplicates;
		s->functions += p->functions;
		s->edges += p->edges;
		s->sinks += p->sinks;
		s->have_caps |= p->have_caps;
		s->have_ftr |= p->have_ftr;
		s->caps = s->caps > p->caps ? s->caps : p->caps;
		s->ftr_regs = s->ftr_regs > p->ftr_regs ? s->ftr_regs :
							  p->ftr_regs;
		s->inferred += p->inferred;
		s->stopped += p->stopped;
		s->rate_limited += p->rate_limited;
		s->masked_across += p->masked_across;
		s->low += p->low;
		s->max_targets = p->max_targets;
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

/*
 * No compile database: link what the facts databases hold (filled by
 * "trapcheck check" under make C=1, by earlier runs or by the shards of
 * one) and report; databases named NAME=FILE are configurations.
 */
static int analysis_from_db(struct analysis *a, const struct analysis_opts *o,
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
	if (!named) {
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

/* The pool of a run over @db, with libclang's view of the unsaved files. */
static void pool_init(struct pool *p, const struct compdb *db,
		      const struct analysis_opts *o, struct analysis *a)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->db = db;
	p->opts = o;
	p->a = a;
	p->status = xcalloc(db->nr, sizeof(*p->status));
	p->cx_unsaved = xcalloc(o->nr_unsaved + 1, sizeof(*p->cx_unsaved));
	for (i = 0; i < o->nr_unsaved; i++) {
		p->cx_unsaved[i].Filename = o->unsaved[i].path;
		p->cx_unsaved[i].Contents = o->unsaved[i].text;
		p->cx_unsaved[i].Length = o->unsaved[i].len;
	}
	claims_init(&p->claims);
	strmap_init(&p->ofile_index);
	flag_warnings_init(&p->warnings);
	pthread_mutex_init(&p->merge_lock, NULL);
	pthread_mutex_init(&p->take_lock, NULL);
	pthread_mutex_init(&p->db_lock, NULL);
}

static void pool_free(struct pool *p)
{
	size_t i;

	for (i = 0; i < p->db->nr; i++) {
		free(p->status[i].key);
		free(p->status[i].dbkey);
		free(p->status[i].first_error);
		tu_facts_free(&p->status[i].facts);
	}
	strv_free(p->ofiles, p->nr_ofiles);
	strmap_free(&p->ofile_index);
	db_close(p->fdb);
	pthread_mutex_destroy(&p->merge_lock);
	pthread_mutex_destroy(&p->take_lock);
	pthread_mutex_destroy(&p->db_lock);
	flag_warnings_free(&p->warnings);
	claims_free(&p->claims);
	free(p->cx_unsaved);
	free(p->work);
	free(p->status);
}

/*
 * Which entries are parsed, and the key of each in the database: its
 * path, and its flags' hash too when the compile database builds the
 * file more than once (VHE and nVHE hyp code): one key per build.
 */
static void plan_entries(struct pool *p)
{
	const struct compdb *db = p->db;
	const char *root = p->a->root;
	size_t i, j;

	for (i = 0; i < db->nr; i++) {
		struct clang_args args;
		struct tu_status *st = &p->status[i];

		st->skip = flags_translate(&db->entries[i], root, &args);
		clang_args_free(&args);
		if (st->skip == FLAGS_SKIP_COMPILER && db->entries[i].argc &&
		    flag_warn_once(&p->warnings, db->entries[i].argv[0]))
			diag_at(db->entries[i].file, "warning", "unknown "
				"compiler '%s': entry skipped",
				db->entries[i].argv[0]);
		st->parse = st->skip == FLAGS_PARSE;
		st->dbkey = path_relative(db->entries[i].file, root);
	}
	for (i = 0; i < db->nr; i++) {
		size_t twice = 0;

		for (j = 0; j < db->nr; j++)
			twice += !strcmp(db->entries[i].file,
					 db->entries[j].file);
		if (twice > 1 && p->status[i].skip == FLAGS_PARSE) {
			struct clang_args args;
			char *k;

			flags_translate(&db->entries[i], root, &args);
			k = xasprintf("%s@%016llx", p->status[i].dbkey,
				      (unsigned long long)flags_hash(&args,
								     root));
			clang_args_free(&args);
			free(p->status[i].dbkey);
			p->status[i].dbkey = k;
		}
	}
}

/*
 * Parse what p->work holds, with SIGINT and SIGTERM caught; with a
 * database, then the kept TUs that adopt orphaned header functions.
 */
static void parse_all(struct pool *p, struct strmap *prev_owned)
{
	struct sigaction old[2];

	catch_signals(old);
	run_workers(p);
	if (p->fdb && !analysis_interrupted()) {
		size_t first = p->nr_work;

		adopt_orphans(p, prev_owned);
		if (p->nr_work > first) {
			/* Parse just the adopted ones. */
			memmove(p->work, p->work + first,
				(p->nr_work - first) * sizeof(*p->work));
			p->nr_work -= first;
			p->a->summary.parsed += p->nr_work;
			run_workers(p);
		}
	}
	restore_signals(old);
}

/*
 * The facts database of a run: the architecture checked before anything
 * is written (a refused run leaves the file as it was), then the tree
 * and the run recorded. One this process may not write is read: what
 * changed is parsed into memory, nothing stored.
 */
static int open_db(struct pool *p, const struct analysis_opts *o,
		   struct analysis *a, char *err, size_t errlen)
{
	int ret = db_open(&p->fdb, o->db_path, DB_WRITE, err, errlen);

	if (ret)
		return ret;
	ret = db_check_arch(p->fdb, arch_current()->name, err, errlen);
	if (ret)
		return ret;
	p->store = !o->unsaved && !db_readonly(p->fdb);
	if (db_readonly(p->fdb)) {
		diag_at(o->db_path, "note", "cannot write the database (%s): "
			"what changed is analysed in memory, not stored",
			db_readonly_why(p->fdb));
		return 0;
	}
	/*
	 * Keys and paths are relative to the tree: the database of a tree
	 * that moved, or of the tree a copy was made from, is this tree's
	 * now (what differs is parsed again).
	 */
	ret = db_begin_run(p->fdb, a->root, arch_current()->name, p->store);
	if (ret)
		db_error(p->fdb, err, errlen);
	return ret;
}

/* The link: every TU's facts, stored or new, in db order. */
static void link_from_db(struct pool *p)
{
	struct analysis *a = p->a;
	const char **keep = xcalloc(p->db->nr + 1, sizeof(*keep));
	size_t i, nr_keep = 0;

	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];
		char *rel;

		if (st->skip != FLAGS_PARSE)
			continue;
		rel = xstrdup(st->dbkey);
		/* Not read or crashed now: no stale facts either. */
		if (st->parse && (st->parse_error == TU_NOT_READ ||
				  st->parse_error == TU_CRASHED)) {
			keep[nr_keep++] = rel;
			continue;
		}
		/*
		 * Kept or just stored; with unsaved files or a read-only
		 * database, parsed into memory.
		 */
		if ((st->reused || p->store) &&
		    !db_load(p->fdb, rel, &st->facts)) {
			a->summary.from_db += st->reused;
			st->parse_error = st->facts.parse_error;
			st->nr_errors = st->facts.nr_errors;
			st->first_error = st->facts.first_error ?
				xstrdup(st->facts.first_error) : NULL;
		}
		if (!st->facts.parse_error)
			graph_merge(&a->graph, &st->facts);
		tu_facts_free(&st->facts);
		keep[nr_keep++] = rel;
	}
	if (p->store && !db_error(p->fdb, NULL, 0))
		a->summary.removed = db_prune(p->fdb, keep, nr_keep);
	for (i = 0; i < nr_keep; i++)
		free((char *)keep[i]);
	free(keep);
}

int analysis_run(struct analysis *a, const struct analysis_opts *o,
		 const struct root_sets *roots, char *err, size_t errlen)
{
	struct compdb db;
	struct pool p;
	const struct arch *arch;
	struct strmap prev_owned;
	size_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	if (!o->compdb)
		return analysis_from_db(a, o, roots, err, errlen);
	ret = compdb_load(&db, o->compdb, err, errlen);
	if (ret)
		return ret;
	/* Before any parser process starts: they inherit it. */
	arch = arch_of_compdb(&db);
	if (arch)
		arch_set(arch);
	if (o->srctree) {
		ret = compdb_set_srctree(&db, o->srctree, err, errlen);
		if (ret) {
			compdb_free(&db);
			return ret;
		}
	}
	if (o->shard_n)
		a->summary.shard_of = compdb_shard(&db, o->shard_k,
						   o->shard_n);
	a->root = xstrdup(db.srctree);
	graph_start(a, o);
	pool_init(&p, &db, o, a);
	strmap_init(&prev_owned);

	if (o->db_path) {
		ret = open_db(&p, o, a, err, errlen);
		if (ret)
			goto out_free;
	}
	plan_entries(&p);
	if (p.fdb)
		plan_incremental(&p, &prev_owned);
	p.work = xcalloc(db.nr + 1, sizeof(*p.work));
	for (i = 0; i < db.nr; i++)
		if (p.status[i].parse)
			p.work[p.nr_work++] = i;
	a->summary.parsed = p.nr_work;

	ret = p.fdb ? db_error(p.fdb, err, errlen) : 0;
	if (!ret)
		parse_all(&p, &prev_owned);
	if (!ret && p.fdb)
		ret = db_error(p.fdb, err, errlen);
	if (ret)
		goto out_free;
	if (analysis_interrupted()) {
		snprintf(err, errlen, "interrupted: %zu TUs parsed%s",
			 (size_t)atomic_load(&p.done), p.store ?
			 " and stored in the database" : "");
		if (p.fdb)
			db_end_run(p.fdb, false);
		ret = -EINTR;
		goto out_free;
	}
	if (p.fdb) {
		link_from_db(&p);
		ret = db_end_run(p.fdb, true);
		if (ret) {
			db_error(p.fdb, err, errlen);
			goto out_free;
		}
	}
	graph_finish(&a->graph);
	caps_resolve(&a->graph);
	summarise(&p);
	run_rules(a, o, roots);
	ret = 0;

out_free:
	if (ret) {
		/* Nothing half-made for the caller to free. */
		analysis_free(a);
		memset(a, 0, sizeof(*a));
	}
	pool_free(&p);
	strmap_free(&prev_owned);
	compdb_free(&db);
	return ret;
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
}
