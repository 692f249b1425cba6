/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fix as the kernel takes it: a git format-patch file, its commit
 * message saying why (the rule's text and the chain that makes the site
 * hot), and its file name.
 */
#ifndef TRAPCHECK_PATCH_H
#define TRAPCHECK_PATCH_H

#include <stddef.h>
#include <time.h>

#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"

/* Who and when: the program reads them (GIT_AUTHOR_*, SOURCE_DATE_EPOCH). */
struct patch_meta {
	const char *author;	/* "Name <mail>" */
	const char *signoff;	/* a Signed-off-by line's, or NULL */
	time_t date;
};

/* What git knows of one patch's file (gitinfo.h); each may be NULL. */
struct patch_git {
	const char *index;	/* "index <old>..<new> <mode>" */
	const char *fixes;	/* "Fixes: <id> (\"<subject>\")" */
};

/* One file of a patch: its path and the lines it adds and removes. */
struct patch_file {
	const char *path;
	size_t added, removed;
};

/*
 * The whole format-patch text of @e (subject and body; its diff @diff,
 * index lines included, of @nr_files files) for the findings @fs (@nr
 * sites, each with its chain; new). @fixes: a Fixes: line or NULL.
 */
char *patch_format(const struct finding *const *fs, size_t nr,
		   const struct fix_edit *e, const char *diff,
		   const struct patch_file *files, size_t nr_files,
		   const struct patch_meta *m, const char *fixes);
/*
 * git format-patch's file name for patch @n: "0001-" and the subject's
 * letters, digits, '.' and '_' with a '-' for each run of anything else,
 * cut at 64 characters with ".patch" (format.filenameMaxLength).
 */
char *patch_name(unsigned int n, const char *subject);

#endif /* TRAPCHECK_PATCH_H */
