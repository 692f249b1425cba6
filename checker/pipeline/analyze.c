// SPDX-License-Identifier: GPL-2.0
/*
 * analyze.c - parse every TU of a compile database in parser processes,
 * merge the facts into one graph and run the rules.
 *
 * This file runs it: the pool, the facts database, the link of every
 * TU's facts into the graph, the rules. Which TUs are parsed is
 * analyze-plan.c's; the parse itself, in processes or threads,
 * analyze-pool.c's; a run from facts databases alone analyze-report.c's.
 * The merge order varies with -j but the graph's walks are ordered by
 * keys and call sites, so results do not.
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
		summary_add_problem(s, path_relative(p->db->entries[i].file,
					     p->a->root),
			    st->nr_errors, st->first_error, st->parse_error);
		st->first_error = NULL;
	}
	summary_graph(s, &p->a->graph);
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
	strmap_init(&p->key_files);
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
	strmap_free(&p->key_files);
	free(p->key_hashes);
	flag_warnings_free(&p->warnings);
	claims_free(&p->claims);
	free(p->cx_unsaved);
	free(p->work);
	free(p->status);
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

		plan_adopt_orphans(p, prev_owned);
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
	analysis_graph_start(a, o);
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
	a->graph.features = o->features;
	graph_finish(&a->graph);
	caps_resolve(&a->graph);
	summarise(&p);
	analysis_rules(a, o, roots);
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
