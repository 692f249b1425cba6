/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checking a rewrite before anything is written: the patch applies to a
 * scratch copy of the file (patch --dry-run), and the tree re-analysed
 * with the patched files in memory has no TU with more errors, none of
 * the fixed sites left and no finding that was not there before.
 */
#ifndef TRAPCHECK_VERIFY_H
#define TRAPCHECK_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/finding/edit.h"

/* Does @patch apply to @s? Else false and why in *@why (new). */
bool verify_applies(const struct src_file *s, const char *patch,
		    char **why);

/*
 * Re-analyse @a's tree with @u[0..nr_u) in memory. True when no TU has
 * more errors than in @a, none of @fixed's sites is still found and no
 * finding is new; else false and why in *@why (new).
 */
bool verify_reanalysis(const struct analysis *a,
		       const struct analysis_opts *ao,
		       const struct root_sets *roots,
		       const struct unsaved_file *u, unsigned int nr_u,
		       struct finding *const *fixed, size_t nr_fixed,
		       char **why);

/* The same site: rule, function, sink and file. */
bool verify_same_site(const struct finding *a, const struct finding *b);

#endif /* TRAPCHECK_VERIFY_H */
