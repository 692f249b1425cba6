/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baselines and waivers: what CI has already seen, and what a maintainer
 * has reviewed and accepted.
 *
 * A baseline is a JSON file of finding fingerprints (finding.h); with it,
 * only findings not in it are reported and set the exit status.
 *
 * A waiver is a comment in the source, on the sink's line or in the
 * comment block at the head of the function,
 *	/\* trapcheck: allow <rule>: <reason> *\/
 * or a line of a waivers file: "<rule> <function | file:line> <reason>".
 * A waiver without a reason is an error.
 */
#ifndef TRAPCHECK_BASELINE_H
#define TRAPCHECK_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/finding/finding.h"

/* What a baseline and the waivers took away, for the summary. */
struct baseline_stats {
	bool baseline;		/* a baseline was applied */
	size_t known, fixed;	/* in the baseline: still found, gone */
	size_t waived;
};

/*
 * Write @fs's fingerprints to @path, each with its file, line and the
 * hashes of the line's text read under @root (NULL: none).
 */
int baseline_write(const char *path, const char *root,
		   const struct findings *fs, char *err, size_t errlen);
/*
 * Drop from @fs the findings whose fingerprint is in the baseline at
 * @path; count them and the baseline's entries no longer found in @st.
 * Where the baseline has line hashes, each site is paired with one entry
 * by its text under @root, then by order (a new read added above an old
 * one of the same function is the new one).
 */
int baseline_apply(const char *path, const char *root, struct findings *fs,
		   struct baseline_stats *st, char *err, size_t errlen);

struct waiver {
	char *rule;
	char *func;		/* a function name, or NULL */
	char *file;		/* or file:line */
	unsigned int line;
	char *reason;
	char *origin;		/* "waivers:3" or "file.c:12" */
};

struct waivers {
	struct waiver *v;
	size_t nr, alloc;
};

int waivers_load(struct waivers *w, const char *path, char *err,
		 size_t errlen);
void waivers_free(struct waivers *w);
/*
 * Mark the findings of @fs waived by @w or by their source's comments
 * (files read from @root). Waived findings are dropped unless @keep.
 * Returns 0, or -EINVAL after printing each waiver without a reason.
 */
int waivers_apply(const struct waivers *w, const char *root,
		  struct findings *fs, struct baseline_stats *st, bool keep);

#endif /* TRAPCHECK_BASELINE_H */
