// SPDX-License-Identifier: GPL-2.0
/*
 * test-compdb.c - command splitting and compile_commands.json loading.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapcheck/input/compdb.h"
#include "trapcheck/base/util.h"

/* The temporary directory the databases are written to, realpath'd. */
static char tmpdir[PATH_MAX];
static char *written[32];
static size_t nr_written;

static int setup_tmpdir(void **state)
{
	char tmpl[] = "/tmp/trapcheck-compdb-XXXXXX";

	if (!mkdtemp(tmpl))
		return -1;
	if (!realpath(tmpl, tmpdir))
		return -1;
	return 0;
}

static int teardown_tmpdir(void **state)
{
	size_t i;

	for (i = 0; i < nr_written; i++) {
		unlink(written[i]);
		free(written[i]);
	}
	nr_written = 0;
	return rmdir(tmpdir);
}

/* Write @text to @name in the temporary directory; returns its path. */
static const char *write_db(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_true(nr_written < ARRAY_SIZE(written));
	written[nr_written++] = path;
	return path;
}

static void assert_one_line(const char *err)
{
	assert_true(err[0] != '\0');
	assert_null(strchr(err, '\n'));
	assert_null(strchr(err, '\r'));
}

/* compdb_split_command */

/* "[w0] [w1] ...": the words in one string, compared after freeing. */
static void join_words(char **argv, int argc, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < argc && o < len; i++)
		o += snprintf(buf + o, len - o, "%s[%s]", i ? " " : "",
			      argv[i]);
}

static void test_split_kbuild(void **state)
{
	const char *cmd = "aarch64-linux-gnu-gcc -Wp,-MMD,kernel/.fork.o.d "
			  "-DKBUILD_MODFILE='\"kernel/fork\"' -DX=\\\"y\\\" "
			  "-c -o kernel/fork.o kernel/fork.c";
	static const char *const want[] = {
		"aarch64-linux-gnu-gcc",
		"-Wp,-MMD,kernel/.fork.o.d",
		"-DKBUILD_MODFILE=\"kernel/fork\"",
		"-DX=\"y\"",
		"-c",
		"-o",
		"kernel/fork.o",
		"kernel/fork.c",
	};
	char **argv;
	int argc, i;

	argc = compdb_split_command(cmd, &argv);
	assert_int_equal(argc, ARRAY_SIZE(want));
	for (i = 0; i < argc; i++)
		assert_string_equal(argv[i], want[i]);
	compdb_free_argv(argv, argc);
}

static void test_split_quoting(void **state)
{
	static const char *const want[] = {
		"a b",			/* "a b" */
		"c d",			/* 'c d' */
		"abc",			/* 'a'"b"c */
		"",			/* '' */
		"x\\y",			/* "x\y": not special in "" */
		"$`\"\\",		/* "\$\`\"\\" */
		"e f",			/* e\ f */
		"'q'",			/* "'q'" */
		"-DS=\"a b\"",		/* -DS='"a b"' */
	};
	const char *cmd = "  \"a b\"\t'c d' 'a'\"b\"c '' \"x\\y\" "
			  "\"\\$\\`\\\"\\\\\" e\\ f \"'q'\"\n"
			  "-DS='\"a b\"'  ";
	char **argv;
	int argc, i;

	argc = compdb_split_command(cmd, &argv);
	assert_int_equal(argc, ARRAY_SIZE(want));
	for (i = 0; i < argc; i++)
		assert_string_equal(argv[i], want[i]);
	compdb_free_argv(argv, argc);
}

/* sh removes a backslash-newline pair, outside quotes and inside "". */
static void test_split_line_continuation(void **state)
{
	char **argv, got[256];
	int argc;

	argc = compdb_split_command("gcc -c \\\n x.c \"a\\\nb\"", &argv);
	assert_true(argc >= 0);
	join_words(argv, argc, got, sizeof(got));
	compdb_free_argv(argv, argc);
	assert_string_equal(got, "[gcc] [-c] [x.c] [ab]");
}

static void test_split_empty(void **state)
{
	char **argv = (char **)&argv;

	assert_int_equal(compdb_split_command("", &argv), 0);
	free(argv);
	argv = (char **)&argv;
	assert_int_equal(compdb_split_command(" \t\n ", &argv), 0);
	free(argv);
}

static void test_split_unterminated(void **state)
{
	char **argv = (char **)&argv;

	assert_int_equal(compdb_split_command("gcc -DX='abc -c x.c", &argv),
			 -EINVAL);
	assert_null(argv);
	argv = (char **)&argv;
	assert_int_equal(compdb_split_command("gcc -DX=\"abc", &argv),
			 -EINVAL);
	assert_null(argv);
	argv = (char **)&argv;
	assert_int_equal(compdb_split_command("gcc \"a\\\"", &argv),
			 -EINVAL);
	assert_null(argv);
}

/* compdb_load */

static void test_load_command_form(void **state)
{
	const char *path = write_db("command.json",
		"[\n"
		"  {\n"
		"    \"command\": \"aarch64-linux-gnu-gcc -Wp,-MMD,"
		"kernel/.fork.o.d -DKBUILD_MODFILE='\\\"kernel/fork\\\"' "
		"-c -o kernel/fork.o kernel/fork.c\",\n"
		"    \"directory\": \"/tree\",\n"
		"    \"file\": \"kernel/fork.c\"\n"
		"  },\n"
		"  {\n"
		"    \"command\": \"gcc -c -o /tree/lib/x.o /tree/lib/x.c\",\n"
		"    \"directory\": \"/tree/\",\n"
		"    \"file\": \"/tree/./lib/x.c\"\n"
		"  }\n"
		"]\n");
	struct compdb db;
	char err[512] = "", *want;
	int ret;

	ret = compdb_load(&db, path, err, sizeof(err));
	assert_int_equal(ret, 0);
	assert_string_equal(db.path, path);
	assert_string_equal(db.root, tmpdir);
	assert_int_equal(db.nr, 2);

	assert_string_equal(db.entries[0].directory, "/tree");
	assert_string_equal(db.entries[0].file, "/tree/kernel/fork.c");
	assert_int_equal(db.entries[0].argc, 7);
	assert_string_equal(db.entries[0].argv[0], "aarch64-linux-gnu-gcc");
	assert_string_equal(db.entries[0].argv[2],
			    "-DKBUILD_MODFILE=\"kernel/fork\"");
	assert_string_equal(db.entries[0].argv[6], "kernel/fork.c");

	assert_string_equal(db.entries[1].directory, "/tree");
	assert_string_equal(db.entries[1].file, "/tree/lib/x.c");
	assert_int_equal(db.entries[1].argc, 5);

	want = xasprintf("%s/command.json", tmpdir);
	assert_string_equal(db.path, want);
	free(want);
	compdb_free(&db);
	assert_int_equal(db.nr, 0);
	assert_null(db.entries);
}

static void test_load_arguments_form(void **state)
{
	const char *path = write_db("arguments.json",
		"[{\"arguments\": [\"aarch64-linux-gnu-gcc\", "
		"\"-DKBUILD_MODFILE=\\\"kernel/fork\\\"\", \"-c\", "
		"\"a b.c\"],\n"
		"  \"directory\": \"/tree\", \"file\": \"a b.c\"}]\n");
	struct compdb db;
	char err[512] = "";

	assert_int_equal(compdb_load(&db, path, err, sizeof(err)), 0);
	assert_int_equal(db.nr, 1);
	assert_int_equal(db.entries[0].argc, 4);
	/* Arguments are taken as they are, not split again. */
	assert_string_equal(db.entries[0].argv[1],
			    "-DKBUILD_MODFILE=\"kernel/fork\"");
	assert_string_equal(db.entries[0].argv[3], "a b.c");
	assert_string_equal(db.entries[0].file, "/tree/a b.c");
	compdb_free(&db);
}

static void test_load_relative_directory(void **state)
{
	const char *path = write_db("relative.json",
		"[{\"command\": \"gcc -c a.c\", \"directory\": \"build\", "
		"\"file\": \"a.c\"},\n"
		" {\"command\": \"gcc -c b.c\", \"directory\": \".\", "
		"\"file\": \"sub/../b.c\"},\n"
		" {\"command\": \"gcc -c c.c\", \"directory\": \"out/../obj\", "
		"\"file\": \"/abs/c.c\"}]\n");
	struct compdb db;
	char err[512] = "", *want;

	assert_int_equal(compdb_load(&db, path, err, sizeof(err)), 0);
	assert_int_equal(db.nr, 3);

	want = xasprintf("%s/build", tmpdir);
	assert_string_equal(db.entries[0].directory, want);
	free(want);
	want = xasprintf("%s/build/a.c", tmpdir);
	assert_string_equal(db.entries[0].file, want);
	free(want);

	assert_string_equal(db.entries[1].directory, tmpdir);
	want = xasprintf("%s/b.c", tmpdir);
	assert_string_equal(db.entries[1].file, want);
	free(want);

	want = xasprintf("%s/obj", tmpdir);
	assert_string_equal(db.entries[2].directory, want);
	free(want);
	assert_string_equal(db.entries[2].file, "/abs/c.c");
	compdb_free(&db);
}

/* A relative database path is made absolute against the cwd. */
static void test_load_relative_path(void **state)
{
	char cwd[PATH_MAX], err[512] = "", *want;
	struct compdb db;
	int ret;

	write_db("compile_commands.json",
		 "[{\"command\": \"gcc -c a.c\", \"directory\": \"build\", "
		 "\"file\": \"a.c\"}]\n");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	ret = compdb_load(&db, "./compile_commands.json", err, sizeof(err));
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(ret, 0);

	want = xasprintf("%s/compile_commands.json", tmpdir);
	assert_string_equal(db.path, want);
	free(want);
	assert_string_equal(db.root, tmpdir);
	want = xasprintf("%s/build/a.c", tmpdir);
	assert_string_equal(db.entries[0].file, want);
	free(want);
	compdb_free(&db);
}

/* The source tree: in place, under O= (kconfig.h, or the files' prefix). */
static void test_srctree(void **state)
{
	const char *in_place = write_db("inplace.json",
		"[{\"command\": \"gcc -c mm/a.c\", \"directory\": \".\", "
		"\"file\": \"mm/a.c\"}]\n");
	const char *kconfig = write_db("kconfig.json",
		"[{\"command\": \"gcc -include /src/linux/include/linux/"
		"kconfig.h -c /src/linux/mm/a.c\", \"directory\": \"/obj\", "
		"\"file\": \"/src/linux/mm/a.c\"}]\n");
	const char *prefix = write_db("prefix.json",
		"[{\"command\": \"gcc -c a.c\", \"directory\": \"/obj\", "
		"\"file\": \"/src/linux/mm/a.c\"},\n"
		" {\"command\": \"gcc -c b.c\", \"directory\": \"/obj\", "
		"\"file\": \"/src/linux/arch/arm64/b.c\"}]\n");
	const char *disjoint = write_db("disjoint.json",
		"[{\"command\": \"gcc -c a.c\", \"directory\": \"/obj\", "
		"\"file\": \"/a/x.c\"},\n"
		" {\"command\": \"gcc -c b.c\", \"directory\": \"/obj\", "
		"\"file\": \"/b/y.c\"}]\n");
	struct compdb db;
	char err[512] = "";

	assert_int_equal(compdb_load(&db, in_place, err, sizeof(err)), 0);
	assert_string_equal(db.srctree, tmpdir);
	compdb_free(&db);
	assert_int_equal(compdb_load(&db, kconfig, err, sizeof(err)), 0);
	assert_string_equal(db.srctree, "/src/linux");
	compdb_free(&db);
	assert_int_equal(compdb_load(&db, prefix, err, sizeof(err)), 0);
	assert_string_equal(db.srctree, "/src/linux");
	compdb_free(&db);
	/* Nothing in common but "/": the database's directory, as before. */
	assert_int_equal(compdb_load(&db, disjoint, err, sizeof(err)), 0);
	assert_string_equal(db.srctree, tmpdir);

	/* --srctree: an existing directory, else one line naming it. */
	assert_int_equal(compdb_set_srctree(&db, tmpdir, err, sizeof(err)),
			 0);
	assert_string_equal(db.srctree, tmpdir);
	assert_int_equal(compdb_set_srctree(&db, in_place, err, sizeof(err)),
			 -ENOTDIR);
	assert_non_null(strstr(err, "not a source tree"));
	assert_non_null(strstr(err, in_place));
	assert_int_equal(compdb_set_srctree(&db, "/no/such/dir", err,
					    sizeof(err)), -ENOENT);
	assert_string_equal(err, "/no/such/dir: not a source tree: "
				 "No such file or directory");
	compdb_free(&db);
}

/* kbuild's O= link: BUILD/source names the source tree. */
static void test_srctree_source_link(void **state)
{
	char *src = xasprintf("%s/srcdir", tmpdir);
	char *build = xasprintf("%s/builddir", tmpdir);
	char *link = xasprintf("%s/source", build);
	char *got;

	assert_int_equal(mkdir(src, 0755), 0);
	assert_int_equal(mkdir(build, 0755), 0);
	got = compdb_srctree_of_build(build);
	assert_string_equal(got, build);	/* no link yet */
	free(got);
	assert_int_equal(symlink(src, link), 0);
	got = compdb_srctree_of_build(build);
	assert_string_equal(got, src);
	free(got);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(rmdir(build), 0);
	assert_int_equal(rmdir(src), 0);
	free(link);
	free(build);
	free(src);
}

/* compdb_shard: an in-memory database of @nr files under /src. */
static void fake_db(struct compdb *db, size_t nr, size_t skip)
{
	size_t i;

	memset(db, 0, sizeof(*db));
	db->srctree = xstrdup("/src");
	for (i = 0; i < nr; i++) {
		struct compdb_entry *e;

		if (i == skip)
			continue;
		e = PUSH(db->entries, db->nr, db->alloc);
		e->directory = xstrdup("/build");
		e->file = xasprintf("/src/dir%zu/file%zu.c", i % 7, i);
		e->argv = xcalloc(2, sizeof(*e->argv));
		e->argv[0] = xstrdup("gcc");
		e->argc = 1;
	}
}

/* Which shard of @n each of the @nr files lands in (-1: none). */
static void shards_of(int *where, size_t nr, size_t skip, unsigned int n)
{
	unsigned int k;
	size_t i, f, prev;

	for (i = 0; i < nr; i++)
		where[i] = -1;
	for (k = 1; k <= n; k++) {
		struct compdb db;

		fake_db(&db, nr, skip);
		assert_int_equal(compdb_shard(&db, k, n), nr - (skip < nr));
		assert_true(db.nr > 0);	/* 200 files: none empty */
		for (i = 0; i < db.nr; i++) {
			assert_int_equal(sscanf(strrchr(db.entries[i].file,
							'/'), "/file%zu.c",
						&f), 1);
			/* Each file in one shard only; order kept. */
			assert_int_equal(where[f], -1);
			where[f] = (int)k;
			if (i)
				assert_true(prev < f);
			prev = f;
		}
		compdb_free(&db);
	}
}

static void test_shard(void **state)
{
	int all[200], fewer[200];
	size_t i;

	(void)state;
	shards_of(all, 200, 200, 4);
	for (i = 0; i < 200; i++)
		assert_true(all[i] >= 1 && all[i] <= 4);	/* covered */
	/* A file's shard depends on its path alone. */
	shards_of(fewer, 200, 17, 4);
	for (i = 0; i < 200; i++)
		if (i != 17)
			assert_int_equal(fewer[i], all[i]);
	assert_int_equal(fewer[17], -1);
	/* One shard of one: everything. */
	shards_of(all, 200, 200, 1);
	for (i = 0; i < 200; i++)
		assert_int_equal(all[i], 1);
}

static void test_load_missing_file(void **state)
{
	char *path = xasprintf("%s/does-not-exist.json", tmpdir);
	struct compdb db;
	char err[512] = "";

	assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
	assert_one_line(err);
	assert_int_equal(db.nr, 0);
	assert_null(db.entries);
	assert_null(db.path);
	free(path);
}

static void test_load_malformed(void **state)
{
	const char *path = write_db("malformed.json",
		"[\n"
		"  {\"directory\": \"/tree\",\n"
		"   oops }\n"
		"]\n");
	struct compdb db;
	char err[512] = "", *want;

	assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
	want = xasprintf("%s:3:", path);
	assert_non_null(strstr(err, want));
	free(want);
	assert_one_line(err);
	assert_int_equal(db.nr, 0);
}

static void test_load_malformed_string(void **state)
{
	/* A raw newline inside a string: the message stays one line. */
	const char *path = write_db("newline.json",
		"[{\"directory\": \"/tr\nee\", \"file\": \"a.c\"}]\n");
	struct compdb db;
	char err[512] = "", *want;

	assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
	want = xasprintf("%s:1:", path);
	assert_non_null(strstr(err, want));
	free(want);
	assert_one_line(err);
}

static void test_load_empty_array(void **state)
{
	const char *path = write_db("empty.json", " [ ]\n");
	struct compdb db;
	char err[512] = "";

	assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "empty"));
	assert_one_line(err);
	assert_int_equal(db.nr, 0);
}

static void test_load_not_array(void **state)
{
	const char *path = write_db("object.json",
		"{\"command\": \"gcc -c a.c\", \"directory\": \"/t\", "
		"\"file\": \"a.c\"}\n");
	struct compdb db;
	char err[512] = "";

	assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "array"));
	assert_one_line(err);
	assert_int_equal(db.nr, 0);
}

static void test_load_entry_missing_file(void **state)
{
	const char *path = write_db("nofile.json",
		"[{\"command\": \"gcc -c a.c\", \"directory\": \"/t\", "
		"\"file\": \"a.c\"},\n"
		" {\"command\": \"gcc -c b.c\", \"directory\": \"/t\"}]\n");
	struct compdb db;
	char err[512] = "";

	assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "entry 1"));
	assert_non_null(strstr(err, "\"file\""));
	assert_one_line(err);
	/* The entry loaded before the bad one is freed too. */
	assert_int_equal(db.nr, 0);
	assert_null(db.entries);
}

static void test_load_bad_entries(void **state)
{
	static const char *const bad[] = {
		/* not an object */
		"[\"gcc -c a.c\"]",
		/* neither command nor arguments */
		"[{\"directory\": \"/t\", \"file\": \"a.c\"}]",
		/* unterminated quote in the command */
		"[{\"command\": \"gcc -DX='a -c a.c\", \"directory\": \"/t\", "
		"\"file\": \"a.c\"}]",
		/* empty command */
		"[{\"command\": \"  \", \"directory\": \"/t\", "
		"\"file\": \"a.c\"}]",
		/* arguments not all strings */
		"[{\"arguments\": [\"gcc\", 3], \"directory\": \"/t\", "
		"\"file\": \"a.c\"}]",
		/* arguments empty */
		"[{\"arguments\": [], \"directory\": \"/t\", "
		"\"file\": \"a.c\"}]",
		/* directory not a string */
		"[{\"command\": \"gcc -c a.c\", \"directory\": 1, "
		"\"file\": \"a.c\"}]",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char name[32], err[512] = "";
		const char *path;
		struct compdb db;

		snprintf(name, sizeof(name), "bad-%zu.json", i);
		path = write_db(name, bad[i]);
		assert_true(compdb_load(&db, path, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, path));
		assert_non_null(strstr(err, "entry 0"));
		assert_one_line(err);
		assert_int_equal(db.nr, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard),
		cmocka_unit_test(test_split_kbuild),
		cmocka_unit_test(test_split_quoting),
		cmocka_unit_test(test_split_line_continuation),
		cmocka_unit_test(test_split_empty),
		cmocka_unit_test(test_split_unterminated),
		cmocka_unit_test(test_load_command_form),
		cmocka_unit_test(test_load_arguments_form),
		cmocka_unit_test(test_load_relative_directory),
		cmocka_unit_test(test_load_relative_path),
		cmocka_unit_test(test_srctree),
		cmocka_unit_test(test_srctree_source_link),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_load_malformed),
		cmocka_unit_test(test_load_malformed_string),
		cmocka_unit_test(test_load_empty_array),
		cmocka_unit_test(test_load_not_array),
		cmocka_unit_test(test_load_entry_missing_file),
		cmocka_unit_test(test_load_bad_entries),
	};

	return cmocka_run_group_tests(tests, setup_tmpdir, teardown_tmpdir);
}
