/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patch lint: read a unified diff (git format-patch or diff -u) against
 * the analysed tree and report what it would add before the tree is
 * rebuilt: a trapping read or a local-CPU capability check in a function
 * that the tree's call graph already places on a hot path, or the removal
 * of a !preemptible() guard from a branch taken before capabilities are
 * finalized.
 */
#ifndef TRAPCHECK_PATCHLINT_H
#define TRAPCHECK_PATCHLINT_H

#include <stddef.h>

#include "trapcheck/finding.h"
#include "trapcheck/graph.h"
#include "trapcheck/roots.h"

/*
 * Lint @patch against @g. Findings go to @out. Returns 0, or a negative
 * errno with a one-line message in @err (the patch could not be read).
 */
int patchlint_run(const char *patch, const struct graph *g,
		  const struct root_sets *roots, struct findings *out,
		  char *err, size_t errlen);

#endif /* TRAPCHECK_PATCHLINT_H */
