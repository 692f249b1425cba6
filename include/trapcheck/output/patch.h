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

/* The whole format-patch text of @e (its diff @diff) for @f (new). */
char *patch_format(const struct finding *f, const struct fix_edit *e,
		   const char *diff, size_t added, size_t removed,
		   const struct patch_meta *m, const struct patch_git *g);
/*
 * git format-patch's file name for patch @n: "0001-" and the subject's
 * letters, digits, '.' and '_' with a '-' for each run of anything else,
 * cut at 64 characters with ".patch" (format.filenameMaxLength).
 */
char *patch_name(unsigned int n, const char *subject);

#endif /* TRAPCHECK_PATCH_H */
