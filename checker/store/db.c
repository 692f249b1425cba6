// SPDX-License-Identifier: GPL-2.0
/*
 * db.c - the SQLite facts database (db.h): the file (opened, checked,
 * set up), its errors and the state of the run; what it holds: the file
 * hash cache, each TU's facts, stored in one transaction and loaded back
 * with every value checked, the TUs a run no longer has, pruned; and the
 * stored link, the graph of a run whose TUs did not change.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "trapcheck/store/db.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/model/sinks.h"

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
	/* db_snapshot_begin() to _end(): one read transaction, hashes held. */
	bool snapshot;
	/*
	 * The file table's generation (meta "files_gen", bumped by every
	 * hash stored) as this process last saw it, and whether another
	 * process stored a hash since its snapshot: then the file table is
	 * not this run's tree, and no link of it is kept.
	 */
	long long files_seen;
	bool files_foreign;
	struct held_hash {
		char *rel, *hash;
		int64_t mtime, size;
	} *held;
	size_t nr_held, alloc_held;
};

/* The fixed tables; the facts' tables come from their descriptions. */
static const char schema_head[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS file (path TEXT PRIMARY KEY, mtime INTEGER,"
	" size INTEGER, hash TEXT);"
	"CREATE TABLE IF NOT EXISTS tu (id INTEGER PRIMARY KEY, path TEXT UNIQUE,"
	" key TEXT, parse_error INTEGER, nr_errors INTEGER, first_error TEXT,"
	" retried INTEGER, tables_seen INTEGER);"
	/* The stored link: at most one row; a database of before it gets it. */
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
static int db_fail(struct db *db, int ret)
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

static int db_exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	       -EIO;
}

/* A write: its failure is the run's (db_error()). */
static int db_exec_w(struct db *db, const char *sql)
{
	return db_exec(db, sql) ? db_fail(db, -EIO) : 0;
}

/* The end of a read loop: SQLITE_DONE, or damage (or I/O) recorded. */
static int db_read_end(struct db *db, int rc)
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

static sqlite3_stmt *db_prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, -EBADMSG);
		return NULL;
	}
	return st;
}

static sqlite3_stmt *db_prep_kept(struct db *db, const char *sql)
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

static void db_kept_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
}

/* The text of the one row @sql selects with @arg, or NULL. */
static char *db_select_text(struct db *db, const char *sql, const char *arg)
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

/* The file table's generation: how many hashes were ever stored. */
static long long files_gen(struct db *db)
{
	char *v = meta_get(db, "files_gen");
	long long gen = v ? atoll(v) : 0;

	free(v);
	return gen;
}

static int db_meta_set(struct db *db, const char *key, const char *value)
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
 * Can the directory of @path take the files of a write-ahead log? (errno
 * set when not.) Where both already exist and are writable, no new file
 * is needed.
 */
static bool dir_writable(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
	bool ok;
	int err;

	if (slash)
		*slash = '\0';
	ok = !access(slash ? (*dir ? dir : "/") : ".", W_OK);
	if (!ok) {
		err = errno;
		ok = !access(wal, W_OK) && !access(shm, W_OK);
		errno = err;
	}
	free(shm);
	free(wal);
	free(dir);
	return ok;
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
		if (errno == ENOENT && mode == DB_READ) {
			snprintf(err, errlen, "%s: cannot read the database: "
				 "%s (a run with -p TREE --db %s makes it)",
				 path, strerror(errno), path);
			return -ENOENT;
		}
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: cannot read the database: "
				 "%s", path, strerror(errno));
			return -EACCES;
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
	} else if (mode == DB_WRITE && !dir_writable(path)) {
		/*
		 * A writable file in a directory it cannot write: SQLite
		 * could not make its write-ahead log there.
		 */
		db->readonly = true;
		snprintf(db->error, sizeof(db->error), "its directory is read "
			 "only: %s", strerror(errno));
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
		int code = sqlite3_errcode(db->h);
		int sys = sqlite3_system_errno(db->h);

		/*
		 * The file could not be read (a full disk: its write-ahead
		 * log's shared memory cannot grow): not damage, exit 3.
		 */
		if ((code == SQLITE_IOERR || code == SQLITE_FULL ||
		     code == SQLITE_CANTOPEN) && sys) {
			snprintf(err, errlen, "%s: cannot open the database: "
				 "%s (%s)", db->path, sqlite3_errmsg(db->h),
				 strerror(sys));
			sqlite3_finalize(st);
			return -EIO;
		}
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

/*
 * Read only in a directory we cannot write (a read-only mount): SQLite
 * cannot make the WAL's shared-memory file there, and would call a clean
 * database unopenable. Such a file cannot change under us, so it is
 * opened immutable; unless its write-ahead log still holds what a run
 * wrote (then that would be lost): -EINVAL and why. 1 when the caller is
 * to open @uri instead of the path, 0 when the path will do.
 */
static int readonly_uri(const char *path, char **uri, char *err,
			size_t errlen)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	char *wal = xasprintf("%s-wal", path), *e;
	struct stat sb;
	int ret = 0;

	if (slash)
		*slash = '\0';
	if (!access(slash ? (*dir ? dir : "/") : ".", W_OK))
		goto out_free;
	if (!stat(wal, &sb) && sb.st_size) {
		snprintf(err, errlen, "%s: cannot read the database: its "
			 "write-ahead log (%s) holds what a run wrote, and its "
			 "directory is read only", path, wal);
		ret = -EINVAL;
		goto out_free;
	}
	e = uri_escape(path);
	*uri = xasprintf("file:%s?immutable=1", e);
	free(e);
	ret = 1;
out_free:
	free(wal);
	free(dir);
	return ret;
}

/*
 * SQLite's file layer takes absolute names of up to mxPathname bytes (512
 * for the unix one) and says only "unable to open database file" past
 * that: -EINVAL, saying so, when @path made absolute is longer.
 */
static int check_path_len(const char *path, char *err, size_t errlen)
{
	sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
	char cwd[PATH_MAX];
	size_t len = strlen(path);

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		len += strlen(cwd) + 1;
	if (!vfs || len <= (size_t)vfs->mxPathname)
		return 0;
	snprintf(err, errlen, "%s: a path of %zu bytes made absolute; SQLite "
		 "takes at most %d: name a shorter --db", path, len,
		 vfs->mxPathname);
	return -EINVAL;
}

int db_open(struct db **dbp, const char *path, enum db_mode mode, char *err,
	    size_t errlen)
{
	struct db *db = xcalloc(1, sizeof(*db));
	char want[16], *uri;
	bool fresh;
	int ret, flags;

	*dbp = NULL;
	db->path = xstrdup(path);
	db->mode = mode;
	strmap_init(&db->kept);
	snprintf(want, sizeof(want), "%d", DB_SCHEMA_VERSION);
	ret = check_file(db, path, mode, err, errlen);
	if (!ret)
		ret = check_path_len(path, err, errlen);
	if (ret)
		goto err_close;
	db->readonly |= mode == DB_READ;
	flags = db->readonly ? SQLITE_OPEN_READONLY :
			       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	/*
	 * URIs on (a name not starting "file:" is read as before): the join
	 * attaches its inputs read only (db_join()).
	 */
	if (strncmp(path, "file:", 5))
		flags |= SQLITE_OPEN_URI;
	uri = NULL;
	if (db->readonly) {
		ret = readonly_uri(path, &uri, err, errlen);
		if (ret < 0)
			goto err_close;
		if (ret)
			flags |= SQLITE_OPEN_URI;
	}
	ret = -EINVAL;
	if (sqlite3_open_v2(uri ? uri : path, &db->h, flags, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open the database: %s", path,
			 sqlite3_errmsg(db->h));
		free(uri);
		goto err_close;
	}
	free(uri);
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
static int db_first_write(struct db *db)
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

/*
 * What the facts database holds: the file
 * hash cache, each TU's facts, stored in one transaction and loaded back
 * with every value checked, and the TUs a run no longer has, pruned.
 */

static void bad_value(struct db *db, const char *table);
static void store_hash(struct db *db, const char *rel, int64_t mtime,
		       int64_t size, const char *hash);

char *db_file_hash(struct db *db, const char *root, const char *rel)
{
	char *path = path_join(root, rel);
	sqlite3_stmt *st;
	struct stat sb;
	char *hash = NULL, buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	int64_t mtime;
	FILE *f;
	size_t n, i;

	if (stat(path, &sb)) {
		free(path);
		return xstrdup("missing");
	}
	mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	st = db_prep_kept(db, "SELECT hash FROM file WHERE path = ? AND "
			  "mtime = ? AND size = ?");
	if (st) {
		int rc;

		sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, mtime);
		sqlite3_bind_int64(st, 3, sb.st_size);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
			hash = xstrdup((const char *)sqlite3_column_text(st,
									   0));
		db_read_end(db, rc);
		db_kept_done(st);
	}
	if (hash) {
		free(path);
		return hash;
	}
	f = fopen(path, "rb");
	free(path);
	if (!f)
		return xstrdup("unreadable");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (i = 0; i < n; i++) {
			h ^= (unsigned char)buf[i];
			h *= 0x100000001b3ULL;
		}
	fclose(f);
	hash = xasprintf("%016llx", (unsigned long long)h);
	if (db->readonly || db->failed)
		return hash;	/* the cache is not kept */
	if (db->streaming || db->snapshot) {
		/*
		 * A read is open (db_tu_includes_each()): a write now would
		 * not wait for another writer (SQLite calls no busy handler
		 * inside a read), so it waits for the read's end.
		 */
		struct held_hash *ph = PUSH(db->held, db->nr_held,
					       db->alloc_held);

		ph->rel = xstrdup(rel);
		ph->mtime = mtime;
		ph->size = (int64_t)sb.st_size;
		ph->hash = xstrdup(hash);
		return hash;
	}
	store_hash(db, rel, mtime, (int64_t)sb.st_size, hash);
	return hash;
}

/*
 * A file's hash into the cache (the run fails on a failed write). A file
 * changed, or is new: in the same transaction, the stored link goes (it
 * no longer stands for the tree: db_files_unchanged()).
 */
static void store_hash(struct db *db, const char *rel, int64_t mtime,
		       int64_t size, const char *hash)
{
	sqlite3_stmt *st = NULL;
	long long gen;

	if (db->readonly || db->failed)
		return;	/* not kept, or the failure is the run's */
	if (db_exec_w(db, "BEGIN IMMEDIATE"))
		return;
	if (db_first_write(db) || db_exec_w(db, "DELETE FROM link") ||
	    db_exec_w(db, "INSERT INTO meta VALUES ('files_gen', 1) ON "
		      "CONFLICT (key) DO UPDATE SET value = value + 1"))
		goto err_rollback;
	gen = files_gen(db);
	db->files_foreign |= gen != db->files_seen + 1;
	db->files_seen = gen;
	st = db_prep_kept(db, "INSERT OR REPLACE INTO file VALUES "
			  "(?, ?, ?, ?)");
	if (!st)
		goto err_rollback;
	sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, mtime);
	sqlite3_bind_int64(st, 3, size);
	sqlite3_bind_text(st, 4, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto err_rollback;
	db_kept_done(st);
	if (!db_exec_w(db, "COMMIT"))
		return;

err_rollback:
	if (st)
		db_kept_done(st);
	db_fail(db, -EIO);
	db_exec(db, "ROLLBACK");
}

/* The hashes found while a read was open, stored now that it is not. */
static void store_held(struct db *db)
{
	size_t i;

	for (i = 0; i < db->nr_held; i++) {
		store_hash(db, db->held[i].rel, db->held[i].mtime,
			   db->held[i].size, db->held[i].hash);
		free(db->held[i].rel);
		free(db->held[i].hash);
	}
	db->nr_held = 0;
}

static sqlite3_int64 tu_id(struct db *db, const char *path)
{
	sqlite3_stmt *st = db_prep(db, "SELECT id FROM tu WHERE path = ?");
	sqlite3_int64 id = -1;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	db_read_end(db, rc);
	sqlite3_finalize(st);
	return id;
}

char *db_tu_key(struct db *db, const char *path)
{
	return db_select_text(db, "SELECT key FROM tu WHERE path = ?", path);
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static size_t column_list(struct db *db, const char *sql, const char *arg,
			  char ***out, char ***out2)
{
	sqlite3_stmt *st = db_prep(db, sql);
	size_t nr = 0, alloc = 0, alloc2 = 0, nr2 = 0;
	char **v = NULL, **v2 = NULL;

	if (st) {
		int rc;

		if (arg)
			sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const unsigned char *a = sqlite3_column_text(st, 0);
			const unsigned char *b = sqlite3_column_text(st, 1);

			*PUSH(v, nr, alloc) = xstrdup(a ? (const char *)a : "");
			if (out2)
				*PUSH(v2, nr2, alloc2) =
					xstrdup(b ? (const char *)b : "");
		}
		db_read_end(db, rc);
		sqlite3_finalize(st);
	}
	*out = v;
	if (out2)
		*out2 = v2;
	return nr;
}

size_t db_tu_includes(struct db *db, const char *path, char ***files)
{
	return column_list(db, "SELECT file FROM include WHERE tu = (SELECT "
			   "id FROM tu WHERE path = ?)", path, files, NULL);
}

size_t db_files(struct db *db, char ***paths)
{
	return column_list(db, "SELECT path FROM file ORDER BY path", NULL,
			   paths, NULL);
}

char *db_tu_macros(struct db *db, const char *path)
{
	return db_select_text(db, "SELECT names FROM macro WHERE tu = (SELECT"
			      " id FROM tu WHERE path = ?)", path);
}

long db_tu_includes_each(struct db *db, const char *path,
			 void (*fn)(const char *file, void *arg), void *arg)
{
	sqlite3_stmt *st = db_prep_kept(db, "SELECT file FROM include WHERE "
					"tu = (SELECT id FROM tu WHERE path = ?)");
	long nr = 0;
	int rc;

	if (!st)
		return db->failed;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	db->streaming = true;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *f = sqlite3_column_text(st, 0);

		if (!f) {
			bad_value(db, "include");
			break;
		}
		fn((const char *)f, arg);
		nr++;
	}
	db_read_end(db, rc);
	db_kept_done(st);
	db->streaming = false;
	if (!db->snapshot)
		store_held(db);
	return db->failed ? db->failed : nr;
}

int db_snapshot_begin(struct db *db)
{
	if (db->failed)
		return db->failed;
	if (db->snapshot || !sqlite3_get_autocommit(db->h))
		return -EBUSY;
	if (db_exec(db, "BEGIN"))
		return db_fail(db, -EBADMSG);
	db->snapshot = true;
	/* The snapshot's first read: the file table this run starts from. */
	db->files_seen = files_gen(db);
	db->files_foreign = false;
	return 0;
}

void db_snapshot_end(struct db *db)
{
	if (!db->snapshot)
		return;
	db_exec(db, "COMMIT");
	db->snapshot = false;
	store_held(db);
}

size_t db_tus(struct db *db, char ***paths)
{
	return column_list(db, "SELECT path FROM tu ORDER BY id", NULL, paths,
			   NULL);
}

size_t db_tu_header_funcs(struct db *db, const char *path, char ***keys,
			  char ***files)
{
	return column_list(db, "SELECT key, file FROM func WHERE tu = (SELECT "
			   "id FROM tu WHERE path = ?1) AND file != ?1", path,
			   keys, files);
}

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int delete_from(struct db *db, const char *table, sqlite3_int64 id)
{
	char *sql = xasprintf("DELETE FROM \"%s\" WHERE tu = %lld", table,
			      (long long)id);
	int r = db_exec_w(db, sql);

	free(sql);
	return r;
}

static int delete_tu(struct db *db, sqlite3_int64 id)
{
	size_t i;

	for (i = 0; i < fact_records_size; i++)
		if (delete_from(db, fact_records[i].table, id))
			return -EIO;
	for (i = 0; i < fact_strlists_size; i++)
		if (delete_from(db, fact_strlists[i].table, id))
			return -EIO;
	/* The stored link merged the facts going now (below). */
	return db_exec_w(db, "DELETE FROM link");
}

/* Run @st to completion and reset it for the next row. */
static int done(struct db *db, sqlite3_stmt *st)
{
	int r = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(db, -EIO);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r;
}

/* INSERT INTO "table" VALUES (?, ?, ...): the TU's id and @n columns. */
static sqlite3_stmt *insert(struct db *db, const char *table, size_t n)
{
	struct bytes b = { 0 };
	char *head = xasprintf("INSERT INTO \"%s\" VALUES (?", table);
	sqlite3_stmt *st;

	bytes_put(&b, head, strlen(head));
	free(head);
	while (n--)
		bytes_put(&b, ", ?", 3);
	bytes_put(&b, ")", 2);
	st = db_prep(db, (const char *)b.data);
	free(b.data);
	return st;
}

static void bind_field(sqlite3_stmt *st, int col,
		       const struct fact_field *fd, void *e)
{
	switch (fd->kind) {
	case FACT_KEY:
	case FACT_STR:
		bind_str(st, col, *fact_str(e, fd));
		break;
	case FACT_SINK:
		bind_str(st, col, sink_at(*fact_int(e, fd))->name);
		break;
	case FACT_U32:
		sqlite3_bind_int64(st, col, *fact_u32(e, fd));
		break;
	case FACT_BOOL:
		sqlite3_bind_int(st, col, *fact_bool(e, fd));
		break;
	case FACT_INT:
	case FACT_FUNC:
		sqlite3_bind_int(st, col, *fact_int(e, fd));
		break;
	}
}

static int store_record(struct db *db, sqlite3_int64 id,
			const struct tu_facts *f, const struct fact_record *r)
{
	char *v = *fact_array(f, r->array);
	size_t nr = *fact_count(f, r->count), i, k;
	sqlite3_stmt *st = insert(db, r->table, r->nr_fields);
	int ret = st ? 0 : db_fail(db, -EIO);

	for (i = 0; !ret && i < nr; i++) {
		sqlite3_bind_int64(st, 1, id);
		for (k = 0; k < r->nr_fields; k++)
			bind_field(st, (int)k + 2, &r->fields[k],
				   v + i * r->size);
		ret = done(db, st);
	}
	sqlite3_finalize(st);
	return ret;
}

static int store_strlist(struct db *db, sqlite3_int64 id,
			 const struct tu_facts *f,
			 const struct fact_strlist *l)
{
	char **v = *(char ***)fact_array(f, l->array);
	size_t nr = *fact_count(f, l->count), i;
	sqlite3_stmt *st = insert(db, l->table, 1);
	int ret = st ? 0 : db_fail(db, -EIO);

	for (i = 0; !ret && i < nr; i++) {
		sqlite3_bind_int64(st, 1, id);
		bind_str(st, 2, v[i]);
		ret = done(db, st);
	}
	sqlite3_finalize(st);
	return ret;
}

int db_store(struct db *db, const char *path, const char *key,
	     const struct tu_facts *f)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 id;
	size_t i;
	int r = 0;

	if (db->readonly || db->failed)
		return -EIO;
	if (db_exec_w(db, "BEGIN IMMEDIATE"))
		return -EIO;
	r = db_first_write(db);
	id = r ? -1 : tu_id(db, path);
	if (id >= 0)
		r = delete_tu(db, id);
	else if (!r)
		/* A new TU: the link's key check is not alone (below). */
		r = db_exec_w(db, "DELETE FROM link");
	st = db_prep(db, "INSERT OR REPLACE INTO tu VALUES (?, ?, ?, ?, ?, ?, ?, "
		  "?)");
	if (r || !st || db->failed)
		goto err_rollback;
	if (id >= 0)
		sqlite3_bind_int64(st, 1, id);
	else
		sqlite3_bind_null(st, 1);
	bind_str(st, 2, path);
	bind_str(st, 3, key);
	sqlite3_bind_int(st, 4, f->parse_error);
	sqlite3_bind_int(st, 5, (int)f->nr_errors);
	bind_str(st, 6, f->first_error);
	sqlite3_bind_int(st, 7, f->retried);
	sqlite3_bind_int64(st, 8, f->tables_seen);
	r = done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (r)
		goto err_rollback;
	id = sqlite3_last_insert_rowid(db->h);
	for (i = 0; !r && i < fact_records_size; i++)
		r = store_record(db, id, f, &fact_records[i]);
	for (i = 0; !r && i < fact_strlists_size; i++)
		r = store_strlist(db, id, f, &fact_strlists[i]);
	if (r || db_exec_w(db, "COMMIT"))
		goto err_rollback;
	return 0;

err_rollback:
	sqlite3_finalize(st);
	db_fail(db, -EIO);
	db_exec(db, "ROLLBACK");
	return -EIO;
}

/*
 * Read one column of a row into a field; false: a sink this build
 * dropped. A value SQLite's own checks cannot find wrong (a missing key,
 * a function index out of the TU's @nr_funcs) sets *@bad.
 */
static bool load_field(sqlite3_stmt *st, int col,
		       const struct fact_field *fd, void *e, size_t nr_funcs,
		       bool *bad)
{
	int s;

	switch (fd->kind) {
	case FACT_KEY:
		*fact_str(e, fd) = col_str(st, col);
		*bad |= !*fact_str(e, fd);
		break;
	case FACT_STR:
		*fact_str(e, fd) = col_str(st, col);
		break;
	case FACT_SINK:
		s = sink_lookup_name((const char *)
				     sqlite3_column_text(st, col));
		*fact_int(e, fd) = s;
		return s >= 0;
	case FACT_U32:
		*fact_u32(e, fd) = (unsigned int)sqlite3_column_int64(st, col);
		break;
	case FACT_BOOL:
		*fact_bool(e, fd) = sqlite3_column_int(st, col);
		break;
	case FACT_INT:
		*fact_int(e, fd) = sqlite3_column_int(st, col);
		break;
	case FACT_FUNC:
		*fact_int(e, fd) = sqlite3_column_int(st, col);
		*bad |= sqlite3_column_int64(st, col) < 0 ||
			(size_t)sqlite3_column_int64(st, col) >= nr_funcs;
		break;
	}
	return true;
}

/* A value that cannot be: the database is damaged (its pages are not). */
static void bad_value(struct db *db, const char *table)
{
	if (db->failed)
		return;
	db->failed = -EBADMSG;
	snprintf(db->error, sizeof(db->error), "%s: a damaged database (a "
		 "value missing or out of range in its %s table): remove it "
		 "to start again", db->path, table);
}

static void load_record(struct db *db, sqlite3_int64 id, struct tu_facts *f,
			const struct fact_record *r)
{
	struct bytes b = { 0 };
	sqlite3_stmt *st;
	size_t k;
	char *s;
	int rc;

	bytes_put(&b, "SELECT ", 7);
	for (k = 0; k < r->nr_fields; k++) {
		s = xasprintf("%s\"%s\"", k ? ", " : "", r->fields[k].name);
		bytes_put(&b, s, strlen(s));
		free(s);
	}
	s = xasprintf(" FROM \"%s\" WHERE tu = ? ORDER BY rowid", r->table);
	bytes_put(&b, s, strlen(s) + 1);
	free(s);
	st = db_prep_kept(db, (const char *)b.data);
	free(b.data);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t nr_funcs = f->nr_funcs;
		void *e = fact_push(f, r);
		bool keep = true, bad = false;

		for (k = 0; k < r->nr_fields; k++)
			keep &= load_field(st, (int)k, &r->fields[k], e,
					   nr_funcs, &bad);
		if (bad) {
			bad_value(db, r->table);
			keep = false;
		}
		if (!keep) {
			/* Free what was read, and forget the element. */
			for (k = 0; k < r->nr_fields; k++)
				if (r->fields[k].kind <= FACT_STR)
					free(*fact_str(e, &r->fields[k]));
			(*fact_count(f, r->count))--;
		}
	}
	db_read_end(db, rc);
	db_kept_done(st);
}

static void load_strlist(struct db *db, sqlite3_int64 id, struct tu_facts *f,
			 const struct fact_strlist *l)
{
	char *sql = xasprintf("SELECT \"%s\" FROM \"%s\" WHERE tu = ? "
			      "ORDER BY rowid", l->column, l->table);
	sqlite3_stmt *st = db_prep_kept(db, sql);
	char ***v = (char ***)fact_array(f, l->array);
	size_t *nr = fact_count(f, l->count), *alloc = fact_count(f, l->alloc);
	int rc;

	free(sql);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *c = col_str(st, 0);

		if (!c) {
			bad_value(db, l->table);
			break;
		}
		*PUSH(*v, *nr, *alloc) = c;
	}
	db_read_end(db, rc);
	db_kept_done(st);
}

/* What load() reads of a TU: its row, its facts, and its lists. */
enum load_what { LOAD_HEAD, LOAD_LINKED, LOAD_ALL };

static int load(struct db *db, const char *path, const char *key,
		struct tu_facts *f, enum load_what what);

int db_load(struct db *db, const char *path, struct tu_facts *f)
{
	return load(db, path, NULL, f, LOAD_ALL);
}

int db_load_linked(struct db *db, const char *path, const char *key,
		   struct tu_facts *f)
{
	return load(db, path, key, f, LOAD_LINKED);
}

int db_load_head(struct db *db, const char *path, const char *key,
		 struct tu_facts *f)
{
	return load(db, path, key, f, LOAD_HEAD);
}

static int load_rows(struct db *db, const char *path, const char *key,
		     struct tu_facts *f, enum load_what what);

/*
 * One TU's rows in one read transaction (or the caller's snapshot): a
 * writer's commit between them would mix two versions of its facts.
 */
static int load(struct db *db, const char *path, const char *key,
		struct tu_facts *f, enum load_what what)
{
	bool own = sqlite3_get_autocommit(db->h) != 0;
	int ret;

	memset(f, 0, sizeof(*f));
	if (own && db_exec(db, "BEGIN"))
		return db_fail(db, -EBADMSG);
	ret = load_rows(db, path, key, f, what);
	if (own)
		db_exec(db, "COMMIT");
	return ret;
}

static int load_rows(struct db *db, const char *path, const char *key,
		     struct tu_facts *f, enum load_what what)
{
	const unsigned char *stored;
	sqlite3_int64 id;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	st = db_prep_kept(db, "SELECT id, parse_error, nr_errors, first_error,"
			  " retried, tables_seen, key FROM tu WHERE path = ?");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_read_end(db, rc);
		db_kept_done(st);
		return db->failed ? db->failed : -ENOENT;
	}
	stored = sqlite3_column_text(st, 6);
	if (key && (!stored || strcmp((const char *)stored, key))) {
		/* Another run stored this TU since the caller read its key. */
		db_kept_done(st);
		return -ESTALE;
	}
	id = sqlite3_column_int64(st, 0);
	f->file = xstrdup(path);
	f->parse_error = sqlite3_column_int(st, 1);
	f->nr_errors = (unsigned int)sqlite3_column_int(st, 2);
	f->first_error = col_str(st, 3);
	f->retried = sqlite3_column_int(st, 4);
	f->tables_seen = (unsigned int)sqlite3_column_int64(st, 5);
	db_kept_done(st);
	for (i = 0; what != LOAD_HEAD && i < fact_records_size; i++)
		load_record(db, id, f, &fact_records[i]);
	for (i = 0; what != LOAD_HEAD && i < fact_strlists_size; i++)
		if (what == LOAD_ALL)
			load_strlist(db, id, f, &fact_strlists[i]);
	if (db->failed) {
		facts_free(f);
		return db->failed;
	}
	return 0;
}

size_t db_prune(struct db *db, const char *const *keep, size_t nr)
{
	struct strmap kept;
	char **all;
	size_t n, i, removed = 0;

	if (db->readonly)
		return 0;
	n = db_tus(db, &all);
	strmap_init(&kept);
	for (i = 0; i < nr; i++)
		strmap_put(&kept, keep[i], 1);

	for (i = 0; i < n; i++) {
		if (strmap_get(&kept, all[i]) < 0) {
			sqlite3_int64 id = tu_id(db, all[i]);
			char *sql = xasprintf("DELETE FROM tu WHERE id = %lld",
					      (long long)id);

			if (!db->failed && !db_exec_w(db, "BEGIN IMMEDIATE") &&
			    !db_first_write(db) && !delete_tu(db, id) &&
			    !db_exec_w(db, sql) && !db_exec_w(db, "COMMIT"))
				removed++;
			else
				db_exec(db, "ROLLBACK");
			free(sql);
		}
		free(all[i]);
	}
	free(all);
	strmap_free(&kept);
	return removed;
}

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
	/*
	 * Under the write lock: has another process stored a TU, or a file
	 * hash (the link would stand for a file table of another tree),
	 * since?
	 */
	if (db->files_foreign || files_gen(db) != db->files_seen ||
	    !still(arg)) {
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

/*
 * The join of databases kept as one (db_join()): what @src holds that
 * @db does not, copied table by table under one transaction of @db.
 */

/* "a", "b", "c": the columns of @r after its TU, quoted, joined. */
static char *record_columns(const struct fact_record *r, const char *prefix)
{
	struct bytes b = { 0 };
	size_t k;
	char *s;

	for (k = 0; k < r->nr_fields; k++) {
		s = xasprintf("%s%s\"%s\"", k ? ", " : "", prefix,
			      r->fields[k].name);
		bytes_put(&b, s, strlen(s));
		free(s);
	}
	bytes_put(&b, "", 1);
	return (char *)b.data;
}

/* The facts of the TUs merge_ids maps, from src's @table into main's. */
static int copy_table(struct db *db, const char *table, const char *cols,
		      const char *src_cols)
{
	char *sql = xasprintf("INSERT INTO main.\"%s\" (tu%s%s) SELECT i.new"
			      "%s%s FROM src.\"%s\" t JOIN temp.merge_ids i ON "
			      "t.tu = i.old ORDER BY t.rowid", table,
			      *cols ? ", " : "", cols, *src_cols ? ", " : "",
			      src_cols, table);
	int ret = db_exec_w(db, sql);

	free(sql);
	return ret;
}

/* Each facts table of the attached src, for the TUs merge_ids maps. */
static int copy_facts(struct db *db, bool (*halt)(void))
{
	size_t i;
	char *cols, *src_cols, *c;
	int ret = 0;

	for (i = 0; i < fact_records_size && !ret; i++) {
		cols = record_columns(&fact_records[i], "");
		src_cols = record_columns(&fact_records[i], "t.");
		ret = copy_table(db, fact_records[i].table, cols, src_cols);
		free(src_cols);
		free(cols);
		if (!ret && halt && halt())
			ret = -EINTR;
	}
	for (i = 0; i < fact_strlists_size && !ret; i++) {
		cols = xasprintf("\"%s\"", fact_strlists[i].column);
		c = xasprintf("t.\"%s\"", fact_strlists[i].column);
		ret = copy_table(db, fact_strlists[i].table, cols, c);
		free(c);
		free(cols);
		if (!ret && halt && halt())
			ret = -EINTR;
	}
	return ret;
}

/*
 * Copy into @db the TUs of the database @path it does not hold (by path),
 * their facts and the file hashes it does not have; *@added: how many
 * TUs. @path is first opened as trapcheck report opens a database (its
 * schema, a last run that ended, one architecture).
 */
static int merge_one(struct db *db, const char *path, size_t *added,
		     bool (*halt)(void), char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct db *src;
	long long base = 0;
	char *uri;
	int ret;

	ret = db_open(&src, path, DB_READ, err, errlen);
	if (ret)
		return ret;
	if (!src->root) {
		snprintf(err, errlen, "%s: the database is empty", path);
		db_close(src);
		return -ENOENT;
	}
	if (src->arch && db->arch && strcmp(src->arch, db->arch)) {
		snprintf(err, errlen, "%s: its facts are of arch/%s, those "
			 "joined before of arch/%s: one architecture per "
			 "database", path, src->arch, db->arch);
		db_close(src);
		return -EINVAL;
	}
	if (!db->root)
		db->root = xstrdup(src->root);
	if (!db->arch && src->arch)
		db->arch = xstrdup(src->arch);
	db_close(src);

	/* Read only: nothing written beside an input, not even its log. */
	uri = NULL;
	ret = readonly_uri(path, &uri, err, errlen);
	if (ret < 0)
		return ret;
	if (!uri) {
		char *e = uri_escape(path);

		uri = xasprintf("file:%s?mode=ro", e);
		free(e);
	}
	st = db_prep(db, "ATTACH DATABASE ? AS src");
	if (!st) {
		free(uri);
		goto err_said;
	}
	sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
	ret = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	free(uri);
	if (ret) {
		snprintf(err, errlen, "%s: cannot read the database: %s", path,
			 sqlite3_errmsg(db->h));
		return -EIO;
	}
	if (db_exec_w(db, "BEGIN IMMEDIATE"))
		goto err_detach;
	if (db_meta_set(db, "root", db->root) ||
	    (db->arch && db_meta_set(db, "arch", db->arch)) ||
	    db_exec_w(db, "INSERT OR IGNORE INTO main.file SELECT path, "
		      "mtime, size, hash FROM src.file") ||
	    db_exec_w(db, "CREATE TEMP TABLE IF NOT EXISTS merge_ids (old "
		      "INTEGER PRIMARY KEY, new INTEGER)") ||
	    db_exec_w(db, "DELETE FROM temp.merge_ids"))
		goto err_rollback;
	st = db_prep(db, "SELECT coalesce(max(id), 0) FROM main.tu");
	if (!st)
		goto err_rollback;
	if (sqlite3_step(st) == SQLITE_ROW)
		base = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (db_exec_w(db, "INSERT INTO main.tu (path, key, parse_error, "
		      "nr_errors, first_error, retried, tables_seen) SELECT "
		      "path, key, parse_error, nr_errors, first_error, "
		      "retried, tables_seen FROM src.tu WHERE path NOT IN "
		      "(SELECT path FROM main.tu) ORDER BY id"))
		goto err_rollback;
	*added = (size_t)sqlite3_changes(db->h);
	st = db_prep(db, "INSERT INTO temp.merge_ids SELECT s.id, m.id FROM "
		     "src.tu s JOIN main.tu m ON m.path = s.path WHERE m.id > ?");
	if (!st)
		goto err_rollback;
	sqlite3_bind_int64(st, 1, base);
	ret = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(db, -EIO);
	sqlite3_finalize(st);
	if (ret)
		goto err_rollback;
	ret = copy_facts(db, halt);
	if (ret == -EINTR) {
		db_exec(db, "ROLLBACK");
		db_exec(db, "DETACH DATABASE src");
		return ret;
	}
	if (ret || db_exec_w(db, "COMMIT"))
		goto err_rollback;
	if (db_exec_w(db, "DETACH DATABASE src"))
		goto err_said;
	return 0;

err_rollback:
	db_exec(db, "ROLLBACK");
err_detach:
	db_exec(db, "DETACH DATABASE src");
err_said:
	db_error(db, err, errlen);
	return db->failed ? db->failed : -EIO;
}

/* @path and the files SQLite keeps beside it, gone. */
static void unlink_db(const char *path)
{
	static const char *const side[] = { "-wal", "-shm", "-journal" };
	size_t i;
	char *s;

	for (i = 0; i < ARRAY_SIZE(side); i++) {
		s = xasprintf("%s%s", path, side[i]);
		unlink(s);
		free(s);
	}
	unlink(path);
}

int db_join(const char *out, const char *const *paths, size_t nr,
	    size_t *tus, bool (*halt)(void), char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
	struct db *db = NULL;
	struct stat sb;
	size_t i, added, len;
	int ret;

	*tus = 0;
	if (!stat(out, &sb) && !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: cannot write the joined database "
			 "there: not a regular file", out);
		ret = -EINVAL;
		goto out_free;
	}
	unlink_db(tmp);
	ret = db_open(&db, tmp, DB_WRITE, err, errlen);
	if (ret)
		goto out_unlink;
	for (i = 0; i < nr && !ret; i++) {
		added = 0;
		ret = merge_one(db, paths[i], &added, halt, err, errlen);
		*tus += added;
		if (!ret && halt && halt())
			ret = -EINTR;
	}
	if (!ret && (db_exec_w(db, "BEGIN IMMEDIATE") ||
		     db_meta_set(db, "run", "done") ||
		     db_exec_w(db, "COMMIT")))
		ret = db_error(db, err, errlen) ? db->failed : -EIO;
	if (!ret && sqlite3_wal_checkpoint_v2(db->h, NULL,
					      SQLITE_CHECKPOINT_TRUNCATE,
					      NULL, NULL) != SQLITE_OK) {
		db_fail(db, -EIO);
		db_error(db, err, errlen);
		ret = -EIO;
	}
	if (ret == -EINTR)
		snprintf(err, errlen, "interrupted: %s not written", out);
	db_close(db);
	if (!ret && rename(tmp, out)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot write the joined database: "
			 "%s", out, strerror(-ret));
		ret = -EIO;
	}
	if (!ret) {
		/* The new file has no log; an old one's would be wrong. */
		free(tmp);
		tmp = xasprintf("%s-wal", out);
		unlink(tmp);
		free(tmp);
		tmp = xasprintf("%s-shm", out);
		unlink(tmp);
		goto out_free;
	}
out_unlink:
	unlink_db(tmp);
	/* Said of the file asked for, not of the one beside it. */
	len = strlen(tmp);
	if (!strncmp(err, tmp, len)) {
		char *rest = xstrdup(err + len);

		snprintf(err, errlen, "%s%s", out, rest);
		free(rest);
	}
out_free:
	free(tmp);
	return ret;
}
