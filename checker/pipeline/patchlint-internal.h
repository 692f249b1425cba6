/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patchlint-internal.h - what the two files of the patch lint share (not
 * public API: include/trapcheck/pipeline/patchlint.h is):
 *
 *   patchlint.c       the run: the patched tree analysed, its findings
 *                     compared with the tree's
 *   patchlint-read.c  the diff read and applied in memory (calls nothing
 *                     of patchlint.c)
 */
#ifndef TRAPCHECK_PATCHLINT_INTERNAL_H
#define TRAPCHECK_PATCHLINT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "trapcheck/finding/edit.h"
#include "trapcheck/base/util.h"

/* A file of the patch, with its text as patched so far. */
struct pfile {
	char *rel;		/* relative to the tree */
	struct src_file src;	/* the tree's text (empty for a new file) */
	size_t next;		/* the first line of src not copied yet */
	struct bytes out;	/* the patched text */
	unsigned int out_lines;	/* lines in out so far */
	unsigned int *added;	/* lines of out the patch added (1-based) */
	size_t nr_added, alloc_added;
	bool created;
	bool removed;		/* renamed away or deleted: empty now */
};

/*
 * git's extended header lines of the file being read ("rename from",
 * "copy to", ...): paths relative to the top of the repository.
 */
struct git_ext {
	char *from, *to;
	bool rename, copy;
	bool applied;		/* its "+++ " line came */
};

/* A file the patch renames: the tree's findings there are at @to now. */
struct rename {
	char *from, *to;
};

/*
 * A file as the earlier patches of a series left it: its text, or gone
 * (@text NULL). Read instead of the tree's file.
 */
struct lint_file {
	char *rel;
	char *text;
	size_t len;
};

struct lint {
	const char *patch, *root;
	const struct lint_file *base;	/* the series so far, or NULL */
	size_t nr_base;
	struct rename *renames;
	size_t nr_renames, alloc_renames;
	char *real_root;	/* the tree, symbolic links resolved */
	unsigned int lineno;
	int strip;		/* path components to drop, once known */
	struct pfile *files;
	size_t nr_files, alloc_files;
	size_t headers;		/* "diff --git" and "---" lines seen */
	struct git_ext ext;
	char *err;
	size_t errlen;
};

/*
 * Read the whole patch @f, applying each file's hunks as they come into
 * @l->files; 0, or -EINVAL with "PATCH:LINE: why" in @l->err.
 */
int patchlint_read(struct lint *l, FILE *f);

#endif /* TRAPCHECK_PATCHLINT_INTERNAL_H */
