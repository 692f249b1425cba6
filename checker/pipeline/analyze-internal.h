/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze-internal.h - what the three files of the run share (not public
 * API: include/trapcheck/pipeline/analyze.h is), each name with the
 * family's prefix, analyze_:
 *
 *   analyze.c         the run: which TUs to parse and which keep their
 *                     stored facts (the keys that make them stale), the
 *                     link of every TU's facts into the graph, the
 *                     summary and the rules
 *   analyze-pool.c    the parse: parser processes (or threads), what each
 *                     TU's facts become (stored or merged), progress and
 *                     interruption
 *   analyze-report.c  a run from facts databases alone, configurations
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
	char *key;		/* database key (flags + contents) of
				 * the facts kept or stored by this run */
	uint64_t flags_hash;	/* of its translated flags (FLAGS_PARSE) */
	int parse_error;
	unsigned int nr_errors;
	char *first_error;
	struct tu_facts facts;	/* parsed facts, kept for the link (DB) */
};

/* The definitions of one file that may expand a changed macro. */
struct macro_file {
	char *file;
	uint32_t *h;			/* their names' hashes, sorted */
	size_t nr, alloc;
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
	bool stale;			/* another run stored a TU whose
					 * facts the link was to read */
	struct CXUnsavedFile *cx_unsaved; /* opts->unsaved, for libclang */
	pthread_mutex_t db_lock;
	/*
	 * Under db_lock: per file a key has met, the hash of its name and
	 * of its contents' hash (analyze.c), two per file.
	 */
	struct strmap key_files;
	uint64_t *key_hashes;
	size_t nr_key_hashes, alloc_key_hashes;
	size_t *work;			/* entries to parse, in db order */
	size_t nr_work;
	char **ofiles;			/* files of possibly orphaned funcs */
	size_t nr_ofiles, alloc_ofiles;
	struct strmap ofile_index;	/* ofiles[] by name */
	/*
	 * Unsaved headers changed only in macros (analyze.c): the hashes
	 * of the names changed, sorted; those of the definitions that may
	 * expand one, per file they are in; the names that may be newly
	 * defined; per file, whether it names one of those (1) or not (0).
	 */
	uint32_t *macro_q;
	size_t nr_macro_q;
	struct macro_file *macro_files;
	size_t nr_macro_files, alloc_macro_files;
	struct strmap macro_file_index;	/* macro_files[] by file */
	char **macro_new;
	size_t nr_macro_new, alloc_macro_new;
	struct strmap mentions;
	size_t nr_macro_includers;	/* TUs that include such a header */
	size_t nr_macro_parsed;		/* of those, parsed again */
	atomic_size_t next;
	atomic_size_t done;
	time_t start;
};

/*
 * analyze.c, for the parse: the key a TU's facts are stored under, the
 * hash of its translated flags (FLAGS_PARSE) and of the contents of it
 * and every file it included.
 */
uint64_t analyze_flags_hash(const struct clang_args *args, const char *root);
char *analyze_tu_key(struct pool *p, uint64_t h, const char *rel,
		     char **includes, size_t nr);

/*
 * analyze.c, for a run from databases too: the end of every run, what
 * the graph and the architecture's tables count, and the rules.
 */
void analyze_stats(struct analysis *a);
void analyze_rules(struct analysis *a, const struct analysis_opts *o,
		   const struct root_sets *roots);
void analyze_graph_start(struct analysis *a, const struct analysis_opts *o);

/* analyze-report.c: a run from facts databases alone. */
int analyze_from_db(struct analysis *a, const struct analysis_opts *o,
		    const struct root_sets *roots, char *err, size_t errlen);

/*
 * analyze-pool.c: the parse of every TU of p->work; SIGINT and SIGTERM
 * set analysis_interrupted() between catching and restoring them.
 */
void analyze_workers(struct pool *p);
void analyze_catch_signals(struct sigaction old[2]);
void analyze_restore_signals(const struct sigaction old[2]);

#endif /* TRAPCHECK_ANALYZE_INTERNAL_H */
