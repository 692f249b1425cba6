/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compile database loading: compile_commands.json as written by the
 * kernel's scripts/clang-tools/gen_compile_commands.py (the "command"
 * form) or by other tools (the "arguments" form).
 */
#ifndef TRAPCHECK_COMPDB_H
#define TRAPCHECK_COMPDB_H

#include <stddef.h>

struct compdb_entry {
	char *directory;	/* absolute, normalised */
	char *file;		/* absolute, normalised */
	char **argv;		/* the compiler and its arguments */
	int argc;
};

struct compdb {
	char *path;		/* the database file */
	char *root;		/* its directory: the tree's root */
	struct compdb_entry *entries;
	size_t nr, alloc;
};

/*
 * Load @path into @db. On error returns a negative errno-style code and
 * writes a one-line message naming the file into @err.
 */
int compdb_load(struct compdb *db, const char *path, char *err,
		size_t errlen);
void compdb_free(struct compdb *db);

/*
 * Split a shell command line into words the way sh does for the subset
 * that build systems emit: blanks, single and double quotes, backslash.
 * Returns the number of words (>= 0) or -EINVAL on an unterminated quote.
 */
int compdb_split_command(const char *cmd, char ***argv);
void compdb_free_argv(char **argv, int argc);

#endif /* TRAPCHECK_COMPDB_H */
