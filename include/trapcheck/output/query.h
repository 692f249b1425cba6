/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Graph queries, the ones Smatch users ask most of its database:
 * callers and callees of a function, the shortest path between two
 * functions, and why a line is reported (which roots reach it, and how).
 */
#ifndef TRAPCHECK_QUERY_H
#define TRAPCHECK_QUERY_H

#include <stdbool.h>
#include <stdio.h>

#include "trapcheck/graph/graph.h"
#include "trapcheck/input/roots.h"

/*
 * Each returns 0 when it found something, 1 when not, -ENOENT when a
 * function it names is not in the graph, -EINVAL for a bad argument.
 */
/* Is there a function named @fn in @g? */
bool query_known(const struct graph *g, const char *fn);
int query_callers(FILE *out, const struct graph *g, const char *fn);
int query_callees(FILE *out, const struct graph *g, const char *fn);
int query_path(FILE *out, const struct graph *g, const char *from,
	       const char *to);
int query_why(FILE *out, const struct graph *g, const struct root_sets *rs,
	      const char *file_line);

#endif /* TRAPCHECK_QUERY_H */
