/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a patch takes from git, through libgit2: blob ids for the index
 * line (git am -3 needs them to merge a patch whose context moved), the
 * user's identity from git's configuration, and the commit that last
 * changed a line, for a Fixes: tag.
 */
#ifndef TRAPCHECK_GITINFO_H
#define TRAPCHECK_GITINFO_H

#include <stddef.h>

/* The blob id of @len bytes at @data, its first @abbrev hex digits (new). */
char *gitinfo_blob_id(const void *data, size_t len, size_t abbrev);

/*
 * "Name <mail>" from git's configuration: the repository's that holds
 * @dir (NULL or not one: the user's and the system's); NULL when
 * user.name or user.email is not set.
 */
char *gitinfo_identity(const char *dir);

/*
 * The Fixes: line of the kernel's process for line @line of @rel under
 * the tree @root, when @root is the work tree of a git repository (not
 * a directory inside another one's): "Fixes:
 * <12 hex digits> (\"<subject>\")" of the commit that last changed that
 * line as the working tree has it (git blame). NULL when the tree is
 * not in a repository, the line is not committed, or the history is cut
 * there (a shallow clone's boundary).
 */
char *gitinfo_fixes_tag(const char *root, const char *rel, unsigned int line);

/* A file as a commit has it: its text, or NULL where it does not exist. */
struct gitinfo_file {
	char *rel;
	char *text;
	size_t len;
};

/*
 * The commits of @range ("A..B", git's syntax) in the git repository
 * whose work tree is @root, oldest first, as one mbox of patches
 * (git format-patch's form: "From <id> ...", "Subject: [PATCH k/n]
 * <summary>", the message, the diff with renames found) in *@mbox; and
 * in *@base the files whose text at A differs from the work tree's,
 * with A's text: the work tree may be at A, at B or anywhere. Merge
 * commits are left out. 0, or a negative errno with a one-line reason
 * in @err.
 */
int gitinfo_range(const char *root, const char *range, char **mbox,
		  struct gitinfo_file **base, size_t *nr_base, char *err,
		  size_t errlen);
void gitinfo_files_free(struct gitinfo_file *v, size_t nr);

#endif /* TRAPCHECK_GITINFO_H */
