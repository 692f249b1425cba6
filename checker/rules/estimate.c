// SPDX-License-Identifier: GPL-2.0
/*
 * estimate.c - how often a finding's read runs (docs/diagnostics.md,
 * "How the estimate is made" and "When it runs"): the estimate, and the
 * rate per operation of the root set or per rare event.
 */
#include <string.h>

#include "trapcheck/rules/rules.h"

/*
 * Known constant trip counts multiply, up to ESTIMATE_MAX_LOOPS; loops
 * whose bound is not a constant add one factor of LOOP_GUESS per chain
 * however many there are. Steady phase: the root set's weight (events a
 * second) times that. Boot phase: reads per call of the root set until
 * the guarding condition flips, not a rate.
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

void rules_estimate(struct finding *f, const struct root_set *set)
{
	size_t i;
	bool guess;

	f->rate.loops = loops_from(&f->chain, 0, &f->rate.loop_guess);
	f->rate.weight = set->weight;
	f->rate.per_boot = !strcmp(f->phase, "boot");
	f->rate.estimate = f->rate.per_boot ? f->rate.loops :
					      set->weight * f->rate.loops;
	/*
	 * Per operation: the root set's ("page fault"); when the chain
	 * needs a rare condition, per that event ("SError exit"), counting
	 * the loops from the first step under it on: those around it (the
	 * run loop that takes each exit) repeat the event, not the read
	 * within it.
	 */
	f->rate.rare_only = f->chain.rare > 0;
	f->rate.per = f->rate.rare_only ? f->chain.rare_label :
		      set->per ? set->per : set->name;
	f->rate.value = f->rate.loops;
	f->rate.how = "modelled";
	for (i = 0; f->rate.rare_only && i < f->chain.len; i++)
		if (f->chain.steps[i].rare) {
			f->rate.value = loops_from(&f->chain, i, &guess);
			break;
		}
}
