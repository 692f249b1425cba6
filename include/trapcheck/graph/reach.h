/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reachability: a walk from every root of a set gives, for each function,
 * its most believable call chain from the set: the fewest calls under a
 * rare condition, then the fewest inferred through struct members or
 * registrations, then the fewest calls.
 */
#ifndef TRAPCHECK_REACH_H
#define TRAPCHECK_REACH_H

#include "trapcheck/graph/graph.h"
#include "trapcheck/input/roots.h"

#define REACH_ROOT	(-1)	/* the node is one of the set's roots */
#define REACH_NONE	(-2)	/* not reachable from the set */

struct reach {
	const struct root_set *set;
	bool steady;		/* boot-phase edges were not followed */
	int *parent;		/* per node: the edge that reached it */
	unsigned int *depth;
	unsigned int *inferred;	/* per node: inferred calls on its chain */
	unsigned int *rare;	/* per node: rare calls on its chain */
	size_t nr_roots;	/* roots of the set present in the graph */
	size_t stopped;		/* calls into other sets' entry points */
};

/*
 * @steady: follow only call edges with a steady-phase site, so that
 * everything reached is reached outside the boot phase. @stop (or NULL):
 * nodes the walk does not enter, the entry points of other root sets
 * (reach_stops()). @members (or NULL: worked out here): @set's
 * reach_members().
 */
void reach_compute(const struct graph *g, const struct root_set *set,
		   bool steady, const bool *stop, const bool *members,
		   struct reach *r);
/*
 * Per node of @g: is it one of @set's roots, listed by name or registered
 * (regroots.h)? A new array; reach_compute() starts from those defined.
 */
bool *reach_members(const struct graph *g, const struct root_set *set);
/*
 * Per node of @g: is it a root of a set of @sets other than @sets->sets[
 * @set] (and not of that one)? A new array. @members (or NULL): each
 * set's reach_members(), made once for every set's walk.
 */
bool *reach_stops(const struct graph *g, const struct root_sets *sets,
		  size_t set, bool *const *members);
/*
 * Every set's walks, REACH_WALKS of them at @out[REACH_WALKS * j + kind]:
 * steady, any, and early (any phase, from the entries user space does not
 * enter: roots_user_entry(); left zeroed, parent NULL, when the set has
 * none, for it would be the any walk), each stopped at the other sets'
 * entry points: in threads, one per CPU (at most REACH_MAX_THREADS), the
 * graph read only. Each walk is the same as reach_compute() makes alone.
 */
enum { REACH_STEADY, REACH_ANY, REACH_EARLY, REACH_WALKS };
#define REACH_MAX_THREADS	8
void reach_compute_sets(const struct graph *g, const struct root_sets *sets,
			struct reach *out);
void reach_free(struct reach *r);
static inline bool reach_has(const struct reach *r, int node)
{
	return r->parent[node] != REACH_NONE;
}
/*
 * The edges from a root to @node, root first, in a new array; returns
 * their number (0 when @node is a root itself).
 */
size_t reach_chain(const struct graph *g, const struct reach *r, int node,
		   int **edges);

#endif /* TRAPCHECK_REACH_H */
