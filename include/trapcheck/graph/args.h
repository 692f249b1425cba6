/* SPDX-License-Identifier: GPL-2.0 */
/*
 * args.h - constants carried along chains: what calls pass (a literal, an
 * enum constant, true, false, NULL, or the caller's parameter passed on;
 * gedge.consts) decides a condition on a parameter at a later site
 * ("if (!src)", "if (reg == 3)", "switch (reg) { case CSSELR_EL1: }").
 */
#ifndef TRAPCHECK_GRAPH_ARGS_H
#define TRAPCHECK_GRAPH_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/graph/graph.h"

enum args_verdict {
	ARGS_NONE,		/* no condition on a parameter */
	ARGS_UNKNOWN,		/* some are not decided by the constants */
	ARGS_HOLD,		/* each holds for values some site passes */
	ARGS_FAIL,		/* one is false for every value passed */
};

/*
 * What the constants passed along the chain of @n edges (the first
 * edge's caller entered with nothing known; n == 0: @s's function alone)
 * say of the conditions on parameters at its sites and at the sink @s.
 */
enum args_verdict args_chain(const struct graph *g, const int *edges,
			     size_t n, const struct gsink *s);

/* Where args_search() may start a way, and which calls it may take. */
struct args_ways {
	/* A way from a root to @node (a new array of edges), or false. */
	bool (*way_in)(void *data, int node, int **edges, size_t *n);
	bool (*edge_ok)(void *data, int edge);
	void *data;
};

/*
 * Going back from @s's function, a way in whose constants make every
 * condition on a parameter hold: ARGS_HOLD, its edges (root first) in
 * *@out. Else ARGS_UNKNOWN, the shortest way not decided in *@out (or
 * *@out NULL when the search was cut short), or ARGS_FAIL: every way in
 * passes values that make a condition false.
 */
enum args_verdict args_search(const struct graph *g, const struct gsink *s,
			      const struct args_ways *w, int **out,
			      size_t *n);

#endif /* TRAPCHECK_GRAPH_ARGS_H */
