// SPDX-License-Identifier: GPL-2.0
/*
 * db.c - the SQLite facts database: the file (opened, checked, set up),
 * its errors and the state of the run; what it holds is db-facts.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "trapcheck/store/db.h"
#include "trapcheck/model/facts.h"

#include "db-internal.h"

/* The fixed tables; the facts' tables come from their descriptions. */
static const char schema_head[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS file (path TEXT PRIMARY KEY, mtime INTEGER,"
	" size INTEGER, hash TEXT);"
	"CREATE TABLE IF NOT EXISTS tu (id INTEGER PRIMARY KEY, path TEXT UNIQUE,"
	" key TEXT, parse_error INTEGER, nr_errors INTEGER, first_error TEXT,"
	" retried INTEGER, have_ftr INTEGER, have_caps INTEGER);"
	/* db-link.c: at most one row; a database of before it gets it. */
	"CREATE TABLE IF NOT EXISTS link (key TEXT PRIMARY KEY, graph BLOB);";

static bool text_kind(enum fact_kind k)
{
	return k == FACT_KEY || k == FACT_STR || k == FACT_SINK;
}

/*
 * One table per record of checker/model/facts.def: the TU's id, then a column
 * per field (TEXT for strings and sinks, by name; INTEGER otherwise), in
 * order; one per list of strings. Rows keep the facts' order (rowid).
 */
static char *schema_sql(void)
{
	struct bytes b = { 0 };
	size_t i, k;
	char *s;

	bytes_put(&b, schema_head, strlen(schema_head));
	for (i = 0; i < fact_records_size; i++) {
		const struct fact_record *r = &fact_records[i];

		s = xasprintf("CREATE TABLE IF NOT EXISTS \"%s\" (tu INTEGER",
			      r->table);
		bytes_put(&b, s, strlen(s));
		free(s);
		for (k = 0; k < r->nr_fields; k++) {
			s = xasprintf(", \"%s\" %s", r->fields[k].name,
				      text_kind(r->fields[k].kind) ? "TEXT" :
				      "INTEGER");
			bytes_put(&b, s, strlen(s));
			free(s);
		}
		s = xasprintf(");CREATE INDEX IF NOT EXISTS \"%s_tu\" ON "
			      "\"%s\"(tu);", r->table, r->table);
		bytes_put(&b, s, strlen(s));
		free(s);
	}
	for (i = 0; i < fact_strlists_size; i++) {
		const struct fact_strlist *l = &fact_strlists[i];

		s = xasprintf("CREATE TABLE IF NOT EXISTS \"%s\" (tu INTEGER, "
			      "\"%s\" TEXT);CREATE INDEX IF NOT EXISTS "
			      "\"%s_tu\" ON \"%s\"(tu);", l->table, l->column,
			      l->table, l->table);
		bytes_put(&b, s, strlen(s));
		free(s);
	}
	bytes_put(&b, "", 1);
	return (char *)b.data;
}

/* The reason of SQLite's last failure, with the system's where known. */
static void why(struct db *db, char *buf, size_t len)
{
	int sys = sqlite3_system_errno(db->h);

	if (sys && sqlite3_errcode(db->h) != SQLITE_CORRUPT)
		snprintf(buf, len, "%s (%s)", sqlite3_errmsg(db->h),
			 strerror(sys));
	else
		snprintf(buf, len, "%s", sqlite3_errmsg(db->h));
}

/* Remember the first failure; returns @ret. */
int db_fail(struct db *db, int ret)
{
	char reason[256];
	int code = sqlite3_errcode(db->h);

	if (db->failed)
		return ret;
	why(db, reason, sizeof(reason));
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
		db->failed = -EBADMSG;
		snprintf(db->error, sizeof(db->error), "%s: a damaged database "
			 "(%s): remove it to start again", db->path, reason);
	} else {
		db->failed = ret;
		snprintf(db->error, sizeof(db->error), "%s: cannot %s the "
			 "database: %s", db->path, ret == -EIO ? "write" :
			 "read", reason);
	}
	return ret;
}

int db_exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	       -EIO;
}

/* A write: its failure is the run's (db_error()). */
int db_exec_w(struct db *db, const char *sql)
{
	return db_exec(db, sql) ? db_fail(db, -EIO) : 0;
}

/* The end of a read loop: SQLITE_DONE, or damage (or I/O) recorded. */
int db_read_end(struct db *db, int rc)
{
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return db_fail(db, -EBADMSG);
}

int db_error(const struct db *db, char *err, size_t errlen)
{
	if (db->failed && errlen) {
		snprintf(err, errlen, "%s", db->error);
		one_line(err);
	}
	return db->failed;
}

sqlite3_stmt *db_prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, -EBADMSG);
		return NULL;
	}
	return st;
}

sqlite3_stmt *db_prep_kept(struct db *db, const char *sql)
{
	int i = strmap_get(&db->kept, sql);
	sqlite3_stmt *st;

	if (i >= 0) {
		st = db->kept_v[i];
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	st = db_prep(db, sql);
	if (!st)
		return NULL;
	strmap_put(&db->kept, sql, (int)db->nr_kept);
	*PUSH(db->kept_v, db->nr_kept, db->alloc_kept) = st;
	return st;
}

void db_kept_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
}

/* The text of the one row @sql selects with @arg, or NULL. */
char *db_select_text(struct db *db, const char *sql, const char *arg)
{
	sqlite3_stmt *st = db_prep_kept(db, sql);
	char *v = NULL;
	int rc;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	db_read_end(db, rc);
	db_kept_done(st);
	return v;
}

static char *meta_get(struct db *db, const char *key)
{
	return db_select_text(db, "SELECT value FROM meta WHERE key = ?", key);
}

int db_meta_set(struct db *db, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int ret;

	if (db->readonly)
		return db_fail(db, -EIO);
	st = db_prep(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)");
	if (!st)
		return db_fail(db, -EIO);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	ret = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(db, -EIO);
	sqlite3_finalize(st);
	return ret;
}

/* The first line PRAGMA quick_check gives: "ok", or the damage. */
static char *quick_check(struct db *db)
{
	char *v = db_select_text(db, "PRAGMA quick_check(1)", NULL);

	return v ? v : xstrdup(db->failed ? db->error : "no answer");
}

/*
 * Before SQLite opens @path: a FIFO, a directory or a device is refused
 * (SQLite would wait on a FIFO, or take a device), and so is an empty
 * file or a missing one where nothing may be created. Also notes a file
 * this process may not write.
 */
static int check_file(struct db *db, const char *path, enum db_mode mode,
		      char *err, size_t errlen)
{
	struct stat sb;

	if (!*path) {
		snprintf(err, errlen, "'': cannot open the database: an "
			 "empty path");
		return -EINVAL;
	}
	if (stat(path, &sb)) {
		if (errno != ENOENT || mode == DB_READ) {
			snprintf(err, errlen, "%s: cannot read the database: "
				 "%s", path, strerror(errno));
			return errno == ENOENT ? -ENOENT : -EACCES;
		}
		return 0;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a trapcheck database: %s, not "
			 "a regular file", path, S_ISDIR(sb.st_mode) ?
			 "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO" :
			 "a device or socket");
		return -EINVAL;
	}
	if (mode == DB_READ && !sb.st_size) {
		snprintf(err, errlen, "%s: not a trapcheck database (an empty "
			 "file)", path);
		return -EINVAL;
	}
	if (mode == DB_WRITE && access(path, W_OK)) {
		db->readonly = true;
		snprintf(db->error, sizeof(db->error), "%s", strerror(errno));
	}
	return 0;
}

/*
 * Tables of a new database, under the write lock, so that a process
 * never sees the tables of another one half made.
 */
static int set_up(struct db *db, bool fresh, const char *want, char *err,
		  size_t errlen)
{
	char *schema = schema_sql();
	int ret = db_exec(db, schema);

	free(schema);
	if (ret || (fresh && db_meta_set(db, "trapcheck_schema", want)) ||
	    db_exec(db, "COMMIT")) {
		why(db, err, errlen);
		schema = xstrdup(err);
		snprintf(err, errlen, "%s: cannot set up the database: %s",
			 db->path, schema);
		free(schema);
		db_exec(db, "ROLLBACK");
		return -EIO;
	}
	return 0;
}

/* Is there a table at all? *@fresh: none yet. */
static int has_tables(struct db *db, bool *fresh, char *err, size_t errlen)
{
	sqlite3_stmt *st = db_prep(db, "SELECT count(*) FROM sqlite_master");

	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "%s: not a trapcheck database (not "
			 "SQLite, or damaged): %s", db->path,
			 sqlite3_errmsg(db->h));
		sqlite3_finalize(st);
		return -EINVAL;
	}
	*fresh = !sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (*fresh && db->readonly) {
		if (db->mode == DB_READ)
			snprintf(err, errlen, "%s: not a trapcheck database "
				 "(no tables)", db->path);
		else
			snprintf(err, errlen, "%s: cannot write the database: "
				 "%s", db->path, db->error);
		return -EINVAL;
	}
	return 0;
}

/*
 * A database of ours, of this schema; when its last run did not end
 * (killed, a failed write, no space), undamaged (PRAGMA quick_check),
 * and not to be read as complete by a report.
 */
static int check_state(struct db *db, const char *want, char *err,
		       size_t errlen)
{
	char *ver = meta_get(db, "trapcheck_schema"), *state, *qc;
	int ret = 0;

	if (!ver || strcmp(ver, want)) {
		snprintf(err, errlen, "%s: %s (schema %s, this trapcheck needs "
			 "%s): remove it to start again", db->path,
			 ver ? "a trapcheck database of another version" :
			       "not a trapcheck database",
			 ver ? ver : "none", want);
		free(ver);
		return -EINVAL;
	}
	free(ver);
	state = meta_get(db, "run");
	db->was_unclean = state && strcmp(state, "done");
	if (db->was_unclean) {
		qc = quick_check(db);
		if (strcmp(qc, "ok")) {
			one_line(qc);
			snprintf(err, errlen, "%s: a damaged database (%s): "
				 "remove it to start again", db->path, qc);
			ret = -EBADMSG;
		}
		free(qc);
	}
	if (!ret && db->failed) {
		snprintf(err, errlen, "%s", db->error);
		ret = db->failed;
	}
	if (!ret && db->mode == DB_READ && db->was_unclean) {
		snprintf(err, errlen, "%s: its last run did not end (%s): its "
			 "facts may be incomplete; run trapcheck -p TREE --db "
			 "%s to finish it", db->path,
			 !strcmp(state, "interrupted") ? "interrupted" :
			 "killed, failed or still running", db->path);
		ret = -EINVAL;
	}
	free(state);
	return ret;
}

/* WAL, and the tables under the write lock. */
static int set_up_writer(struct db *db, bool fresh, const char *want,
			 char *err, size_t errlen)
{
	char *reason;
	int i, ret;

	/* WAL: readers and one writer at a time (make -j runs us). */
	for (i = 0; (ret = db_exec(db, "PRAGMA journal_mode=WAL")) &&
	     sqlite3_errcode(db->h) == SQLITE_BUSY && i < 100; i++)
		sqlite3_sleep(50);
	if (ret || db_exec(db, "PRAGMA synchronous=NORMAL")) {
		why(db, err, errlen);
		reason = xstrdup(err);
		snprintf(err, errlen, "%s: cannot set up the database: %s",
			 db->path, reason);
		free(reason);
		return -EIO;
	}
	if (db_exec(db, "BEGIN IMMEDIATE")) {
		snprintf(err, errlen, "%s: cannot lock the database: %s",
			 db->path, sqlite3_errmsg(db->h));
		return sqlite3_errcode(db->h) == SQLITE_BUSY ? -EINVAL : -EIO;
	}
	return set_up(db, fresh, want, err, errlen);
}

int db_open(struct db **dbp, const char *path, enum db_mode mode, char *err,
	    size_t errlen)
{
	struct db *db = xcalloc(1, sizeof(*db));
	char want[16];
	bool fresh;
	int ret, flags;

	*dbp = NULL;
	db->path = xstrdup(path);
	db->mode = mode;
	strmap_init(&db->kept);
	snprintf(want, sizeof(want), "%d", DB_SCHEMA_VERSION);
	ret = check_file(db, path, mode, err, errlen);
	if (ret)
		goto err_close;
	db->readonly |= mode == DB_READ;
	flags = db->readonly ? SQLITE_OPEN_READONLY :
			       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	ret = -EINVAL;
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open the database: %s", path,
			 sqlite3_errmsg(db->h));
		goto err_close;
	}
	sqlite3_extended_result_codes(db->h, 0);
	sqlite3_busy_timeout(db->h, 60000);
	/* Damage in a page's cells is found when it is read. */
	db_exec(db, "PRAGMA cell_size_check=ON");
	ret = has_tables(db, &fresh, err, errlen);
	if (!ret && !fresh)
		ret = check_state(db, want, err, errlen);
	if (!ret && !db->readonly)
		ret = set_up_writer(db, fresh, want, err, errlen);
	if (ret)
		goto err_close;
	db->root = meta_get(db, "root");
	db->arch = meta_get(db, "arch");
	ret = db->failed;
	if (ret) {
		snprintf(err, errlen, "%s", db->error);
		goto err_close;
	}
	*dbp = db;
	return 0;

err_close:
	/* SQLite quotes a damaged schema: one line all the same. */
	one_line(err);
	db_close(db);
	return ret;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	free(db->held);
	while (db->nr_kept)
		sqlite3_finalize(db->kept_v[--db->nr_kept]);
	free(db->kept_v);
	strmap_free(&db->kept);
	sqlite3_close(db->h);
	free(db->path);
	free(db->root);
	free(db->arch);
	free(db);
}

bool db_readonly(const struct db *db)
{
	return db->readonly;
}

const char *db_readonly_why(const struct db *db)
{
	return db->readonly && db->mode == DB_WRITE ? db->error : NULL;
}

const char *db_root(struct db *db)
{
	return db->root;
}

const char *db_arch(struct db *db)
{
	return db->arch;
}

int db_check_arch(struct db *db, const char *arch, char *err, size_t errlen)
{
	if (db->arch && strcmp(db->arch, arch)) {
		snprintf(err, errlen, "%s: its facts are of arch/%s, this run "
			 "is for arch/%s: one architecture per database",
			 db->path, db->arch, arch);
		return -EINVAL;
	}
	return 0;
}

int db_begin_run(struct db *db, const char *root, const char *arch,
		 bool track)
{
	if (db->readonly)
		return 0;
	db->new_root = !db->root || strcmp(db->root, root);
	if (db->new_root) {
		free(db->root);
		db->root = xstrdup(root);
	}
	db->new_arch = !db->arch;
	if (db->new_arch)
		db->arch = xstrdup(arch);
	db->track = track;
	db->pending = db->new_root || db->new_arch || track;
	return 0;
}

/*
 * Before the run's first write (in its transaction): the tree, the
 * architecture and, tracked, "a run in progress", as db_begin_run()
 * asked.
 */
int db_first_write(struct db *db)
{
	if (!db->pending)
		return 0;
	if ((db->new_root && db_meta_set(db, "root", db->root)) ||
	    (db->new_arch && db_meta_set(db, "arch", db->arch)) ||
	    (db->track && db_meta_set(db, "run", "running")))
		return -EIO;
	db->pending = false;
	db->running = db->track;
	return 0;
}

int db_end_run(struct db *db, bool done)
{
	if (db->readonly || db->failed)
		return db->failed;
	/* A run that wrote nothing ends one that did not end, too. */
	if (!db->running && !(done && db->track && db->was_unclean))
		return 0;
	if (db_first_write(db) ||
	    db_meta_set(db, "run", done ? "done" : "interrupted"))
		return -EIO;
	db->running = false;
	/* What the WAL holds, into the database file: failures are said. */
	if (sqlite3_wal_checkpoint_v2(db->h, NULL, SQLITE_CHECKPOINT_TRUNCATE,
				      NULL, NULL) != SQLITE_OK &&
	    sqlite3_errcode(db->h) != SQLITE_BUSY)
		return db_fail(db, -EIO);
	return 0;
}
