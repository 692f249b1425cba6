/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one route for findings: rules fill a struct finding, every emitter
 * (text, JSON, SARIF, ...) prints the same struct, and what later stages
 * say of one is its note beside it.
 */
#ifndef TRAPCHECK_FINDING_H
#define TRAPCHECK_FINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/base/util.h"
#include "trapcheck/graph/graph.h"

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
	/* A step lies in KVM host code: a nested host's read. */
	bool nested;
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

/*
 * How sure the finding is, and why it may be only a note (a note is what
 * finding_low() says of it).
 */
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
	/*
	 * Why KVM as the outer hypervisor never runs the chain in its guest
	 * (what it does for the guest's request: rules/outer.c), or NULL:
	 * such a finding is a note.
	 */
	char *not_in_kvm;
	/*
	 * Why no chain runs in the finding's phase from its root set (a
	 * read before the capabilities are finalized that only user-space
	 * entries reach: rules.c), or NULL: such a finding is a note.
	 */
	char *not_then;
	/*
	 * Why no guest of the machine profile runs the chain (a driver
	 * whose devices it has none of: rules/machine.c), or NULL: such a
	 * finding is a note.
	 */
	char *no_device;
	/*
	 * Why the chain may run only on machines of the profile not known
	 * to lack what it needs (a device property that only some of its
	 * machines are sourced to have: rules/machine.c), or NULL: such a
	 * finding is a note.
	 */
	char *machine_doubt;
	unsigned int inferred;	/* calls on the chain inferred through a
				 * struct member or a registration */
};

/*
 * The rate (rules/estimate.c): per operation of the root set (its "per:"
 * line, "page fault"), or, when every chain needs a rare condition, per
 * that event ("SError exit"): value reads per one, from the loops of the
 * chain (loop_guess: the factor holds the guess for loops of unknown
 * bound). finding_estimate() makes it reads a second with the root set's
 * weight (steady phase), or reads per call of the root set until the
 * guard flips (boot phase).
 */
struct finding_rate {
	double weight, loops;
	bool loop_guess;
	const char *per;
	double value;
	/*
	 * Call paths from the root that all run in one operation (the
	 * chain and the other chains that part from it at call sites no
	 * condition guards, in one function): value adds up their loop
	 * factors.
	 */
	unsigned int paths;
};

/*
 * A site on a hot path, as a rule and the engine make it: which rule,
 * the site (its place, sink and argument: the graph's) in its function,
 * from which root set, in which phase, by which chains; what it reads,
 * how sure it is, how often it runs. What later stages say of it (a fix,
 * a waiver, a series' patch, configurations, a trace's count) is kept
 * beside it: struct finding_note.
 */
struct finding {
	const char *rule;
	const struct gsink *site;	/* where, what sink, which argument */
	const struct gnode *fn;		/* the function holding it */
	const char *root;	/* root set name, or NULL (no hot path) */
	const char *phase;	/* "boot" or "steady" */
	char *message;
	/* The shortest chain first, then one through each other caller. */
	struct chain *chains;
	size_t nr_chains;
	/* The same site from other root sets (one finding per site). */
	struct finding *also;
	size_t nr_also;

	struct finding_read read;
	struct finding_doubt doubt;
	struct finding_rate rate;
};

/*
 * What the report stage and trapcheck trace say of a finding, kept beside
 * it in its list (struct findings), keyed by its fingerprint and place.
 */
struct finding_note {
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
	/*
	 * trapcheck trace: how often a hypervisor trace saw the site's line
	 * trap (0: not observed) and its share of the trace's traps.
	 */
	bool has_measured;
	unsigned long measured;
	double measured_share;
};

struct findings {
	struct finding *v;
	size_t nr, alloc;
	/* Its findings' notes, by fingerprint and place (finding_note()). */
	struct finding_note *notes;
	size_t nr_notes, alloc_notes;
	struct strmap note_index;
};

/* The note of @f in @fs, made when it has none. */
struct finding_note *finding_note(struct findings *fs,
				  const struct finding *f);
/* The note of @f in @fs, or NULL. */
const struct finding_note *finding_note_of(const struct findings *fs,
					   const struct finding *f);

/* Where @f is, for a "%s:%u:%u" of printf(): its site's file, line, column. */
#define FINDING_AT(f)	(f)->site->file, (f)->site->line, (f)->site->col
/* The sink called or expanded there: "read_cpuid", "this_cpu_has_cap". */
const char *finding_sink(const struct finding *f);
/*
 * "nested" when every chain of @f (and of each finding in its also[])
 * runs through KVM host code, else "guest".
 */
const char *finding_context(const struct finding *f);
/*
 * Low confidence, a note: more than one inferred call on its chain, only
 * for one argument value, a read that may not exit, a chain the outer
 * hypervisor never lets run, one no machine of the profile is known to
 * run, or only under a rare condition; and so are
 * all the root sets' findings of its site (also[]).
 */
bool finding_low(const struct finding *f);
/*
 * The guards of the first step of its first chain (or the site) that hold
 * only for one value of an argument (guards.h GUARD_ARGUMENT), or NULL:
 * none, or the constants the chain passes make them hold (args.h).
 */
const char *finding_only_when(const struct finding *f);
/* Every chain needs a rare condition: the rate is per that event. */
bool finding_rare_only(const struct finding *f);
/*
 * Not rare, but a condition of its first chain narrows the root set's
 * operation (conditions.def SUBSET): the rate is per those.
 */
bool finding_subset(const struct finding *f);
/* The boot phase: the estimate is reads per call, not a rate. */
bool finding_per_boot(const struct finding *f);
/* Reads a second (steady phase) or per call until the guard flips. */
double finding_estimate(const struct finding *f);

/*
 * A chain as text: "a -> b (as m) -> c (via ops.member)"; with @calls,
 * "a() -> b() (as m()) -> c() (via ops.member)" (new).
 */
char *finding_chain_text(const struct chain *c, bool calls);

/*
 * The configurations of a finding's note (trapcheck report --db
 * NAME=FILE) as text, " (defconfig only)" or "" when every configuration
 * has it or none was named (as JSON: output/json.h).
 */
char *finding_configs_text(const struct finding_note *n);
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
/* The same, its function's file and its ordinal given (a rename). */
char *finding_fingerprint_as(const struct finding *f, const char *file,
			     unsigned int ordinal);
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
/* The same, the findings @keep drops moved to @out (NULL: freed). */
void findings_filter_into(struct findings *fs,
			  bool (*keep)(const struct finding *f, void *data),
			  void *data, struct findings *out);
void finding_free(struct finding *f);
/* Worst first (findings_sort()), or by place, rule and root set only. */
void findings_sort(struct findings *fs);
int finding_site_cmp(const void *a, const void *b);
void findings_free(struct findings *fs);

#endif /* TRAPCHECK_FINDING_H */
