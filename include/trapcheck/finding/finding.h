/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one route for findings: rules fill a struct finding, every emitter
 * (text, JSON) prints the same struct.
 */
#ifndef TRAPCHECK_FINDING_H
#define TRAPCHECK_FINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/base/util.h"
#include "trapcheck/model/arch.h"

struct pruned;
struct dispatch_stats;

struct chain_step {
	const char *function;
	const char *file;	/* where this function goes on: the call */
	unsigned int line, col;	/* site, or the sink for the last step */
	const char *via;	/* macro the call into this step used, or
				 * the struct member of an inferred call */
	bool inferred;		/* the call into this step is through a
				 * struct member (ops table) */
	unsigned int loop;	/* known trip counts at this step's site */
	unsigned int loop_guess; /* loops of unknown bound around it */
	const char *guards;	/* conditions holding at this step's site */
	bool rare;		/* they hold a rare one (conditions.h) */
};

struct chain {
	struct chain_step *steps;	/* root first, sink function last */
	size_t len;
	/* Steps whose site is under a rare condition; the first's meaning. */
	unsigned int rare;
	const char *rare_label;
	/*
	 * The execution mode its conditions or its code imply ("nVHE
	 * host"), or NULL; two that cannot both hold: mode_conflict.
	 */
	const char *mode;
	bool mode_conflict;
	/* The constants it passes make its argument conditions hold. */
	bool args_hold;
};

/* At most this many other chains, one per other hot caller of the sink. */
#define FINDING_MAX_OTHER_CHAINS 8

/* What the site reads or checks (rules/rule-*.c). */
struct finding_read {
	const char *reg;	/* register read, or NULL */
	const char *trap;	/* its trap class, or NULL */
	const char *cap;	/* capability checked, or NULL */
	const char *field;	/* its register field, or NULL */
	/*
	 * The kernel keeps a copy of reg the code could read instead (the
	 * architecture's advice says which): 1, 0, -1 unknown.
	 */
	int cached;
	const char *mask;	/* the read's value is tested with, or NULL */
	const char *feature;	/* the tree's name of that bit, or NULL */
};

/* How sure the finding is, and why it may be only a note. */
struct finding_doubt {
	/*
	 * Why the read may not exit at all (an MSR on KVM's pass-through
	 * lists), or NULL: such a finding is a note, not a warning.
	 */
	char *unless;
	/*
	 * Why the outer hypervisor never lets the chain run on a nested
	 * host (rules/outer.c), or NULL: such a finding is a note.
	 */
	char *not_offered;
	unsigned int inferred;	/* calls on the chain inferred through a
				 * struct member or a registration */
	bool low;		/* low confidence: more than one of them,
				 * or only_when */
	const char *only_when;	/* guards on the chain holding an atom of
				 * one argument value (guards.h
				 * GUARD_ARGUMENT), or NULL */
};

/*
 * The estimate (rules/estimate.c): steady phase, reads a second: the root
 * set's weight times the loop factor; boot phase (per_boot), reads per
 * call of the root set until the guard flips: the loop factor.
 * loop_guess: the factor holds the guess for loops of unknown bound.
 */
struct finding_rate {
	double estimate, weight, loops;
	bool per_boot, loop_guess;
	/*
	 * The rate per operation of the root set (its "per:" line, "page
	 * fault"), or, when every chain needs a rare condition, per that
	 * event ("SError exit"): value reads per one, how "modelled" (or
	 * "measured", from a trace).
	 */
	const char *per, *how;
	double value;
	bool rare_only;		/* every chain needs a rare condition */
	/*
	 * Call paths from the root that all run in one operation (the
	 * chain and the other chains that part from it at call sites no
	 * condition guards, in one function): value and estimate add up
	 * their loop factors.
	 */
	unsigned int paths;
};

/* What the report stage adds: fixes, series, waivers, configurations. */
struct finding_report {
	char *fix_note;			/* what --fix did, or NULL */
	/* --diff of a series: the subject of the patch that brought it. */
	const char *patch;
	char *waiver;			/* why it is waived, or NULL */
	/*
	 * trapcheck report --db NAME=FILE ...: the configurations whose
	 * databases have this finding (names owned by the analysis); none
	 * when the databases are not named.
	 */
	const char **configs;
	size_t nr_configs;
	bool in_all_configs;	/* every configuration has it */
	/*
	 * When only some have it: the CONFIG_ symbols of its chains' lines
	 * whose values differ between those that have it and the others
	 * ("CONFIG_LRU_GEN"; kconfig.h), where trapcheck can tell.
	 */
	char **config_syms;
	size_t nr_config_syms, alloc_config_syms;
};

/*
 * trapcheck trace: how often a hypervisor trace saw the site's line trap
 * (0: not observed) and its share of the trace's traps.
 */
struct finding_trace {
	bool has_measured;
	unsigned long measured;
	double measured_share;
};

/* A site on a hot path: where, which rule, from which root, by which chain. */
struct finding {
	const char *rule;
	const char *file;
	unsigned int line, col;
	const char *function;	/* the function holding the sink */
	bool func_static;	/* internal linkage: named with its file */
	const char *func_file;	/* where the function is defined */
	unsigned int func_line;
	const char *sink;	/* read_cpuid, this_cpu_has_cap, ... */
	const char *site_arg;	/* the sink's argument as written, or NULL */
	unsigned int ordinal;	/* the site's place in its function (the
				 * graph's gsink.ordinal) */
	const char *root;	/* root set name, or NULL (no hot path) */
	const char *phase;	/* "boot" or "steady" */
	const char *context;	/* "guest", or "nested": a KVM host's read */
	char *message;
	struct chain chain;		/* the shortest */
	struct chain *others;		/* through the sink's other callers */
	size_t nr_others;
	/* The same site from other root sets (one finding per site). */
	struct finding *also;
	size_t nr_also;

	struct finding_read read;
	struct finding_doubt doubt;
	struct finding_rate rate;
	struct finding_report report;
	struct finding_trace trace;
};

struct findings {
	struct finding *v;
	size_t nr, alloc;
	struct strpool *pool;	/* strings owned by the list, or NULL */
};

struct tu_problem {
	char *file;
	unsigned int nr_errors;
	char *first_error;
	int parse_error;	/* nonzero: no TU was built */
};

struct run_summary {
	size_t entries;		/* compile database entries */
	size_t tus;		/* TUs analysed */
	size_t parsed;		/* handed to libclang in this run */
	size_t from_db;		/* facts read back from the database */
	size_t removed;		/* TUs dropped from the database */
	bool stored_link;	/* the graph read whole from the database */
	size_t skipped;		/* not C, host programs, unknown compiler */
	size_t shard_of;	/* --shard: the entries of every shard */
	size_t duplicates;	/* report: TUs in more than one database */
	size_t functions, edges, sinks;
	struct tu_problem *problems;	/* TUs with errors, in db order */
	size_t nr_problems, alloc_problems;

	/* What the architecture read from the tree's own tables. */
	struct tables_stats tables;

	/* Calls through struct members (graph.h): inferred and pruned. */
	size_t inferred;
	size_t stopped;		/* calls into other root sets' entries */
	size_t args_refuted;	/* sites ruled out by constants passed */
	char refuted_ex[4][160];	/* the first: "file:line in fn()" */
	size_t nr_refuted_ex;
	size_t rate_limited;	/* calls and sinks under a deadline test */
	size_t ruled_out;	/* calls and sinks the --features rule out */
	const char *features;	/* --features, or NULL */
	size_t masked_across;	/* sites masked by a callee's entry state */
	const struct dispatch_stats *dispatch;	/* owned by the graph */
	size_t low;		/* sites of low confidence, not warned of */
	const struct pruned *pruned;	/* owned by the graph */
	size_t nr_pruned, max_targets;

	/* Filled by the report stage: baseline and waivers. */
	bool baseline;
	size_t known, fixed;	/* in the baseline: still found, gone */
	size_t waived;
};

/*
 * A chain as text: "a -> b (as m) -> c (via ops.member)"; with @calls,
 * "a() -> b() (as m()) -> c() (via ops.member)" (new).
 */
char *finding_chain_text(const struct chain *c, bool calls);

/*
 * The configurations of a finding (trapcheck report --db NAME=FILE) as
 * text, " (defconfig only)" or "" when every configuration has it or none
 * was named (as JSON: output/json.h).
 */
char *finding_configs_text(const struct finding *f);
/*
 * "about N reads per <operation> (its root set's operation; loops L)",
 * or the boot phase's "boot phase: about N reads per call from ROOT
 * until the guard flips (...); not a rate" (new): the text, the HTML page.
 */
char *finding_rate_text(const struct finding *f);

/*
 * The stable fingerprint of a finding, unique per site and root set and
 * without line numbers, so that it survives unrelated edits: the text
 * form is "rule:function:sink:argument:root:N", where function is
 * "name@file" for a static function, argument the sink's as written
 * (register or capability; "-" for none) and N the site's ordinal among
 * its function's sites of that sink and argument (1 for the first in
 * source order). The hash is its 64-bit FNV-1a in hex, for SARIF's
 * partialFingerprints. finding_fingerprint_v1() is the form of version
 * 1 baselines, "rule:function:sink:register:root", which two sites in
 * one function could share (baseline.c reads it by line).
 */
char *finding_fingerprint(const struct finding *f);
char *finding_fingerprint_hash(const struct finding *f);
char *finding_fingerprint_v1(const struct finding *f);

/*
 * By mode: for each (mode, root set), how many of a site's chains run in
 * it (its own, its other chains, those of the other root sets); a chain
 * that needs two modes at once never runs and is not counted. A new
 * array of *@nr.
 */
struct mode_count {
	const char *mode, *root, *per;
	unsigned int chains;
};

struct mode_count *finding_modes(const struct finding *f, size_t *nr);

/* Drop the findings @keep says no to, freeing them. */
void findings_filter(struct findings *fs,
		     bool (*keep)(const struct finding *f, void *data),
		     void *data);
void finding_free(struct finding *f);
/* Worst first (findings_sort()), or by place, rule and root set only. */
void findings_sort(struct findings *fs);
int finding_site_cmp(const void *a, const void *b);
void findings_free(struct findings *fs);
void run_summary_free(struct run_summary *s);

#endif /* TRAPCHECK_FINDING_H */
