/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze-internal.h - what the files of the pipeline share (not public
 * API: include/trapcheck/pipeline/analyze.h is):
 *
 *   analyze.c       the run: which TUs to parse and which keep their
 *                   stored facts, the link of every TU's facts into the
 *                   graph, the summary and the rules
 *   analyze-pool.c  the parse: parser processes (or threads), what each
 *                   TU's facts become (stored or merged), progress and
 *                   interruption
 *   analyze-plan.c  which TUs are parsed, which keep stored facts
 *   analyze-report.c  a run from facts databases alone, configurations
 *   analyze-summary.c the rules and the summary every run ends with
 *   analyze-keys.c  the keys that make stored facts stale
 *
 * Each calls only files listed after it (tests/e2e/layers.t).
 */
#ifndef TRAPCHECK_ANALYZE_INTERNAL_H
#define TRAPCHECK_ANALYZE_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <clang-c/Index.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/input/flags.h"

struct tu_status {
	char *dbkey;		/* the TU in the database: its path, and its
				 * flags' hash when the compile database
				 * builds the file more than once */
	enum flags_skip skip;
	bool parse;		/* to be parsed in this run */
	bool reused;		/* its facts come from the database */
	char *key;		/* database key (flags + contents) */
	uint64_t flags_hash;	/* of its translated flags (FLAGS_PARSE) */
	int parse_error;
	unsigned int nr_errors;
	char *first_error;
	struct tu_facts facts;	/* parsed facts, kept for the link (DB) */
};

struct pool {
	const struct compdb *db;
	const struct analysis_opts *opts;
	struct analysis *a;
	struct tu_status *status;
	struct claims claims;
	struct flag_warnings warnings;
	pthread_mutex_t merge_lock;
	pthread_mutex_t take_lock;	/* threads: one take_tu() at a time */
	struct db *fdb;			/* the facts database, or NULL */
	bool store;			/* parsed facts go into it (not:
					 * unsaved files, a read-only one) */
	struct CXUnsavedFile *cx_unsaved; /* opts->unsaved, for libclang */
	pthread_mutex_t db_lock;
	/*
	 * Under db_lock: per file a key has met, the hash of its name and
	 * of its contents' hash (analyze-keys.c), two per file.
	 */
	struct strmap key_files;
	uint64_t *key_hashes;
	size_t nr_key_hashes, alloc_key_hashes;
	size_t *work;			/* entries to parse, in db order */
	size_t nr_work;
	char **ofiles;			/* files of possibly orphaned funcs */
	size_t nr_ofiles, alloc_ofiles;
	struct strmap ofile_index;	/* ofiles[] by name */
	atomic_size_t next;
	atomic_size_t done;
	time_t start;
};

/* analyze-keys.c: what makes a TU's stored facts stale. */
uint64_t flags_hash(const struct clang_args *args, const char *root);
char *tu_key(struct pool *p, uint64_t h, const char *rel, char **includes,
	     size_t nr);
/*
 * The same key with the includes stored for @dbkey (what a stored TU
 * included last time), or NULL if they cannot be read.
 */
char *tu_key_stored(struct pool *p, uint64_t h, const char *rel,
		    const char *dbkey);

/*
 * Seed the run's memo of file hashes (db_files_unchanged()'s callback,
 * @arg the pool, before any parse): a file unchanged when the run was
 * planned keys every TU of the run with that hash, as if it had been
 * looked up then, even if it is edited before a TU including it is
 * parsed (the next run sees its new mtime).
 */
void key_memo_seed(const char *rel, const char *hash, void *arg);
/*
 * The key of a TU whose included files are known unchanged (no file the
 * database keeps a hash of changed): flags hash @h with the contents
 * part of its @stored key. NULL for a stored key of no such shape.
 */
char *tu_key_unchanged(uint64_t h, const char *stored);

/* analyze-summary.c: the end of every run. */
void summary_add_problem(struct run_summary *s, char *file,
			 unsigned int nr_errors, char *first_error,
			 int parse_error);
void summary_graph(struct run_summary *s, const struct graph *g);
void summary_tables(const struct cap_table *t, struct run_summary *s);
void analysis_rules(struct analysis *a, const struct analysis_opts *o,
		    const struct root_sets *roots);
void analysis_graph_start(struct analysis *a,
			  const struct analysis_opts *o);

/* analyze-plan.c: which TUs are parsed. */
void plan_entries(struct pool *p);
void plan_incremental(struct pool *p, struct strmap *prev_owned);
void plan_adopt_orphans(struct pool *p, struct strmap *prev_owned);

/*
 * analyze-link.c: every linked TU's facts into the graph, or the stored
 * link; the TUs not linked pruned from the database.
 */
void link_from_db(struct pool *p);

/* analyze-report.c: a run from facts databases alone. */
int analysis_from_db(struct analysis *a, const struct analysis_opts *o,
		     const struct root_sets *roots, char *err, size_t errlen);

/* analyze-pool.c */
void run_workers(struct pool *p);
/* SIGINT and SIGTERM set analysis_interrupted() between the two. */
void catch_signals(struct sigaction old[2]);
void restore_signals(const struct sigaction old[2]);

#endif /* TRAPCHECK_ANALYZE_INTERNAL_H */
