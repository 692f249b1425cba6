// SPDX-License-Identifier: GPL-2.0
/*
 * db.c - the SQLite facts database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "trapcheck/db.h"
#include "trapcheck/sinks.h"

struct db {
	sqlite3 *h;
	char *path;
	char *root;
	/* This run's file hashes: each file is stat()ed and looked up once. */
	struct strmap hashes;
	char **hash_v;
	size_t nr_hash, alloc_hash;
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS file (path TEXT PRIMARY KEY, mtime INTEGER,"
	" size INTEGER, hash TEXT);"
	"CREATE TABLE IF NOT EXISTS tu (id INTEGER PRIMARY KEY, path TEXT UNIQUE,"
	" key TEXT, parse_error INTEGER, nr_errors INTEGER, first_error TEXT,"
	" retried INTEGER, have_ftr INTEGER, have_caps INTEGER);"
	"CREATE TABLE IF NOT EXISTS include (tu INTEGER, file TEXT);"
	"CREATE TABLE IF NOT EXISTS func (tu INTEGER, ord INTEGER, key TEXT,"
	" name TEXT, file TEXT, line INTEGER, col INTEGER, is_static INTEGER,"
	" indirect INTEGER, cold INTEGER);"
	"CREATE TABLE IF NOT EXISTS call (tu INTEGER, caller INTEGER,"
	" callee_key TEXT, callee_name TEXT, callee_file TEXT,"
	" callee_line INTEGER, file TEXT, line INTEGER, col INTEGER,"
	" off INTEGER, via TEXT, guards TEXT, loop INTEGER,"
	" loop_guess INTEGER, args TEXT);"
	"CREATE TABLE IF NOT EXISTS sink (tu INTEGER, func INTEGER, sink TEXT,"
	" arg TEXT, file TEXT, line INTEGER, col INTEGER, off INTEGER,"
	" guards TEXT, loop INTEGER, loop_guess INTEGER);"
	"CREATE TABLE IF NOT EXISTS assign (tu INTEGER, member TEXT,"
	" fn_key TEXT, fn_name TEXT, fn_file TEXT, fn_line INTEGER,"
	" object TEXT);"
	"CREATE TABLE IF NOT EXISTS icall (tu INTEGER, caller INTEGER,"
	" member TEXT, file TEXT, line INTEGER, col INTEGER, off INTEGER,"
	" guards TEXT, loop INTEGER, loop_guess INTEGER);"
	"CREATE TABLE IF NOT EXISTS cap (tu INTEGER, name TEXT, type TEXT,"
	" scope INTEGER, matches TEXT, reg TEXT, field TEXT, min TEXT,"
	" midr INTEGER, tbl TEXT, file TEXT, line INTEGER);"
	"CREATE TABLE IF NOT EXISTS ftr (tu INTEGER, reg TEXT);"
	"CREATE INDEX IF NOT EXISTS include_tu ON include(tu);"
	"CREATE INDEX IF NOT EXISTS func_tu ON func(tu);"
	"CREATE INDEX IF NOT EXISTS call_tu ON call(tu);"
	"CREATE INDEX IF NOT EXISTS sink_tu ON sink(tu);";

static int exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	       -EIO;
}

static sqlite3_stmt *prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static char *meta_get(struct db *db, const char *key)
{
	sqlite3_stmt *st = prep(db, "SELECT value FROM meta WHERE key = ?");
	char *v = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static int meta_set(struct db *db, const char *key, const char *value)
{
	sqlite3_stmt *st = prep(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)");
	int ret;

	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	ret = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return ret;
}

int db_open(struct db **dbp, const char *path, char *err, size_t errlen)
{
	struct db *db = xcalloc(1, sizeof(*db));
	sqlite3_stmt *st;
	char *ver, want[16];
	bool fresh;
	int i;

	*dbp = NULL;
	db->path = xstrdup(path);
	strmap_init(&db->hashes);
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open the database: %s", path,
			 sqlite3_errmsg(db->h));
		goto err_close;
	}
	sqlite3_busy_timeout(db->h, 60000);
	/* Is it a database at all? */
	st = prep(db, "SELECT count(*) FROM sqlite_master");
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "%s: not a trapcheck database (not "
			 "SQLite, or corrupt): %s", path, sqlite3_errmsg(db->h));
		sqlite3_finalize(st);
		goto err_close;
	}
	sqlite3_finalize(st);
	/* WAL: readers and one writer at a time (make -j runs many of us). */
	for (i = 0; i < 100 && exec(db, "PRAGMA journal_mode=WAL"); i++)
		sqlite3_sleep(50);
	exec(db, "PRAGMA synchronous=NORMAL");
	/*
	 * Creation and the version check under the write lock, so that a
	 * process never sees the tables of another one half made.
	 */
	if (exec(db, "BEGIN IMMEDIATE")) {
		snprintf(err, errlen, "%s: cannot lock the database: %s", path,
			 sqlite3_errmsg(db->h));
		goto err_close;
	}
	st = prep(db, "SELECT count(*) FROM sqlite_master");
	fresh = st && sqlite3_step(st) == SQLITE_ROW &&
		sqlite3_column_int(st, 0) == 0;
	sqlite3_finalize(st);
	snprintf(want, sizeof(want), "%d", DB_SCHEMA_VERSION);
	if (!fresh) {
		ver = meta_get(db, "trapcheck_schema");
		if (!ver || strcmp(ver, want)) {
			snprintf(err, errlen, "%s: %s (schema %s, this trapcheck "
				 "needs %s): remove it to start again", path,
				 ver ? "a trapcheck database of another version"
				     : "not a trapcheck database",
				 ver ? ver : "none", want);
			free(ver);
			exec(db, "ROLLBACK");
			goto err_close;
		}
		free(ver);
	}
	if (exec(db, schema) ||
	    (fresh && meta_set(db, "trapcheck_schema", want)) ||
	    exec(db, "COMMIT")) {
		snprintf(err, errlen, "%s: cannot set up the database: %s",
			 path, sqlite3_errmsg(db->h));
		exec(db, "ROLLBACK");
		goto err_close;
	}
	db->root = meta_get(db, "root");
	*dbp = db;
	return 0;

err_close:
	db_close(db);
	return -EINVAL;
}

void db_close(struct db *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nr_hash; i++)
		free(db->hash_v[i]);
	free(db->hash_v);
	strmap_free(&db->hashes);
	sqlite3_close(db->h);
	free(db->path);
	free(db->root);
	free(db);
}

const char *db_root(struct db *db)
{
	return db->root;
}

int db_set_root(struct db *db, const char *root)
{
	free(db->root);
	db->root = xstrdup(root);
	return meta_set(db, "root", root);
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
	char *path = rel[0] == '/' ? xstrdup(rel) :
		     xasprintf("%s/%s", root, rel);
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
		sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)sb.st_mtim.tv_sec *
				   1000000000 + sb.st_mtim.tv_nsec);
		sqlite3_bind_int64(st, 3, sb.st_size);
		if (sqlite3_step(st) == SQLITE_ROW)
			hash = xstrdup((const char *)sqlite3_column_text(st,
									   0));
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
	st = prep(db, "INSERT OR REPLACE INTO file VALUES (?, ?, ?, ?)");
	if (st) {
		sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)sb.st_mtim.tv_sec *
				   1000000000 + sb.st_mtim.tv_nsec);
		sqlite3_bind_int64(st, 3, sb.st_size);
		sqlite3_bind_text(st, 4, hash, -1, SQLITE_STATIC);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	return hash;
}

static sqlite3_int64 tu_id(struct db *db, const char *path)
{
	sqlite3_stmt *st = prep(db, "SELECT id FROM tu WHERE path = ?");
	sqlite3_int64 id = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

char *db_tu_key(struct db *db, const char *path)
{
	sqlite3_stmt *st = prep(db, "SELECT key FROM tu WHERE path = ?");
	char *key = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		key = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return key;
}

static size_t column_list(struct db *db, const char *sql, const char *arg,
			  char ***out, char ***out2)
{
	sqlite3_stmt *st = prep(db, sql);
	size_t nr = 0, alloc = 0, alloc2 = 0, nr2 = 0;
	char **v = NULL, **v2 = NULL;

	if (st) {
		if (arg)
			sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			*PUSH(v, nr, alloc) = xstrdup((const char *)
				sqlite3_column_text(st, 0));
			if (out2)
				*PUSH(v2, nr2, alloc2) = xstrdup((const char *)
					sqlite3_column_text(st, 1));
		}
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

static int delete_tu(struct db *db, sqlite3_int64 id)
{
	static const char *const tables[] = {
		"include", "func", "call", "sink", "cap", "ftr", "assign",
		"icall",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		char *sql = xasprintf("DELETE FROM %s WHERE tu = %lld",
				      tables[i], (long long)id);
		int r = exec(db, sql);

		free(sql);
		if (r)
			return r;
	}
	return 0;
}

/* Run @st to completion and reset it for the next row. */
static int done(sqlite3_stmt *st)
{
	int r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r;
}

int db_store(struct db *db, const char *path, const char *key,
	     const struct tu_facts *f)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 id;
	size_t i;
	int r = 0;

	if (exec(db, "BEGIN IMMEDIATE"))
		return -EIO;
	id = tu_id(db, path);
	if (id >= 0)
		r = delete_tu(db, id);
	st = prep(db, "INSERT OR REPLACE INTO tu VALUES (?, ?, ?, ?, ?, ?, ?, "
		  "?, ?)");
	if (r || !st)
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
	if (done(st))
		goto err_rollback;
	sqlite3_finalize(st);
	id = sqlite3_last_insert_rowid(db->h);

	st = prep(db, "INSERT INTO include VALUES (?, ?)");
	for (i = 0; st && i < f->nr_includes; i++) {
		sqlite3_bind_int64(st, 1, id);
		bind_str(st, 2, f->includes[i]);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO func VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	for (i = 0; st && i < f->nr_funcs; i++) {
		const struct tu_func *fn = &f->funcs[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		bind_str(st, 3, fn->key);
		bind_str(st, 4, fn->name);
		bind_str(st, 5, fn->file);
		sqlite3_bind_int(st, 6, (int)fn->line);
		sqlite3_bind_int(st, 7, (int)fn->col);
		sqlite3_bind_int(st, 8, fn->is_static);
		sqlite3_bind_int(st, 9, fn->indirect_calls);
		sqlite3_bind_int(st, 10, fn->cold);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO call VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		  "?, ?, ?, ?, ?)");
	for (i = 0; st && i < f->nr_calls; i++) {
		const struct tu_call *c = &f->calls[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, c->caller);
		bind_str(st, 3, c->callee_key);
		bind_str(st, 4, c->callee_name);
		bind_str(st, 5, c->callee_file);
		sqlite3_bind_int(st, 6, (int)c->callee_line);
		bind_str(st, 7, c->file);
		sqlite3_bind_int(st, 8, (int)c->line);
		sqlite3_bind_int(st, 9, (int)c->col);
		sqlite3_bind_int(st, 10, (int)c->off);
		bind_str(st, 11, c->via);
		bind_str(st, 12, c->guards);
		sqlite3_bind_int(st, 13, (int)c->loop);
		sqlite3_bind_int(st, 14, (int)c->loop_guess);
		bind_str(st, 15, c->args);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO sink VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		  "?)");
	for (i = 0; st && i < f->nr_sinks; i++) {
		const struct tu_sink *k = &f->sinks[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, k->func);
		bind_str(st, 3, sink_table[k->sink].name);
		bind_str(st, 4, k->arg);
		bind_str(st, 5, k->file);
		sqlite3_bind_int(st, 6, (int)k->line);
		sqlite3_bind_int(st, 7, (int)k->col);
		sqlite3_bind_int(st, 8, (int)k->off);
		bind_str(st, 9, k->guards);
		sqlite3_bind_int(st, 10, (int)k->loop);
		sqlite3_bind_int(st, 11, (int)k->loop_guess);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO assign VALUES (?, ?, ?, ?, ?, ?, ?)");
	for (i = 0; st && i < f->nr_assigns; i++) {
		const struct tu_assign *a = &f->assigns[i];

		sqlite3_bind_int64(st, 1, id);
		bind_str(st, 2, a->member);
		bind_str(st, 3, a->fn_key);
		bind_str(st, 4, a->fn_name);
		bind_str(st, 5, a->fn_file);
		sqlite3_bind_int(st, 6, (int)a->fn_line);
		bind_str(st, 7, a->object);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO icall VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	for (i = 0; st && i < f->nr_icalls; i++) {
		const struct tu_icall *c = &f->icalls[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, c->caller);
		bind_str(st, 3, c->member);
		bind_str(st, 4, c->file);
		sqlite3_bind_int(st, 5, (int)c->line);
		sqlite3_bind_int(st, 6, (int)c->col);
		sqlite3_bind_int(st, 7, (int)c->off);
		bind_str(st, 8, c->guards);
		sqlite3_bind_int(st, 9, (int)c->loop);
		sqlite3_bind_int(st, 10, (int)c->loop_guess);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO cap VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		  "?)");
	for (i = 0; st && i < f->nr_caps; i++) {
		const struct tu_cap *c = &f->caps[i];

		sqlite3_bind_int64(st, 1, id);
		bind_str(st, 2, c->name);
		bind_str(st, 3, c->type);
		sqlite3_bind_int(st, 4, (int)c->scope);
		bind_str(st, 5, c->matches);
		bind_str(st, 6, c->reg);
		bind_str(st, 7, c->field);
		bind_str(st, 8, c->min);
		sqlite3_bind_int(st, 9, c->midr);
		bind_str(st, 10, c->table);
		bind_str(st, 11, c->file);
		sqlite3_bind_int(st, 12, (int)c->line);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO ftr VALUES (?, ?)");
	for (i = 0; st && i < f->nr_ftr; i++) {
		sqlite3_bind_int64(st, 1, id);
		bind_str(st, 2, f->ftr_regs[i]);
		if (done(st))
			goto err_rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (exec(db, "COMMIT"))
		goto err_rollback;
	return 0;

err_rollback:
	sqlite3_finalize(st);
	exec(db, "ROLLBACK");
	(void)r;
	return -EIO;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

int db_load(struct db *db, const char *path, struct tu_facts *f)
{
	sqlite3_int64 id;
	sqlite3_stmt *st;
	char idbuf[32];

	memset(f, 0, sizeof(*f));
	st = prep(db, "SELECT id, parse_error, nr_errors, first_error, retried,"
		  " have_ftr, have_caps FROM tu WHERE path = ?");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return -ENOENT;
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
	snprintf(idbuf, sizeof(idbuf), "%lld", (long long)id);

	st = prep(db, "SELECT key, name, file, line, col, is_static, indirect, "
		  "cold FROM func WHERE tu = ? ORDER BY ord");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct tu_func *fn = PUSH(f->funcs, f->nr_funcs,
					  f->alloc_funcs);

		fn->key = col_str(st, 0);
		fn->name = col_str(st, 1);
		fn->file = col_str(st, 2);
		fn->line = (unsigned int)sqlite3_column_int(st, 3);
		fn->col = (unsigned int)sqlite3_column_int(st, 4);
		fn->is_static = sqlite3_column_int(st, 5);
		fn->indirect_calls = sqlite3_column_int(st, 6);
		fn->cold = sqlite3_column_int(st, 7);
	}
	sqlite3_finalize(st);
	st = prep(db, "SELECT caller, callee_key, callee_name, callee_file, "
		  "callee_line, file, line, col, off, via, guards, loop, "
		  "loop_guess, args FROM call WHERE tu = ? ORDER BY rowid");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct tu_call *c = PUSH(f->calls, f->nr_calls,
					 f->alloc_calls);

		c->caller = sqlite3_column_int(st, 0);
		c->callee_key = col_str(st, 1);
		c->callee_name = col_str(st, 2);
		c->callee_file = col_str(st, 3);
		c->callee_line = (unsigned int)sqlite3_column_int(st, 4);
		c->file = col_str(st, 5);
		c->line = (unsigned int)sqlite3_column_int(st, 6);
		c->col = (unsigned int)sqlite3_column_int(st, 7);
		c->off = (unsigned int)sqlite3_column_int(st, 8);
		c->via = col_str(st, 9);
		c->guards = col_str(st, 10);
		c->loop = (unsigned int)sqlite3_column_int(st, 11);
		c->loop_guess = (unsigned int)sqlite3_column_int(st, 12);
		c->args = col_str(st, 13);
	}
	sqlite3_finalize(st);
	st = prep(db, "SELECT func, sink, arg, file, line, col, off, guards, "
		  "loop, loop_guess FROM sink WHERE tu = ? ORDER BY rowid");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		struct tu_sink *k;
		int s = sink_lookup(SINK_MACRO, name);

		if (s < 0)
			s = sink_lookup(SINK_CALL, name);
		if (s < 0)
			continue;	/* a sink this version dropped */
		k = PUSH(f->sinks, f->nr_sinks, f->alloc_sinks);
		k->func = sqlite3_column_int(st, 0);
		k->sink = s;
		k->arg = col_str(st, 2);
		k->file = col_str(st, 3);
		k->line = (unsigned int)sqlite3_column_int(st, 4);
		k->col = (unsigned int)sqlite3_column_int(st, 5);
		k->off = (unsigned int)sqlite3_column_int(st, 6);
		k->guards = col_str(st, 7);
		k->loop = (unsigned int)sqlite3_column_int(st, 8);
		k->loop_guess = (unsigned int)sqlite3_column_int(st, 9);
	}
	sqlite3_finalize(st);
	st = prep(db, "SELECT member, fn_key, fn_name, fn_file, fn_line, "
		  "object FROM assign WHERE tu = ? ORDER BY rowid");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct tu_assign *a = PUSH(f->assigns, f->nr_assigns,
					   f->alloc_assigns);

		a->member = col_str(st, 0);
		a->fn_key = col_str(st, 1);
		a->fn_name = col_str(st, 2);
		a->fn_file = col_str(st, 3);
		a->fn_line = (unsigned int)sqlite3_column_int(st, 4);
		a->object = col_str(st, 5);
	}
	sqlite3_finalize(st);
	st = prep(db, "SELECT caller, member, file, line, col, off, guards, "
		  "loop, loop_guess FROM icall WHERE tu = ? ORDER BY rowid");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct tu_icall *c = PUSH(f->icalls, f->nr_icalls,
					  f->alloc_icalls);

		c->caller = sqlite3_column_int(st, 0);
		c->member = col_str(st, 1);
		c->file = col_str(st, 2);
		c->line = (unsigned int)sqlite3_column_int(st, 3);
		c->col = (unsigned int)sqlite3_column_int(st, 4);
		c->off = (unsigned int)sqlite3_column_int(st, 5);
		c->guards = col_str(st, 6);
		c->loop = (unsigned int)sqlite3_column_int(st, 7);
		c->loop_guess = (unsigned int)sqlite3_column_int(st, 8);
	}
	sqlite3_finalize(st);
	st = prep(db, "SELECT name, type, scope, matches, reg, field, min, "
		  "midr, tbl, file, line FROM cap WHERE tu = ? ORDER BY rowid");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct tu_cap *c = PUSH(f->caps, f->nr_caps, f->alloc_caps);

		c->name = col_str(st, 0);
		c->type = col_str(st, 1);
		c->scope = (unsigned int)sqlite3_column_int(st, 2);
		c->matches = col_str(st, 3);
		c->reg = col_str(st, 4);
		c->field = col_str(st, 5);
		c->min = col_str(st, 6);
		c->midr = sqlite3_column_int(st, 7);
		c->table = col_str(st, 8);
		c->file = col_str(st, 9);
		c->line = (unsigned int)sqlite3_column_int(st, 10);
	}
	sqlite3_finalize(st);
	st = prep(db, "SELECT reg FROM ftr WHERE tu = ? ORDER BY rowid");
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW)
		*PUSH(f->ftr_regs, f->nr_ftr, f->alloc_ftr) = col_str(st, 0);
	sqlite3_finalize(st);
	return 0;
}

size_t db_prune(struct db *db, const char *const *keep, size_t nr)
{
	char **all;
	size_t n = db_tus(db, &all), i, j, removed = 0;

	for (i = 0; i < n; i++) {
		bool kept = false;

		for (j = 0; j < nr && !kept; j++)
			kept = !strcmp(all[i], keep[j]);
		if (!kept) {
			sqlite3_int64 id = tu_id(db, all[i]);
			char *sql = xasprintf("DELETE FROM tu WHERE id = %lld",
					      (long long)id);

			if (!exec(db, "BEGIN IMMEDIATE") &&
			    !delete_tu(db, id) && !exec(db, sql) &&
			    !exec(db, "COMMIT"))
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
