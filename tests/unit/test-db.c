// SPDX-License-Identifier: GPL-2.0
/*
 * test-db.c - the facts database's reads: a TU stored and loaded back
 * whole (db_load()) and as the link reads it (db_load_linked(): no
 * include list), its include list whole and streamed in the same order,
 * the statements kept between reads giving the same answer each time,
 * pruning by the kept list, a file hash found while the include list is
 * read stored once the read ends (waiting for another writer), and a
 * NULL include row refused as damage
 * (each test reads what the one before stored: cmocka runs them in
 * order).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "trapcheck/store/db.h"

static char dir[] = "/tmp/trapcheck-test-db.XXXXXX";

static void facts(struct tu_facts *f, const char *file, size_t nr_inc)
{
	struct tu_func *fn;
	struct tu_call *c;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->file = xstrdup(file);
	fn = PUSH(f->funcs, f->nr_funcs, f->alloc_funcs);
	memset(fn, 0, sizeof(*fn));
	fn->key = xasprintf("c:@F@fn_%s", file);
	fn->name = xstrdup("fn");
	fn->file = xstrdup(file);
	fn->line = 3;
	c = PUSH(f->calls, f->nr_calls, f->alloc_calls);
	memset(c, 0, sizeof(*c));
	c->callee_key = xstrdup("c:@F@callee");
	c->callee_name = xstrdup("callee");
	c->file = xstrdup(file);
	c->line = 4;
	c->guards = xstrdup("!x");
	for (i = 0; i < nr_inc; i++)
		*PUSH(f->includes, f->nr_includes, f->alloc_includes) =
			xasprintf("include/h%zu.h", nr_inc - i);
}

static struct db *open_db(void)
{
	char *path = xasprintf("%s/facts.db", dir);
	char err[256];
	struct db *db;

	assert_int_equal(db_open(&db, path, DB_WRITE, err, sizeof(err)), 0);
	free(path);
	assert_int_equal(db_begin_run(db, dir, "arm64", true), 0);
	return db;
}

static void count_file(const char *file, void *arg)
{
	char ***seen = arg;

	assert_string_equal(file, **seen);
	(*seen)++;
}

static void test_load_linked(void **state)
{
	struct tu_facts in, whole, linked;
	struct db *db = open_db();
	char **inc, **cursor;
	size_t n, i;
	int round;

	(void)state;
	facts(&in, "a.c", 3);
	assert_int_equal(db_store(db, "a.c", "k1", &in), 0);
	facts_free(&in);
	facts(&in, "b.c", 1);
	assert_int_equal(db_store(db, "b.c", "k2", &in), 0);
	facts_free(&in);

	/* Twice: the kept statements are reset between reads. */
	for (round = 0; round < 2; round++) {
		assert_int_equal(db_load(db, "a.c", &whole), 0);
		assert_int_equal(db_load_linked(db, "a.c", "k1", &linked), 0);
		assert_int_equal(whole.nr_includes, 3);
		assert_string_equal(whole.includes[0], "include/h3.h");
		assert_int_equal(linked.nr_includes, 0);
		assert_int_equal(linked.nr_funcs, whole.nr_funcs);
		assert_int_equal(linked.nr_calls, 1);
		assert_string_equal(linked.funcs[0].key, "c:@F@fn_a.c");
		assert_string_equal(linked.calls[0].guards, "!x");
		facts_free(&whole);
		facts_free(&linked);
	}
	assert_int_equal(db_load_linked(db, "b.c", NULL, &linked), 0);
	assert_string_equal(linked.funcs[0].key, "c:@F@fn_b.c");
	facts_free(&linked);
	/* Facts stored under another key than the run planned: refused. */
	assert_int_equal(db_load_linked(db, "b.c", "k1", &linked), -ESTALE);
	assert_int_equal(linked.nr_funcs, 0);
	assert_int_equal(db_load_head(db, "b.c", "k1", &linked), -ESTALE);
	assert_int_equal(db_load_head(db, "b.c", "k2", &linked), 0);
	facts_free(&linked);

	/* The stream gives the list db_tu_includes() gives, in order. */
	n = db_tu_includes(db, "a.c", &inc);
	assert_int_equal(n, 3);
	cursor = inc;
	assert_int_equal(db_tu_includes_each(db, "a.c", count_file, &cursor),
			 3);
	assert_ptr_equal(cursor, inc + 3);
	assert_int_equal(db_tu_includes_each(db, "none.c", count_file,
					     &cursor), 0);
	for (i = 0; i < n; i++)
		free(inc[i]);
	free(inc);

	assert_int_equal(db_load(db, "none.c", &whole), -ENOENT);
	assert_int_equal(db_end_run(db, true), 0);
	db_close(db);
}

static void test_prune(void **state)
{
	const char *keep[] = { "b.c" };
	struct tu_facts f;
	struct db *db = open_db();
	char **tus;
	size_t n;

	(void)state;
	assert_int_equal(db_prune(db, keep, 1), 1);
	n = db_tus(db, &tus);
	assert_int_equal(n, 1);
	assert_string_equal(tus[0], "b.c");
	free(tus[0]);
	free(tus);
	assert_int_equal(db_load(db, "a.c", &f), -ENOENT);
	assert_int_equal(db_end_run(db, true), 0);
	db_close(db);
}

struct hold {
	sqlite3 *h;
	struct db *db;
};

/* Another writer: holds the write lock for 300 ms, then commits. */
static void *release_later(void *arg)
{
	struct hold *w = arg;

	usleep(300 * 1000);
	assert_int_equal(sqlite3_exec(w->h, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	return NULL;
}

static void hash_it(const char *file, void *arg)
{
	struct hold *w = arg;

	free(db_file_hash(w->db, dir, file));
}

/*
 * A file hash found while the include list is being read is stored when
 * the read ends: a write inside the read would not wait for another
 * writer (SQLite calls no busy handler there) and would fail the run.
 */
static void test_hash_waits_for_writer(void **state)
{
	char *path = xasprintf("%s/facts.db", dir), err[256];
	char *hdr = xasprintf("%s/include", dir), *file, *hash;
	struct hold w;
	pthread_t t;
	sqlite3_stmt *st;
	FILE *f;

	(void)state;
	assert_int_equal(mkdir(hdr, 0755), 0);
	file = xasprintf("%s/h1.h", hdr);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("int x;\n", f);
	fclose(f);
	w.db = open_db();
	assert_int_equal(sqlite3_open(path, &w.h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(w.h, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(pthread_create(&t, NULL, release_later, &w), 0);
	assert_int_equal(db_tu_includes_each(w.db, "b.c", hash_it, &w), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(db_error(w.db, err, sizeof(err)), 0);
	assert_int_equal(db_end_run(w.db, true), 0);
	db_close(w.db);
	assert_int_equal(sqlite3_prepare_v2(w.h, "SELECT hash FROM file WHERE "
					     "path = 'include/h1.h'", -1, &st,
					     NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	hash = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(w.h);
	assert_int_equal(strlen(hash), 16);
	free(hash);
	free(file);
	free(hdr);
	free(path);
}

static void no_file(const char *file, void *arg)
{
	(void)file;
	(void)arg;
	fail_msg("a damaged include row was passed on");
}

/* A NULL in the include list is damage, never an empty name. */
static void test_include_damage(void **state)
{
	char *path = xasprintf("%s/facts.db", dir), err[256];
	struct db *db;
	sqlite3 *h;

	(void)state;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE include SET file = NULL",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(db_open(&db, path, DB_READ, err, sizeof(err)), 0);
	assert_int_equal(db_tu_includes_each(db, "b.c", no_file, NULL),
			 -EBADMSG);
	assert_int_equal(db_error(db, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "its include table"));
	db_close(db);
	free(path);
}

static int set_up(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int tear_down(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int ret;

	(void)state;
	ret = system(cmd);
	free(cmd);
	return ret;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_linked),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_hash_waits_for_writer),
		cmocka_unit_test(test_include_damage),
	};

	return cmocka_run_group_tests(tests, set_up, tear_down);
}
