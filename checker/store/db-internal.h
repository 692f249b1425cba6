/* SPDX-License-Identifier: GPL-2.0 */
/*
 * db-internal.h - what the two files of the facts database share (not
 * public API: include/trapcheck/store/db.h is):
 *
 *   db.c        the file: opening and checking it, the schema, errors,
 *               the state of the run, its metadata
 *   db-facts.c  what it holds: file hashes, each TU's facts stored and
 *               loaded, TUs pruned (it calls db.c, never the reverse)
 *   db-link.c   the stored link: one run's merged graph as bytes (it
 *               calls db.c, never the reverse)
 */
#ifndef TRAPCHECK_DB_INTERNAL_H
#define TRAPCHECK_DB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "trapcheck/store/db.h"

struct db {
	sqlite3 *h;
	char *path;
	char *root;
	char *arch;
	enum db_mode mode;
	bool readonly;		/* opened for reading only */
	bool running;		/* this process marked a run in progress */
	/*
	 * What db_begin_run() asked to record, written with the run's first
	 * write (a run that writes nothing leaves the file as it was).
	 */
	bool pending, new_root, new_arch, track;
	bool was_unclean;	/* its last run did not end */
	/*
	 * The first failure: -EIO (a write), -EBADMSG (damage found on a
	 * read); its message in error[].
	 */
	int failed;
	char error[512];
	/*
	 * Read statements prepared once per run (db_prep_kept()): a warm
	 * run of a whole kernel loads ten thousand TUs, a dozen statements
	 * each.
	 */
	struct strmap kept;
	sqlite3_stmt **kept_v;
	size_t nr_kept, alloc_kept;
	/*
	 * db_tu_includes_each() is reading: file hashes found meanwhile
	 * are stored when the read ends (held[], empty between reads).
	 */
	bool streaming;
	struct held_hash {
		char *rel, *hash;
		int64_t mtime, size;
	} *held;
	size_t nr_held, alloc_held;
};

int db_exec(struct db *db, const char *sql);
int db_exec_w(struct db *db, const char *sql);
int db_read_end(struct db *db, int rc);
sqlite3_stmt *db_prep(struct db *db, const char *sql);
/*
 * @sql prepared once and kept until db_close(), reset and unbound for
 * this use; the caller ends each use with db_kept_done() (which resets
 * it, ending its read) and never finalizes it.
 */
sqlite3_stmt *db_prep_kept(struct db *db, const char *sql);
void db_kept_done(sqlite3_stmt *st);
int db_fail(struct db *db, int ret);
char *db_select_text(struct db *db, const char *sql, const char *arg);
int db_first_write(struct db *db);
int db_meta_set(struct db *db, const char *key, const char *value);

#endif /* TRAPCHECK_DB_INTERNAL_H */
