/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fix patches. A rule that knows a safe rewrite fills a struct fix_edit
 * (edit.h) from the source lines around its finding; this module checks
 * each edit (verify.h: patch --dry-run on a scratch copy, a re-analysis
 * with the patched file in memory: same or fewer errors in every TU, the
 * finding gone, no new finding) and prints, writes (patch.h: git
 * format-patch files) or applies only the verified ones.
 */
#ifndef TRAPCHECK_FIX_H
#define TRAPCHECK_FIX_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/output/patch.h"
#include "trapcheck/input/roots.h"

struct fix_opts {
	const char *dir;	/* --fix-dir: write one patch per fix here */
	bool print;		/* --fix: print the diffs on stdout */
	bool apply;		/* --apply: apply verified fixes in place */
	struct patch_meta meta;	/* author, --signoff, date */
	bool verify;		/* re-analyse (tests may turn it off) */
	struct fix_sites *sites;	/* set: the verified fixes, in order */
};

/*
 * Compute, verify and emit the fixes for the findings of @a. Each
 * finding's fix_note says what happened to it. Returns the number of
 * patches written or applied, or a negative errno with a message.
 */
int fixes_run(struct analysis *a, const struct analysis_opts *ao,
	      const struct root_sets *roots, const struct fix_opts *fo,
	      char *err, size_t errlen);

#endif /* TRAPCHECK_FIX_H */
