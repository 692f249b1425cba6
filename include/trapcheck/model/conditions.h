/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When code runs: the atoms of the conditions on a chain (guards.h),
 * classified by kind from checker/model/conditions.def and the run's
 * architecture's conditions.def, and the execution mode its files imply
 * (the architecture's MODE_PATH lines: KVM's nVHE and VHE hyp objects).
 */
#ifndef TRAPCHECK_CONDITIONS_H
#define TRAPCHECK_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>

enum cond_kind {
	COND_OTHER,
	COND_RARE,
	COND_FLAG,
	COND_MODE,
	COND_FEATURE,
	COND_ARGUMENT,
	COND_SUBSET,
	COND_MACHINE,
	COND_CPU,
	COND_KINDS,
};

/*
 * "other", "rare", "flag", "mode", "feature", "argument", "subset",
 * "machine", "cpu"
 */
extern const char *const cond_kind_names[COND_KINDS];

/* A line of a conditions.def. */
struct cond_def {
	enum cond_kind kind;
	const char *pattern;
	const char *when_true, *when_false;
};

/* A line of an architecture's MODE_PATH table. */
struct mode_path {
	const char *prefix;	/* relative to the source tree */
	const char *mode;
};

/*
 * The kind of one atom ("!likely(src)", "has_vhe()"), and what it means in
 * *@label (a table's text, or NULL).
 */
enum cond_kind cond_classify(const char *atom, const char **label);
/*
 * The same for an atom of @guards: a rare one is not rare in the boot
 * phase (a guard of phases.def holds), where the branch the code marks
 * unlikely is the boot's common path.
 */
enum cond_kind cond_classify_at(const char *atom, const char *guards,
				const char **label);
/*
 * Does " && "-joined @guards hold a rare atom that makes the site rare?
 * Not in the boot phase (a guard of phases.def holds): there the branch
 * the code marks unlikely is the normal path of the boot. *@label (may
 * be NULL) gets the first one's meaning.
 */
bool cond_rare(const char *guards, const char **label);
/*
 * Does @guards hold a subset atom (conditions.def SUBSET): the read runs
 * for some of the root set's operations, which *@label names?
 */
bool cond_subset(const char *guards, const char **label);
/* The mode code of @file runs in (the architecture's MODE_PATH), or NULL. */
const char *cond_path_mode(const char *file);
/*
 * The CPU families (the architecture's cpus.def: bit k is cpu_names[k])
 * that run code of @file, or have register @reg: every one (~0u) unless
 * a line says fewer. cond_cpu_names(): "Intel, Centaur, Zhaoxin".
 */
unsigned int cond_path_cpus(const char *file);
unsigned int cond_reg_cpus(const char *reg);
char *cond_cpu_names(unsigned int cpus);
/*
 * The atoms of @guards, each a new string, into *@atoms; returns how many.
 * An atom a "<rare: ...>" atom restates is left out: the rare one says it.
 */
size_t cond_atoms(const char *guards, char ***atoms);
/* The text an atom is shown as: "<rare: X>" is X. A new string. */
char *cond_text(const char *atom);
/*
 * A machine's CPU features (--features): "NAME" has it, "!NAME" lacks
 * it, comma-separated, names as the tree spells them (ARM64_HAS_FGT,
 * X86_FEATURE_FRED). Returns 0, or -EINVAL with the item at fault in
 * @err.
 */
int cond_features_check(const char *features, char *err, size_t errlen);
/*
 * Does @features rule out a site under @guards: one atom is a feature
 * test (FEATURE in conditions.def) of one name, "TEST(NAME)" or
 * "!TEST(NAME)", that the list says is false? Names the list does not
 * give, and compound tests, decide nothing.
 */
bool cond_features_rule_out(const char *guards, const char *features);
/* Does " && "-joined @guards hold a feature atom (FEATURE)? */
bool cond_has_feature(const char *guards);

#endif /* TRAPCHECK_CONDITIONS_H */
