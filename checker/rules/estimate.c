// SPDX-License-Identifier: GPL-2.0
/*
 * estimate.c - how often a finding's read runs (docs/diagnostics.md,
 * "How the estimate is made" and "When it runs"): the estimate, and the
 * rate per operation of the root set or per rare event.
 */
#include <string.h>

#include "trapcheck/model/conditions.h"
#include "trapcheck/rules/rules.h"

/*
 * Known constant trip counts multiply, up to ESTIMATE_MAX_LOOPS; loops
 * whose bound is not a constant add one factor of LOOP_GUESS per chain
 * however many there are. Steady phase: the root set's weight (events a
 * second) times that, summed over the call paths that all run in one
 * operation (chains_add_up()). Boot phase: reads per call of the root
 * set until the guarding condition flips, not a rate.
 */
#define ESTIMATE_MAX_LOOPS	1024
#define LOOP_GUESS		4

/* The loop factor of the steps of @c from @from on; *@guess: guessed. */
static double loops_from(const struct chain *c, size_t from, bool *guess)
{
	double known = 1;
	size_t i;

	*guess = false;
	for (i = from; i < c->len; i++) {
		known *= c->steps[i].loop ? c->steps[i].loop : 1;
		*guess |= c->steps[i].loop_guess > 0;
	}
	if (known > ESTIMATE_MAX_LOOPS)
		known = ESTIMATE_MAX_LOOPS;
	return known * (*guess ? LOOP_GUESS : 1);
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool unguarded(const struct chain_step *s)
{
	return !s->guards || !*s->guards;
}

/*
 * Do chains @a and @b both run in one call of their root? The same root
 * function, the same mode, neither under a rare condition, and where they
 * part, in one function, two call sites that no condition guards (the
 * world switch calls __debug_switch_to_guest() and, later,
 * __debug_switch_to_host(); both reach the sink). Sites under conditions
 * may be alternatives (a switch's cases): not added up.
 */
static bool chains_add_up(const struct chain *a, const struct chain *b)
{
	size_t k;

	if (!a->len || !b->len || a->rare || b->rare ||
	    !same_text(a->mode, b->mode))
		return false;
	for (k = 0; k < a->len && k < b->len; k++)
		if (!same_text(a->steps[k].function, b->steps[k].function) ||
		    !same_text(a->steps[k].file, b->steps[k].file) ||
		    a->steps[k].line != b->steps[k].line ||
		    a->steps[k].col != b->steps[k].col)
			break;
	if (k == a->len || k == b->len)
		return false;
	/* Parted at step k: the same function, two of its call sites. */
	return same_text(a->steps[k].function, b->steps[k].function) &&
	       same_text(a->steps[k].file, b->steps[k].file) &&
	       unguarded(&a->steps[k]) && unguarded(&b->steps[k]);
}

void estimate_finding(struct finding *f, const struct root_set *set)
{
	const struct chain *c = &f->chains[0];
	bool rare_only = c->rare > 0;
	size_t i;
	bool guess;

	f->rate.loops = loops_from(c, 0, &f->rate.loop_guess);
	f->rate.weight = set->weight;
	/*
	 * Per operation: the root set's ("page fault"); when the chain
	 * needs a rare condition, per that event ("SError exit"), counting
	 * the loops from the first step under it on: those around it (the
	 * run loop that takes each exit) repeat the event, not the read
	 * within it.
	 */
	f->rate.per = rare_only ? c->rare_label :
		      set->per ? set->per : set->name;
	/* Some of them only, not rarely: per those (conditions.def). */
	for (i = 0; !rare_only && i < c->len; i++)
		if (cond_subset(c->steps[i].guards, &f->rate.per))
			break;
	f->rate.value = f->rate.loops;
	for (i = 0; rare_only && i < c->len; i++)
		if (c->steps[i].rare) {
			f->rate.value = loops_from(c, i, &guess);
			break;
		}
	f->rate.paths = 1;
	for (i = 1; !rare_only && !finding_per_boot(f) && i < f->nr_chains;
	     i++)
		if (chains_add_up(c, &f->chains[i])) {
			f->rate.value += loops_from(&f->chains[i], 0, &guess);
			f->rate.loop_guess |= guess;
			f->rate.paths++;
		}
}
