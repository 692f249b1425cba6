/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Branch conditions: the condition that guards a call or a sink, as
 * normalised atoms ("!crng_ready()", "!preemptible()"), and what they mean
 * (checker/model/phases.def): the boot phase, a preemption guard.
 */
#ifndef TRAPCHECK_GUARDS_H
#define TRAPCHECK_GUARDS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Atoms of a condition given as tokens, true (@negated false) or false
 * (@negated true) on the guarded path. likely()/unlikely() and outer
 * parentheses are dropped; "a && b" gives two atoms when true, "a || b"
 * two negated atoms when false; anything else is one atom. On the side
 * the code marks unlikely (unlikely(c) true, likely(c) false) one more
 * atom follows, the condition as written: "<rare: !likely(src)>"
 * (conditions.h: a rare condition). Atoms are appended to @out joined by
 * " && " (which may be empty); returns the number of atoms added.
 */
size_t guard_atoms(const char *const *toks, size_t n, bool negated,
		   char **out);

/*
 * C source text as tokens (a new array of new strings, *@n of them), for
 * conditions that exist only as text (clang's printing of an expression
 * inside a macro body).
 */
char **guard_tokens(const char *text, size_t *n);

/*
 * The positions of token @op among @toks outside brackets (parentheses
 * and square brackets), the first @max of them; returns how many.
 */
size_t guard_split(const char *const *toks, size_t n, const char *op,
		   size_t *at, size_t max);

/* Join tokens as C source with no layout: "!crng_ready()". */
char *guard_join(const char *const *toks, size_t n);

enum guard_kind {
	GUARD_NONE = 0,
	GUARD_BOOT,		/* before the CRNG or capabilities are ready */
	GUARD_NOT_PREEMPTIBLE,	/* !preemptible() */
	GUARD_CAPS_UNFINALIZED,	/* !system_capabilities_finalized() */
	GUARD_PERIODIC,		/* an interval has passed: rate-limited */
	GUARD_ARGUMENT,		/* one value of a parameter (a switch case) */
};

/* A line of checker/model/phases.def or an architecture's phases.def. */
struct guard_def {
	const char *atom;
	enum guard_kind kind;
};

/*
 * Regions where the CPU cannot be preempted (checker/model/regions.def), and
 * the atom each adds to the guards of what runs inside.
 */
enum region_kind { REGION_IRQ, REGION_PREEMPT, REGION_LOCK, REGION_KINDS };
extern const char *const guard_region_atom[REGION_KINDS];

/* Does the " && "-joined @guards contain an atom of kind @kind? */
bool guards_have(const char *guards, enum guard_kind kind);
/* The boot phase: an atom of the phase table holds. */
bool guards_boot(const char *guards);
/* Rate-limited: an atom says an interval has passed since last time. */
bool guards_periodic(const char *guards);
/*
 * Compiled out: an atom is "<never: COND>", a condition the compiler
 * folds to the constant that rules the site out under the build's
 * configuration (clang/extract-body.c). Such a site never runs.
 */
bool guards_never(const char *guards);
/* The first atom of kind @kind in @guards, as a new string, or NULL. */
char *guards_find(const char *guards, enum guard_kind kind);

#endif /* TRAPCHECK_GUARDS_H */
