// SPDX-License-Identifier: GPL-2.0
/*
 * db-link.c - the stored link (db-internal.h): the bytes of the graph a
 * run merged from every TU's facts, kept under a key that names those TUs
 * and their keys, so that a run in which no TU changed reads one row
 * instead of every TU's facts. Storing or replacing a TU's facts drops
 * it (db-facts.c), so a link row always holds what the facts it names
 * merge into.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db-internal.h"

int db_link_read(struct db *db, const char *key,
		 int (*use)(const void *data, size_t len, void *arg),
		 void *arg)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -ENOENT;

	if (db->failed)
		return db->failed;
	/*
	 * Not db_prep(): a database only read may predate the table, and
	 * then simply keeps no link.
	 */
	if (sqlite3_prepare_v2(db->h, "SELECT graph FROM link WHERE key = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -ENOENT;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *data = sqlite3_column_blob(st, 0);
		int len = sqlite3_column_bytes(st, 0);

		ret = data && len > 0 ? use(data, (size_t)len, arg) : -EINVAL;
	} else if (rc != SQLITE_DONE) {
		db_read_end(db, rc);
		ret = db->failed;
	}
	sqlite3_finalize(st);
	return ret;
}

int db_link_write(struct db *db, const char *key, const void *data,
		  size_t len, bool (*still)(void *arg), void *arg)
{
	sqlite3_stmt *st = NULL;

	if (db->readonly || db->failed)
		return -EIO;
	if (len > INT32_MAX)
		return -EFBIG;
	if (db_exec_w(db, "BEGIN IMMEDIATE"))
		return -EIO;
	/* Under the write lock: has another process stored a TU since? */
	if (!still(arg)) {
		db_exec(db, "ROLLBACK");
		return db->failed ? db->failed : -EAGAIN;
	}
	if (db_first_write(db) || db_exec_w(db, "DELETE FROM link"))
		goto err_rollback;
	st = db_prep(db, "INSERT INTO link VALUES (?, ?)");
	if (!st)
		goto err_rollback;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, data, (int)len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto err_rollback;
	sqlite3_finalize(st);
	st = NULL;
	if (db_exec_w(db, "COMMIT"))
		goto err_rollback;
	return 0;

err_rollback:
	sqlite3_finalize(st);
	db_fail(db, -EIO);
	db_exec(db, "ROLLBACK");
	return -EIO;
}

bool db_link_kept(struct db *db)
{
	sqlite3_stmt *st = NULL;
	bool kept;

	if (db->failed || sqlite3_prepare_v2(db->h, "SELECT 1 FROM link",
					     -1, &st, NULL) != SQLITE_OK)
		return false;
	kept = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return kept;
}

bool db_files_unchanged(struct db *db, const char *root,
			void (*fn)(const char *rel, const char *hash,
				   void *arg),
			void *arg)
{
	sqlite3_stmt *st = db_prep(db, "SELECT path, mtime, size, hash FROM "
				   "file");
	bool same = st != NULL;
	int rc = SQLITE_DONE;

	while (same && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *rel = (const char *)sqlite3_column_text(st, 0);
		char *path;
		struct stat sb;

		if (!rel)
			break;
		path = path_join(root, rel);
		same = !stat(path, &sb) &&
		       (int64_t)sb.st_mtim.tv_sec * 1000000000 +
		       sb.st_mtim.tv_nsec == sqlite3_column_int64(st, 1) &&
		       (int64_t)sb.st_size == sqlite3_column_int64(st, 2);
		free(path);
		if (same && sqlite3_column_text(st, 3))
			fn(rel, (const char *)sqlite3_column_text(st, 3), arg);
	}
	if (same)
		same = !db_read_end(db, rc) && rc == SQLITE_DONE;
	sqlite3_finalize(st);
	return same;
}
