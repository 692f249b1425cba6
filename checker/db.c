// SPDX-License-Identifier: GPL-2.0
/*
 * db.c - the SQLite facts database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "trapcheck/db.h"
#include "trapcheck/sinks.h"

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
	/* This run's file hashes: each file is stat()ed and looked up once. */
	struct strmap hashes;
	char **hash_v;
	size_t nr_hash, alloc_hash;
};

/* The fixed tables; the facts' tables come from their descriptions. */
static const char schema_head[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS file (path TEXT PRIMARY KEY, mtime INTEGER,"
	" size INTEGER, hash TEXT);"
	"CREATE TABLE IF NOT EXISTS tu (id INTEGER PRIMARY KEY, path TEXT UNIQUE,"
	" key TEXT, parse_error INTEGER, nr_errors INTEGER, first_error TEXT,"
	" retried INTEGER, have_ftr INTEGER, have_caps INTEGER);";

static bool text_kind(enum fact_kind k)
{
	return k == FACT_KEY || k == FACT_STR || k == FACT_SINK;
}

/*
 * One table per record of checker/facts.def: the TU's id, then a column
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

static int exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	       -EIO;
}

/* A write: its failure is the run's (db_error()). */
static int exec_w(struct db *db, const char *sql)
{
	return exec(db, sql) ? db_fail(db, -EIO) : 0;
}

/* The end of a read loop: SQLITE_DONE, or damage (or I/O) recorded. */
static int read_end(struct db *db, int rc)
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

static sqlite3_stmt *prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, -EBADMSG);
		return NULL;
	}
	return st;
}

/* The text of the one row @sql selects with @arg, or NULL. */
static char *select_text(struct db *db, const char *sql, const char *arg)
{
	sqlite3_stmt *st = prep(db, sql);
	char *v = NULL;
	int rc;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	read_end(db, rc);
	sqlite3_finalize(st);
	return v;
}

static char *meta_get(struct db *db, const char *key)
{
	return select_text(db, "SELECT value FROM meta WHERE key = ?", key);
}

static int meta_set(struct db *db, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int ret;

	if (db->readonly)
		return db_fail(db, -EIO);
	st = prep(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)");
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
	char *v = select_text(db, "PRAGMA quick_check(1)", NULL);

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
	int ret = exec(db, schema);

	free(schema);
	if (ret || (fresh && meta_set(db, "trapcheck_schema", want)) ||
	    exec(db, "COMMIT")) {
		why(db, err, errlen);
		schema = xstrdup(err);
		snprintf(err, errlen, "%s: cannot set up the database: %s",
			 db->path, schema);
		free(schema);
		exec(db, "ROLLBACK");
		return -EIO;
	}
	return 0;
}

int db_open(struct db **dbp, const char *path, enum db_mode mode, char *err,
	    size_t errlen)
{
	struct db *db = xcalloc(1, sizeof(*db));
	sqlite3_stmt *st;
	char *ver, want[16], *state = NULL, *qc;
	bool fresh, write;
	int i, ret, flags;

	*dbp = NULL;
	db->path = xstrdup(path);
	db->mode = mode;
	strmap_init(&db->hashes);
	ret = check_file(db, path, mode, err, errlen);
	if (ret)
		goto err_close;
	db->readonly |= mode == DB_READ;
	write = !db->readonly;
	flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE :
			SQLITE_OPEN_READONLY;
	ret = -EINVAL;
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open the database: %s", path,
			 sqlite3_errmsg(db->h));
		goto err_close;
	}
	sqlite3_extended_result_codes(db->h, 0);
	sqlite3_busy_timeout(db->h, 60000);
	/* Damage in a page's cells is found when it is read. */
	exec(db, "PRAGMA cell_size_check=ON");
	/* Is it a database at all? */
	st = prep(db, "SELECT count(*) FROM sqlite_master");
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "%s: not a trapcheck database (not "
			 "SQLite, or damaged): %s", path, sqlite3_errmsg(db->h));
		sqlite3_finalize(st);
		goto err_close;
	}
	fresh = !sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	snprintf(want, sizeof(want), "%d", DB_SCHEMA_VERSION);
	if (fresh && db->readonly) {
		if (mode == DB_READ)
			snprintf(err, errlen, "%s: not a trapcheck database "
				 "(no tables)", path);
		else
			snprintf(err, errlen, "%s: cannot write the database: "
				 "%s", path, db->error);
		goto err_close;
	}
	if (!fresh) {
		ver = meta_get(db, "trapcheck_schema");
		if (!ver || strcmp(ver, want)) {
			snprintf(err, errlen, "%s: %s (schema %s, this trapcheck "
				 "needs %s): remove it to start again", path,
				 ver ? "a trapcheck database of another version"
				     : "not a trapcheck database",
				 ver ? ver : "none", want);
			free(ver);
			goto err_close;
		}
		free(ver);
		/*
		 * A run that did not end (killed, a failed write, no space)
		 * may have left damage a clean one would not: look first.
		 */
		state = meta_get(db, "run");
		db->was_unclean = state && strcmp(state, "done");
		if (db->was_unclean) {
			qc = quick_check(db);
			if (strcmp(qc, "ok")) {
				one_line(qc);
				snprintf(err, errlen, "%s: a damaged database "
					 "(%s): remove it to start again",
					 path, qc);
				free(qc);
				ret = -EBADMSG;
				goto err_close;
			}
			free(qc);
		}
		if (db->failed) {
			snprintf(err, errlen, "%s", db->error);
			ret = db->failed;
			goto err_close;
		}
	}
	if (mode == DB_READ && state && strcmp(state, "done")) {
		snprintf(err, errlen, "%s: its last run did not end (%s): its "
			 "facts may be incomplete; run trapcheck -p TREE --db "
			 "%s to finish it", path, !strcmp(state, "interrupted") ?
			 "interrupted" : "killed, failed or still running",
			 path);
		goto err_close;
	}
	if (write) {
		/* WAL: readers and one writer at a time (make -j runs us). */
		for (i = 0; (ret = exec(db, "PRAGMA journal_mode=WAL")) &&
		     sqlite3_errcode(db->h) == SQLITE_BUSY && i < 100; i++)
			sqlite3_sleep(50);
		if (ret || exec(db, "PRAGMA synchronous=NORMAL")) {
			why(db, err, errlen);
			qc = xstrdup(err);
			snprintf(err, errlen, "%s: cannot set up the database: "
				 "%s", path, qc);
			free(qc);
			ret = -EIO;
			goto err_close;
		}
		if (exec(db, "BEGIN IMMEDIATE")) {
			snprintf(err, errlen, "%s: cannot lock the database: "
				 "%s", path, sqlite3_errmsg(db->h));
			ret = sqlite3_errcode(db->h) == SQLITE_BUSY ? -EINVAL :
								   -EIO;
			goto err_close;
		}
		ret = set_up(db, fresh, want, err, errlen);
		if (ret)
			goto err_close;
	}
	free(state);
	db->root = meta_get(db, "root");
	db->arch = meta_get(db, "arch");
	if (db->failed) {
		snprintf(err, errlen, "%s", db->error);
		one_line(err);
		ret = db->failed;
		db_close(db);
		return ret;
	}
	*dbp = db;
	return 0;

err_close:
	/* SQLite quotes a damaged schema: one line all the same. */
	one_line(err);
	free(state);
	db_close(db);
	return ret;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	strv_free(db->hash_v, db->nr_hash);
	strmap_free(&db->hashes);
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
static int first_write(struct db *db)
{
	if (!db->pending)
		return 0;
	if ((db->new_root && meta_set(db, "root", db->root)) ||
	    (db->new_arch && meta_set(db, "arch", db->arch)) ||
	    (db->track && meta_set(db, "run", "running")))
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
	if (first_write(db) ||
	    meta_set(db, "run", done ? "done" : "interrupted"))
		return -EIO;
	db->running = false;
	/* What the WAL holds, into the database file: failures are said. */
	if (sqlite3_wal_checkpoint_v2(db->h, NULL, SQLITE_CHECKPOINT_TRUNCATE,
				      NULL, NULL) != SQLITE_OK &&
	    sqlite3_errcode(db->h) != SQLITE_BUSY)
		return db_fail(db, -EIO);
	return 0;
}

static char *file_hash(struct db *db, const char *root, const char *rel);

char *db_file_hash(struct db *db, const char *root, const char *rel)
{
	int i = strmap_get(&db->hashes, rel);
	char *h;

	if (i >= 0)
		return xstrdup(db->hash_v[i]);
	h = file_hash(db, root, rel);
	strmap_put(&db->hashes, rel, (int)db->nr_hash);
	*PUSH(db->hash_v, db->nr_hash, db->alloc_hash) = xstrdup(h);
	return h;
}

static char *file_hash(struct db *db, const char *root, const char *rel)
{
	char *path = path_join(root, rel);
	sqlite3_stmt *st;
	struct stat sb;
	char *hash = NULL, buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	FILE *f;
	size_t n, i;

	if (stat(path, &sb)) {
		free(path);
		return xstrdup("missing");
	}
	st = prep(db, "SELECT hash FROM file WHERE path = ? AND mtime = ? AND "
		  "size = ?");
	if (st) {
		int rc;

		sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)sb.st_mtim.tv_sec *
				   1000000000 + sb.st_mtim.tv_nsec);
		sqlite3_bind_int64(st, 3, sb.st_size);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
			hash = xstrdup((const char *)sqlite3_column_text(st,
									   0));
		read_end(db, rc);
		sqlite3_finalize(st);
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
	if (first_write(db))
		return hash;	/* the failure is the run's */
	st = prep(db, "INSERT OR REPLACE INTO file VALUES (?, ?, ?, ?)");
	if (st) {
		sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)sb.st_mtim.tv_sec *
				   1000000000 + sb.st_mtim.tv_nsec);
		sqlite3_bind_int64(st, 3, sb.st_size);
		sqlite3_bind_text(st, 4, hash, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			db_fail(db, -EIO);
		sqlite3_finalize(st);
	} else {
		db_fail(db, -EIO);
	}
	return hash;
}

static sqlite3_int64 tu_id(struct db *db, const char *path)
{
	sqlite3_stmt *st = prep(db, "SELECT id FROM tu WHERE path = ?");
	sqlite3_int64 id = -1;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	read_end(db, rc);
	sqlite3_finalize(st);
	return id;
}

char *db_tu_key(struct db *db, const char *path)
{
	return select_text(db, "SELECT key FROM tu WHERE path = ?", path);
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static size_t column_list(struct db *db, const char *sql, const char *arg,
			  char ***out, char ***out2)
{
	sqlite3_stmt *st = prep(db, sql);
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
		read_end(db, rc);
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
	int r = exec_w(db, sql);

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
	return 0;
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
	st = prep(db, (const char *)b.data);
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
	if (exec_w(db, "BEGIN IMMEDIATE"))
		return -EIO;
	r = first_write(db);
	id = r ? -1 : tu_id(db, path);
	if (id >= 0)
		r = delete_tu(db, id);
	st = prep(db, "INSERT OR REPLACE INTO tu VALUES (?, ?, ?, ?, ?, ?, ?, "
		  "?, ?)");
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
	sqlite3_bind_int(st, 8, f->have_ftr);
	sqlite3_bind_int(st, 9, f->have_caps);
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
	if (r || exec_w(db, "COMMIT"))
		goto err_rollback;
	return 0;

err_rollback:
	sqlite3_finalize(st);
	db_fail(db, -EIO);
	exec(db, "ROLLBACK");
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
	st = prep(db, (const char *)b.data);
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
	read_end(db, rc);
	sqlite3_finalize(st);
}

static void load_strlist(struct db *db, sqlite3_int64 id, struct tu_facts *f,
			 const struct fact_strlist *l)
{
	char *sql = xasprintf("SELECT \"%s\" FROM \"%s\" WHERE tu = ? "
			      "ORDER BY rowid", l->column, l->table);
	sqlite3_stmt *st = prep(db, sql);
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
	read_end(db, rc);
	sqlite3_finalize(st);
}

int db_load(struct db *db, const char *path, struct tu_facts *f)
{
	sqlite3_int64 id;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	memset(f, 0, sizeof(*f));
	st = prep(db, "SELECT id, parse_error, nr_errors, first_error, retried,"
		  " have_ftr, have_caps FROM tu WHERE path = ?");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		read_end(db, rc);
		sqlite3_finalize(st);
		return db->failed ? db->failed : -ENOENT;
	}
	id = sqlite3_column_int64(st, 0);
	f->file = xstrdup(path);
	f->parse_error = sqlite3_column_int(st, 1);
	f->nr_errors = (unsigned int)sqlite3_column_int(st, 2);
	f->first_error = col_str(st, 3);
	f->retried = sqlite3_column_int(st, 4);
	f->have_ftr = sqlite3_column_int(st, 5);
	f->have_caps = sqlite3_column_int(st, 6);
	sqlite3_finalize(st);
	for (i = 0; i < fact_records_size; i++)
		load_record(db, id, f, &fact_records[i]);
	for (i = 0; i < fact_strlists_size; i++)
		load_strlist(db, id, f, &fact_strlists[i]);
	if (db->failed) {
		tu_facts_free(f);
		return db->failed;
	}
	return 0;
}

size_t db_prune(struct db *db, const char *const *keep, size_t nr)
{
	char **all;
	size_t n, i, j, removed = 0;

	if (db->readonly)
		return 0;
	n = db_tus(db, &all);

	for (i = 0; i < n; i++) {
		bool kept = false;

		for (j = 0; j < nr && !kept; j++)
			kept = !strcmp(all[i], keep[j]);
		if (!kept) {
			sqlite3_int64 id = tu_id(db, all[i]);
			char *sql = xasprintf("DELETE FROM tu WHERE id = %lld",
					      (long long)id);

			if (!db->failed && !exec_w(db, "BEGIN IMMEDIATE") &&
			    !first_write(db) && !delete_tu(db, id) &&
			    !exec_w(db, sql) && !exec_w(db, "COMMIT"))
				removed++;
			else
				exec(db, "ROLLBACK");
			free(sql);
		}
		free(all[i]);
	}
	free(all);
	return removed;
}
