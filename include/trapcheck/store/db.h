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

#include "trapcheck/model/facts.h"
#include "trapcheck/base/util.h"

#define DB_SCHEMA_VERSION 14
/*
 * What extraction produces: bumped whenever the facts of an unchanged TU
 * would differ (a new sink, a new guard form, cold markers...). It is part
 * of every TU's key, so a new trapcheck re-parses instead of trusting
 * facts an older one stored.
 */
#define FACTS_VERSION "trapcheck-facts-35"
/*
 * What asm.c produces from an assembly source, in the key of .S TUs
 * only (analyze_flags_hash()): bumped when an unchanged .S's facts would
 * differ, so that a database keeps its C facts. 2: mrs_s reads; 3: a
 * line's nth sink at column n.
 */
#define ASM_FACTS_VERSION "trapcheck-asm-facts-3"

struct db;

enum db_mode {
	DB_WRITE,	/* a run: created if missing, facts stored */
	DB_READ,	/* report and queries: read only, never made */
};

/*
 * Open @path. Refused (-errno, one line in @err): not a regular file, a
 * database of another version or program, damage (-EBADMSG: PRAGMA
 * quick_check when the last run did not end), and, read only, a missing
 * or empty file or one whose last run did not end. DB_WRITE on a file
 * this process may not write opens it read only (db_readonly()): facts
 * are read, none stored. A refused database is not written to.
 */
int db_open(struct db **dbp, const char *path, enum db_mode mode, char *err,
	    size_t errlen);
void db_close(struct db *db);
/* Opened read only; and why, for DB_WRITE (strerror()), or NULL. */
bool db_readonly(const struct db *db);
const char *db_readonly_why(const struct db *db);
/*
 * The first failure since db_open(): 0, -EIO (a write failed: SQLITE_FULL,
 * SQLITE_IOERR, ...) or -EBADMSG (damage found reading), the message in
 * @err. After one, nothing more is stored; the run must end.
 */
int db_error(const struct db *db, char *err, size_t errlen);

/* The tree the database describes (set on first use). */
const char *db_root(struct db *db);
/*
 * The architecture its facts are of (kbuild's SRCARCH: sink indices and
 * trap classes are that architecture's), or NULL before the first run.
 */
const char *db_arch(struct db *db);
/* Would a run for @arch use it? -EINVAL (@err says why) when not. */
int db_check_arch(struct db *db, const char *arch, char *err,
		  size_t errlen);
/*
 * A run for @root and @arch begins (db_check_arch() first): both are
 * recorded and, with @track, the run marked in progress until
 * db_end_run() (so that a report never reads an unfinished one as
 * complete, and the next open looks for damage), all with the run's
 * first write: a run that writes nothing (nothing changed, or refused
 * for damage found reading) leaves the file as it was. Read only:
 * nothing.
 */
int db_begin_run(struct db *db, const char *root, const char *arch,
		 bool track);
/* The run ended: @done, or interrupted. 0 or db_error()'s. */
int db_end_run(struct db *db, bool done);

/*
 * A file's content hash, cached in the database by (mtime, size): a file
 * that has not changed is not read again. Each call stat()s the file: the
 * caller keeps what it asked within a run (pipeline/analyze.c).
 */
char *db_file_hash(struct db *db, const char *root, const char *rel);

/* The stored key of TU @path, or NULL. */
char *db_tu_key(struct db *db, const char *path);
/*
 * The stored macro set of TU @path (model/macroset.h), or NULL: none
 * stored (an assembly TU, an unknown TU).
 */
char *db_tu_macros(struct db *db, const char *path);
/* Every file whose hash the database keeps: the TUs' and their includes. */
size_t db_files(struct db *db, char ***paths);
/* Files TU @path included last time it was parsed (a new array). */
size_t db_tu_includes(struct db *db, const char *path, char ***files);
/*
 * The same files, each passed to @fn in order without a copy (a whole
 * kernel's TUs include six million files between them). Returns how
 * many, or -errno.
 */
long db_tu_includes_each(struct db *db, const char *path,
			 void (*fn)(const char *file, void *arg), void *arg);

/* Replace TU @path's facts by @f, under @key, in one transaction. */
int db_store(struct db *db, const char *path, const char *key,
	     const struct tu_facts *f);
/* Read TU @path's facts into @f (as extract_tu() would fill it). */
int db_load(struct db *db, const char *path, struct tu_facts *f);
/*
 * The same without the include list, which only keys use
 * (db_tu_includes()): what the link reads of every TU. With @key, only
 * the facts stored under it: -ESTALE when another run has stored TU
 * @path since (its key is not @key).
 */
int db_load_linked(struct db *db, const char *path, const char *key,
		   struct tu_facts *f);
/*
 * Only TU @path's row: its file, errors and flags, no facts (a run that
 * reads the stored link); @key as for db_load_linked().
 */
int db_load_head(struct db *db, const char *path, const char *key,
		 struct tu_facts *f);
/*
 * One snapshot of the database for the reads until db_snapshot_end():
 * what other processes commit meanwhile is not seen; the file hashes
 * found meanwhile are stored at its end. -EBUSY inside a transaction.
 */
int db_snapshot_begin(struct db *db);
void db_snapshot_end(struct db *db);
/*
 * The stored link (db.c): the bytes kept under @key, passed to @use
 * without a copy (a whole kernel's graph is a hundred megabytes). Returns
 * what @use returns, -ENOENT when none is kept under @key, or the
 * database's failure.
 */
int db_link_read(struct db *db, const char *key,
		 int (*use)(const void *data, size_t len, void *arg),
		 void *arg);
/*
 * Keep @len bytes at @data as the stored link under @key, in place of
 * any other, in one transaction, if @still(@arg) says, under the write
 * lock, that the link is still the database's (-EAGAIN: not written).
 * Storing a TU's facts drops it.
 */
int db_link_write(struct db *db, const char *key, const void *data,
		  size_t len, bool (*still)(void *arg), void *arg);
/*
 * Does the database keep a stored link? While it does, no TU's facts
 * and no file's hash changed since a run that linked every TU it held
 * wrote it, so each stored TU key was right for the files as they were.
 */
bool db_link_kept(struct db *db);
/*
 * Has no file whose hash the database keeps changed (mtime and size as
 * kept, as db_file_hash() compares them)? With db_link_kept(): every
 * stored TU key but its flags' part is still right, and a run need not
 * read the TUs' include lists to key them. Each file found unchanged
 * (up to the first that changed) is passed to @fn with its hash.
 */
bool db_files_unchanged(struct db *db, const char *root,
			void (*fn)(const char *rel, const char *hash,
				   void *arg),
			void *arg);
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
/*
 * Join the databases @paths (each checked as trapcheck report checks
 * it) into a new database @out, a TU held by more than one taken from
 * the first: the facts of a sharded run as one database that a later
 * run (-p TREE --db @out) starts from. Written beside @out and renamed
 * over it at the end: on any failure, or when @halt() says so (-EINTR),
 * @out is as it was. *@tus: the TUs it holds. -EIO: a failed write.
 */
int db_join(const char *out, const char *const *paths, size_t nr,
	    size_t *tus, bool (*halt)(void), char *err, size_t errlen);

#endif /* TRAPCHECK_DB_H */
