/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Patch lint: what a unified diff (git format-patch, git diff, diff -u,
 * diff -up) would add to the tree's hot paths, before the tree is
 * rebuilt. The patch is applied in memory; the TUs it touches, or that
 * include a header it touches, are parsed again with the patched text
 * (the others keep their facts), and the same rules as a full run find
 * what the patched tree has that the tree has not: a new site, a site
 * newly reached from a root set, or a site whose guard the patch took
 * away (boot phase before, steady after). A new rule is linted in patches
 * with no extra code.
 */
#ifndef TRAPCHECK_PATCHLINT_H
#define TRAPCHECK_PATCHLINT_H

#include <stddef.h>

#include "trapcheck/pipeline/analyze.h"

/*
 * Lint @patch ("-": stdin) against @a, the analysis of the tree as it is
 * (made with @ao and @roots): @b becomes the analysis of the patched
 * tree, its findings only those the patch adds (at the patched tree's
 * lines). A series (an mbox of git format-patch mails) is linted patch
 * by patch, each on the ones before it, each finding naming in
 * finding.patch the patch that brought it.
 * Returns 0, or a negative errno with a one-line message in @err (and
 * nothing in @b to free): the patch could not be read, names a path
 * outside the tree, or does not apply.
 */
int patchlint_run(const char *patch, const struct analysis *a,
		  const struct analysis_opts *ao,
		  const struct root_sets *roots, struct analysis *b,
		  char *err, size_t errlen);

/*
 * The same for the commits of @range ("A..B") of the tree's git
 * repository, one by one, as a series (gitinfo.h): the work tree may
 * be at A or at B; the files that differ from A are read as A has them
 * first.
 */
int patchlint_range(const char *range, const struct analysis *a,
		    const struct analysis_opts *ao,
		    const struct root_sets *roots, struct analysis *b,
		    char *err, size_t errlen);

#endif /* TRAPCHECK_PATCHLINT_H */
