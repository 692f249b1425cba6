/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis pipeline: compile database -> parallel TU extraction ->
 * call graph -> rules. The programs on top (main.c) only parse options
 * and pick an emitter.
 */
#ifndef TRAPCHECK_ANALYZE_H
#define TRAPCHECK_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trapcheck/model/claims.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/input/roots.h"
#include "trapcheck/output/emit.h"

/* A file parsed with these contents instead of the disk's. */
struct unsaved_file {
	const char *path;		/* absolute */
	const char *text;
	unsigned long len;
	/*
	 * A header whose text differs from the tree's only inside function
	 * bodies (shape.h): its includers keep their stored facts, and only
	 * the TUs that own its functions' bodies are parsed again.
	 */
	bool body_only;
	/*
	 * A header whose text differs from the tree's only inside function
	 * bodies and in macro definitions (shape_macros()): the names whose
	 * definitions changed and those that may be defined where they
	 * were not (NULL-terminated). Only its includers whose stored
	 * macro set holds a changed name, or that include a file naming a
	 * new one, are parsed again, with the owners of its bodies.
	 */
	char **macros, **macros_added;
};

struct analysis_opts {
	const char *compdb;		/* compile_commands.json; NULL: link
					 * what db_path holds */
	const char *srctree;		/* the source tree; NULL: found from
					 * the database (compdb_srctree) */
	int jobs;			/* parser threads, >= 1 */
	bool progress;			/* one-line progress on stderr */
	/* Parse these files with these contents (fix verification). */
	const struct unsaved_file *unsaved;
	unsigned int nr_unsaved;
	/*
	 * The facts database: TUs whose flags and contents did not change
	 * keep their stored facts; the others are parsed and stored (not
	 * with unsaved files, which only read it).
	 */
	const char *db_path;
	/*
	 * Without a compile database, the facts of these databases too,
	 * linked with db_path's (shards joined; a TU held by several is
	 * taken from the first that holds it). Written NAME=FILE, every one
	 * of them: the databases of a name are one configuration's, each
	 * configuration is analysed alone and the findings say which
	 * configurations have them.
	 */
	const char *const *more_dbs;
	size_t nr_more_dbs;
	/*
	 * Without a compile database: db_path and more_dbs joined into this
	 * new database too (not with configurations).
	 */
	const char *db_out;
	/* Analyse only shard shard_k of shard_n (compdb_shard); 0: all. */
	unsigned int shard_k, shard_n;
	/* Calls through a struct member with more targets are pruned. */
	size_t max_targets;
	/*
	 * TUs are parsed in worker processes: a crash or a hang (past
	 * tu_timeout seconds; 0: none) costs that TU only. no_isolate
	 * parses in threads of this process instead (debugging).
	 */
	unsigned int tu_timeout;
	/* Resident MiB a parser process may use on one TU; 0: no bound. */
	unsigned long tu_memory_mib;
	bool no_isolate;
	/*
	 * Every header body parsed in every TU; by default a parser
	 * blanks those an earlier TU of its own had (bodyskip.h).
	 */
	bool every_body;
	/* Assembly sources (.S) read too (clang/asm.c); else skipped. */
	bool assembly;
	/* Each parser says its bodyskip.h counters when it ends (tests). */
	bool bodyskip_stats;
	const char *fault;		/* extract_opts.fault (tests) */
	/* One finding per root set (--per-root); low confidence too. */
	bool per_root, all_chains;
	bool outer_any;		/* --outer=any */
	bool outer_nested;	/* --outer=kvm-nested */
	const char *machine;	/* --machine: a profile, or NULL (any) */
	const char *features;	/* --features (graph.features), or NULL */
};

struct analysis {
	char *root;			/* the source tree: what the paths
					 * of facts and findings are
					 * relative to */
	/*
	 * Databases named NAME=FILE (configurations of one tree): one
	 * analysis per name, whose findings are joined into this one's
	 * (each with the configurations that have it); the parts keep the
	 * graphs the findings' strings live in.
	 */
	char **configs;
	struct analysis *parts;
	size_t nr_configs;
	struct graph graph;
	/* What each stage counted (output/emit.h: analysis_summary()). */
	struct tu_stats tus;
	struct graph_stats graph_stats;
	struct rules_stats rules;
	struct tables_stats tables;
	struct baseline_stats baseline;
	struct findings findings;
	/* Sites reached only through chains of low confidence (notes). */
	struct findings low;
	/*
	 * What the user's selection (--context, -Wno-RULE, --only) left
	 * out of both: not reported, but the tree's still, so that a fix's
	 * verification does not take them for new.
	 */
	struct findings hidden;
	/*
	 * --diff of a series: the analyses of its earlier patches, whose
	 * graphs hold the strings of their findings (joined into these).
	 */
	struct analysis *earlier;
	size_t nr_earlier;
};

/*
 * Run the whole pipeline with root sets @roots. Returns 0, -EINTR (interrupted), -EIO (the facts database could not be
 * written: exit 3) or another negative errno (bad input: exit 2), the
 * message in @err.
 */
int analysis_run(struct analysis *a, const struct analysis_opts *o,
		 const struct root_sets *roots, char *err, size_t errlen);
void analysis_free(struct analysis *a);
/* The run's summary: pointers to its stages' counts. */
void analysis_summary(const struct analysis *a, struct summary *s);

/* One TU parsed alone (the CHECK protocol, prog.h: cmd_check()). */
struct one_tu {
	const char *root;		/* the tree, for relative paths */
	struct claims *claims;		/* header bodies other TUs have */
	struct flag_warnings *warnings;
	const char *fault;		/* extract_opts.fault (tests) */
	unsigned int timeout;		/* seconds; 0: none */
};

/*
 * Parse @e with @args in a worker process into @facts. Returns 0, or -1
 * with why in *@why (new) when the parser crashed or timed out.
 */
int analysis_parse_one(const struct compdb_entry *e,
		       struct clang_args *args, const struct one_tu *o,
		       struct tu_facts *facts, char **why);
/* SIGINT or SIGTERM arrived during the last analysis_run(). */
bool analysis_interrupted(void);

/*
 * Print, for every entry that would be parsed, the equivalent plain clang
 * command ("clang -fsyntax-only ARGS FILE", shell-quoted, run from the
 * tree): the parse floor the benchmark compares against, and a way to
 * reproduce a TU's parse by hand.
 */
int analysis_print_commands(const char *compdb, FILE *out, char *err,
			    size_t errlen);

#endif /* TRAPCHECK_ANALYZE_H */
