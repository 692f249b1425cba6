/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts database (SQLite): per TU its functions, calls, sinks,
 * guards, capability tables, included files and diagnostics, keyed by the
 * TU's path, its translated flags and a content hash of the TU and every
 * file it included. Each TU is written in one transaction, so Ctrl-C or a
 * crash never leaves half a TU; a database of another schema version or
 * another program is refused with a clear error.
 */
#ifndef TRAPCHECK_DB_H
#define TRAPCHECK_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/facts.h"
#include "trapcheck/util.h"

#define DB_SCHEMA_VERSION 6
/*
 * What extraction produces: bumped whenever the facts of an unchanged TU
 * would differ (a new sink, a new guard form, cold markers...). It is part
 * of every TU's key, so a new trapcheck re-parses instead of trusting
 * facts an older one stored.
 */
#define FACTS_VERSION "trapcheck-facts-15"

struct db;

/* Open (creating it if needed) @path; -EINVAL for a foreign file. */
int db_open(struct db **dbp, const char *path, char *err, size_t errlen);
void db_close(struct db *db);

/* The tree the database describes (set on first use). */
const char *db_root(struct db *db);
int db_set_root(struct db *db, const char *root);
/*
 * The architecture its facts are of (kbuild's SRCARCH: sink indices and
 * trap classes are that architecture's), or NULL before the first run.
 */
const char *db_arch(struct db *db);
/*
 * A run for @arch uses the database: stored when it has none yet; a
 * database of another architecture is refused (-EINVAL, @err says so).
 */
int db_claim_arch(struct db *db, const char *arch, char *err,
		  size_t errlen);

/*
 * A file's content hash, cached in the database by (mtime, size): a file
 * that has not changed is not read again.
 */
char *db_file_hash(struct db *db, const char *root, const char *rel);

/* The stored key of TU @path, or NULL. */
char *db_tu_key(struct db *db, const char *path);
/* Files TU @path included last time it was parsed (a new array). */
size_t db_tu_includes(struct db *db, const char *path, char ***files);

/* Replace TU @path's facts by @f, under @key, in one transaction. */
int db_store(struct db *db, const char *path, const char *key,
	     const struct tu_facts *f);
/* Read TU @path's facts into @f (as extract_tu() would fill it). */
int db_load(struct db *db, const char *path, struct tu_facts *f);
/* Forget the TUs not in @keep. Returns how many were removed. */
size_t db_prune(struct db *db, const char *const *keep, size_t nr);
/* Every TU path in the database, in insertion order. */
size_t db_tus(struct db *db, char ***paths);
/*
 * Keys of the functions TU @path defines outside its own file (header
 * functions whose bodies it extracted).
 */
size_t db_tu_header_funcs(struct db *db, const char *path, char ***keys,
			  char ***files);

#endif /* TRAPCHECK_DB_H */
