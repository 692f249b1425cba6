// SPDX-License-Identifier: GPL-2.0
/*
 * db-facts.c - what the facts database holds (db-internal.h): the file
 * hash cache, each TU's facts, stored in one transaction and loaded back
 * with every value checked, and the TUs a run no longer has, pruned.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trapcheck/model/sinks.h"

#include "db-internal.h"

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
	if (db->streaming) {
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

	if (db->readonly || db->failed)
		return;	/* not kept, or the failure is the run's */
	if (db_exec_w(db, "BEGIN IMMEDIATE"))
		return;
	if (db_first_write(db) || db_exec_w(db, "DELETE FROM link"))
		goto err_rollback;
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
	store_held(db);
	return db->failed ? db->failed : nr;
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
	/* The stored link merged the facts going now (db-link.c). */
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
		/* A new TU: the link's key check is not alone (db-link.c). */
		r = db_exec_w(db, "DELETE FROM link");
	st = db_prep(db, "INSERT OR REPLACE INTO tu VALUES (?, ?, ?, ?, ?, ?, ?, "
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

/* What load() reads of a TU: its row, and its facts, and its includes. */
enum load_what { LOAD_HEAD, LOAD_LINKED, LOAD_ALL };

static int load(struct db *db, const char *path, struct tu_facts *f,
		enum load_what what);

int db_load(struct db *db, const char *path, struct tu_facts *f)
{
	return load(db, path, f, LOAD_ALL);
}

int db_load_linked(struct db *db, const char *path, struct tu_facts *f)
{
	return load(db, path, f, LOAD_LINKED);
}

int db_load_head(struct db *db, const char *path, struct tu_facts *f)
{
	return load(db, path, f, LOAD_HEAD);
}

static int load(struct db *db, const char *path, struct tu_facts *f,
		enum load_what what)
{
	sqlite3_int64 id;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	memset(f, 0, sizeof(*f));
	st = db_prep_kept(db, "SELECT id, parse_error, nr_errors, first_error,"
			  " retried, have_ftr, have_caps FROM tu WHERE path = ?");
	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_read_end(db, rc);
		db_kept_done(st);
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
	db_kept_done(st);
	for (i = 0; what != LOAD_HEAD && i < fact_records_size; i++)
		load_record(db, id, f, &fact_records[i]);
	for (i = 0; what != LOAD_HEAD && i < fact_strlists_size; i++)
		if (what == LOAD_ALL || fact_strlists[i].array !=
				offsetof(struct tu_facts, includes))
			load_strlist(db, id, f, &fact_strlists[i]);
	if (db->failed) {
		tu_facts_free(f);
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
