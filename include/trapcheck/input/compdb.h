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
	char *root;		/* its directory: the build tree */
	char *srctree;		/* the source tree: what paths are relative
				 * to (compdb_srctree) */
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
 * The source tree of @db, set by compdb_load(): kbuild's srctree. The
 * directory BUILD/source links to (make O=BUILD: kbuild makes the link),
 * else the prefix of kbuild's "-include .../include/linux/kconfig.h", else
 * the database's directory when an entry's file is below it, else the
 * deepest directory that holds every entry's file. compdb_set_srctree()
 * overrides it (--srctree): a negative errno and a message in @err when
 * @dir is not a directory.
 */
int compdb_set_srctree(struct compdb *db, const char *dir, char *err,
		       size_t errlen);
/* The source tree kbuild's build directory @dir names (its "source"
 * link), or a copy of @dir. */
char *compdb_srctree_of_build(const char *dir);

/*
 * Keep only shard @k of @n (1 <= k <= n): the entries whose file,
 * relative to the source tree, hashes to k - 1 modulo n. The share of a
 * file depends on its path alone: it keeps its shard when other files
 * come and go, so a CI job's database of one shard stays warm. Returns
 * the number of entries there were.
 */
size_t compdb_shard(struct compdb *db, unsigned int k, unsigned int n);

/*
 * Split a shell command line into words the way sh does for the subset
 * that build systems emit: blanks, single and double quotes, backslash.
 * Returns the number of words (>= 0) or -EINVAL on an unterminated quote.
 */
int compdb_split_command(const char *cmd, char ***argv);
void compdb_free_argv(char **argv, int argc);

#endif /* TRAPCHECK_COMPDB_H */
