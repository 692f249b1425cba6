// SPDX-License-Identifier: GPL-2.0
/*
 * test-util.c - path helpers, strmap, strpool and the growable arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapcheck/base/util.h"

static void check_normalize(const char *in, const char *want)
{
	char *got = path_normalize(in);

	if (strcmp(got, want))
		print_error("path_normalize(\"%s\")\n", in);
	assert_string_equal(got, want);
	free(got);
}

static void test_normalize_dot(void **state)
{
	check_normalize(".", ".");
	check_normalize("./", ".");
	check_normalize("./a/./b", "a/b");
	check_normalize("./arch/arm64/include", "arch/arm64/include");
}

static void test_normalize_dotdot(void **state)
{
	check_normalize("a/../b", "b");
	check_normalize("a/..", ".");
	check_normalize("../a", "../a");
	check_normalize("../../a", "../../a");
	check_normalize("../a/..", "..");
	check_normalize("a/b/../../..", "..");
	check_normalize("a/b/../c/../../d", "d");
}

static void test_normalize_absolute(void **state)
{
	check_normalize("/", "/");
	check_normalize("/a/../..", "/");
	check_normalize("/..", "/");
	check_normalize("/a/b/..", "/a");
	check_normalize("/a/b/../c", "/a/c");
	check_normalize("/tree/./kernel/../include", "/tree/include");
}

static void test_normalize_slashes(void **state)
{
	check_normalize("//x//y/", "/x/y");
	check_normalize("a//b/", "a/b");
	check_normalize("x/", "x");
}

static void test_path_relative(void **state)
{
	char *s;

	s = path_relative("/tree/kernel/fork.c", "/tree");
	assert_string_equal(s, "kernel/fork.c");
	free(s);

	s = path_relative("/tree/kernel/fork.c", "/tree/");
	assert_string_equal(s, "kernel/fork.c");
	free(s);

	/* A sibling sharing the prefix is not inside the base. */
	s = path_relative("/treex/kernel/fork.c", "/tree");
	assert_string_equal(s, "/treex/kernel/fork.c");
	free(s);

	s = path_relative("/usr/include/stdio.h", "/tree");
	assert_string_equal(s, "/usr/include/stdio.h");
	free(s);

	s = path_relative("kernel/fork.c", "/tree");
	assert_string_equal(s, "kernel/fork.c");
	free(s);
}

/*
 * compdb_load() gives the root "/" to a database at /compile_commands.json;
 * every absolute path is inside it.
 */
static void test_path_relative_fs_root(void **state)
{
	char got[2][64];
	char *s;

	/* Copied and freed before asserting: a failure leaks nothing. */
	s = path_relative("/kernel/fork.c", "/");
	snprintf(got[0], sizeof(got[0]), "%s", s);
	free(s);
	s = path_relative("/scripts/kallsyms.c", "//");
	snprintf(got[1], sizeof(got[1]), "%s", s);
	free(s);

	assert_string_equal(got[0], "kernel/fork.c");
	assert_string_equal(got[1], "scripts/kallsyms.c");
}

static void test_path_join(void **state)
{
	char *s;

	s = path_join("arch/arm64", "./include");
	assert_string_equal(s, "arch/arm64/include");
	free(s);

	s = path_join("a/b", "../c");
	assert_string_equal(s, "a/c");
	free(s);

	s = path_join("/tree", "./arch/arm64/include");
	assert_string_equal(s, "/tree/arch/arm64/include");
	free(s);

	s = path_join("/tree/", "kernel/../include/linux/kconfig.h");
	assert_string_equal(s, "/tree/include/linux/kconfig.h");
	free(s);

	/* An absolute path wins over the directory. */
	s = path_join("/tree", "/usr/lib/gcc/../include");
	assert_string_equal(s, "/usr/lib/include");
	free(s);

	s = path_join("rel/dir", "/abs");
	assert_string_equal(s, "/abs");
	free(s);

	s = path_join(NULL, "./x");
	assert_string_equal(s, "x");
	free(s);

	s = path_join("", "./x");
	assert_string_equal(s, "x");
	free(s);
}

/* mkdir -p: missing parents made, an existing tree fine, "" refused. */
static void test_mkdir_parents(void **state)
{
	char tmpl[] = "/tmp/trapcheck-mkdir-XXXXXX";
	char *deep, *file;
	struct stat st;
	FILE *f;

	assert_non_null(mkdtemp(tmpl));
	deep = xasprintf("%s/a/b/c", tmpl);
	assert_int_equal(mkdir_parents(deep, 0755), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(mkdir_parents(deep, 0755), 0);	/* exists */
	file = xasprintf("%s/a/file", tmpl);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	free(deep);
	deep = xasprintf("%s/a/file/sub", tmpl);
	assert_int_equal(mkdir_parents(deep, 0755), -ENOTDIR);
	assert_int_equal(mkdir_parents("", 0755), -ENOENT);
	assert_int_equal(unlink(file), 0);
	free(deep);
	deep = xasprintf("%s/a/b/c", tmpl);
	assert_int_equal(rmdir(deep), 0);
	deep[strlen(deep) - 2] = '\0';
	assert_int_equal(rmdir(deep), 0);
	deep[strlen(deep) - 2] = '\0';
	assert_int_equal(rmdir(deep), 0);
	assert_int_equal(rmdir(tmpl), 0);
	free(deep);
	free(file);
}

static void test_strmap_basic(void **state)
{
	struct strmap m;

	strmap_init(&m);
	assert_int_equal(strmap_get(&m, "missing"), -1);
	assert_int_equal(strmap_put(&m, "alpha", 1), 1);
	assert_int_equal(strmap_put(&m, "beta", 2), 2);
	assert_int_equal(strmap_get(&m, "alpha"), 1);
	assert_int_equal(strmap_get(&m, "beta"), 2);
	/* A duplicate put keeps and returns the old value. */
	assert_int_equal(strmap_put(&m, "alpha", 7), 1);
	assert_int_equal(strmap_get(&m, "alpha"), 1);
	assert_int_equal(strmap_put(&m, "", 0), 0);
	assert_int_equal(strmap_get(&m, ""), 0);
	assert_int_equal(strmap_get(&m, "alph"), -1);
	strmap_free(&m);
	assert_null(m.slots);
}

static void test_strmap_key_copied(void **state)
{
	struct strmap m;
	char buf[16];

	strmap_init(&m);
	strcpy(buf, "volatile");
	strmap_put(&m, buf, 5);
	strcpy(buf, "changed");
	assert_int_equal(strmap_get(&m, "volatile"), 5);
	assert_int_equal(strmap_get(&m, "changed"), -1);
	strmap_free(&m);
}

#define NR_KEYS 3000

static void test_strmap_growth(void **state)
{
	struct strmap m;
	char key[32];
	int i;

	strmap_init(&m);
	for (i = 0; i < NR_KEYS; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		assert_int_equal(strmap_put(&m, key, i), i);
	}
	assert_int_equal(m.used, NR_KEYS);
	assert_true(m.mask + 1 > 2 * NR_KEYS);
	for (i = 0; i < NR_KEYS; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		assert_int_equal(strmap_get(&m, key), i);
	}
	for (i = 0; i < NR_KEYS; i += 97) {
		snprintf(key, sizeof(key), "key-%d", i);
		assert_int_equal(strmap_put(&m, key, -5), i);
	}
	assert_int_equal(m.used, NR_KEYS);
	assert_int_equal(strmap_get(&m, "key-3000"), -1);
	strmap_free(&m);
}

static void test_strpool_intern(void **state)
{
	struct strpool p;
	char buf[32];
	const char *a, *b, *c, *again;
	int i;

	strpool_init(&p);
	strcpy(buf, "cpu_has_hw_af");
	a = strpool_intern(&p, buf);
	assert_ptr_not_equal(a, buf);
	assert_string_equal(a, "cpu_has_hw_af");
	b = strpool_intern(&p, "cpu_has_hw_af");
	assert_ptr_equal(a, b);
	c = strpool_intern(&p, "cpu_has_hw_afx");
	assert_ptr_not_equal(a, c);
	assert_string_equal(c, "cpu_has_hw_afx");
	assert_int_equal(p.nr, 2);

	/* Pointers stay valid while the pool grows. */
	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_string_equal(strpool_intern(&p, buf), buf);
	}
	assert_int_equal(p.nr, 2002);
	again = strpool_intern(&p, "cpu_has_hw_af");
	assert_ptr_equal(again, a);
	assert_string_equal(a, "cpu_has_hw_af");
	assert_ptr_equal(strpool_intern(&p, "s1234"),
			 strpool_intern(&p, "s1234"));
	assert_int_equal(p.nr, 2002);
	strpool_free(&p);
}

/*
 * Strings longer than a quarter block get a block of their own, which
 * must not cut short the room of the block small strings share; the
 * bytes strpool_adopt() takes over stay where they are.
 */
static void test_strpool_blocks(void **state)
{
	struct strpool p;
	size_t big = (1 << 20) / 2, i;
	char *long_s = xmalloc(big + 1), *bytes, buf[32];
	const char *a, *l, *b, *adopted[3];
	static const char three[] = "one\0two\0three";

	memset(long_s, 'x', big);
	long_s[big] = '\0';
	strpool_init(&p);
	a = strpool_intern(&p, "before");
	l = strpool_intern(&p, long_s);
	b = strpool_intern(&p, "after");
	assert_string_equal(a, "before");
	assert_string_equal(b, "after");
	assert_int_equal(strlen(l), big);
	/* "after" went into the shared block, right behind "before". */
	assert_ptr_equal(b, a + strlen("before") + 1);

	bytes = xmalloc(sizeof(three));
	memcpy(bytes, three, sizeof(three));
	assert_true(strpool_adopt(&p, bytes, sizeof(three), 3));
	for (i = 0; i < 3; i++)
		adopted[i] = strpool_find(&p, i == 0 ? "one" :
					  i == 1 ? "two" : "three");
	assert_ptr_equal(adopted[0], bytes);
	assert_ptr_equal(adopted[1], bytes + 4);
	assert_ptr_equal(adopted[2], bytes + 8);
	assert_ptr_equal(strpool_intern(&p, "two"), bytes + 4);
	assert_ptr_equal(p.strs[p.nr - 1], bytes + 8);
	/* Small strings still share the block after "after". */
	assert_ptr_equal(strpool_intern(&p, "later"), b + strlen("after") + 1);
	/* Past the shared block: a new one, after the adopted bytes. */
	for (i = 0; i < 200000; i++) {
		snprintf(buf, sizeof(buf), "k%zu", i);
		assert_string_equal(strpool_intern(&p, buf), buf);
	}
	assert_true(p.nr_blocks >= 4);
	assert_int_equal(p.nr, 3 + 3 + 1 + 200000);
	for (i = 0; i < 200000; i += 997) {
		snprintf(buf, sizeof(buf), "k%zu", i);
		assert_string_equal(strpool_find(&p, buf), buf);
	}
	assert_string_equal(a, "before");
	assert_string_equal(adopted[2], "three");
	assert_int_equal(strlen(l), big);
	strpool_free(&p);
	free(long_s);
}

/* A string the pool holds, or bytes that do not end a string: refused. */
static void test_strpool_adopt_refused(void **state)
{
	struct strpool p;
	char *bytes;

	strpool_init(&p);
	strpool_intern(&p, "two");
	bytes = xmalloc(8);
	memcpy(bytes, "one\0two", 8);
	assert_false(strpool_adopt(&p, bytes, 8, 2));
	strpool_free(&p);

	strpool_init(&p);
	bytes = xmalloc(3);
	memcpy(bytes, "abc", 3);
	assert_false(strpool_adopt(&p, bytes, 3, 1));
	strpool_free(&p);

	/* Fewer strings than said, or more. */
	strpool_init(&p);
	bytes = xmalloc(4);
	memcpy(bytes, "a\0b", 4);
	assert_false(strpool_adopt(&p, bytes, 4, 3));
	strpool_free(&p);
	strpool_init(&p);
	bytes = xmalloc(4);
	memcpy(bytes, "a\0b", 4);
	assert_false(strpool_adopt(&p, bytes, 4, 1));
	strpool_free(&p);
}

static void test_grow_push(void **state)
{
	int *arr = NULL;
	size_t nr = 0, alloc = 0, i;

	GROW(arr, alloc, 0);
	assert_null(arr);
	assert_int_equal(alloc, 0);

	GROW(arr, alloc, 9);
	assert_non_null(arr);
	assert_true(alloc >= 9);
	assert_int_equal(alloc, 16);
	GROW(arr, alloc, 3);
	assert_int_equal(alloc, 16);

	for (i = 0; i < 1000; i++) {
		int *slot = PUSH(arr, nr, alloc);

		*slot = (int)i * 3;
		assert_int_equal(nr, i + 1);
		assert_true(alloc >= nr);
	}
	for (i = 0; i < 1000; i++)
		assert_int_equal(arr[i], (int)i * 3);
	free(arr);
}

/* DWARF names a header a TU reached through ".." as it was written. */
static void test_normalize_dwarf(void **state)
{
	char *got = path_normalize("lib/zstd/decompress/../common/cpu.h");

	(void)state;
	assert_string_equal(got, "lib/zstd/common/cpu.h");
	free(got);
	got = path_normalize("/build/linux/./lib//zstd/x/../cpu.h");
	assert_string_equal(got, "/build/linux/lib/zstd/cpu.h");
	free(got);
}

static void test_grow_struct(void **state)
{
	struct pair {
		char *s;
		long v;
	} *arr = NULL;
	size_t nr = 0, alloc = 0;
	struct pair *p;

	p = PUSH(arr, nr, alloc);
	p->s = "a";
	p->v = 1;
	p = PUSH(arr, nr, alloc);
	p->s = "b";
	p->v = 2;
	assert_int_equal(nr, 2);
	assert_int_equal(alloc, 8);
	assert_string_equal(arr[0].s, "a");
	assert_int_equal(arr[1].v, 2);
	free(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize_dot),
		cmocka_unit_test(test_normalize_dotdot),
		cmocka_unit_test(test_normalize_absolute),
		cmocka_unit_test(test_normalize_slashes),
		cmocka_unit_test(test_path_relative),
		cmocka_unit_test(test_path_relative_fs_root),
		cmocka_unit_test(test_path_join),
		cmocka_unit_test(test_mkdir_parents),
		cmocka_unit_test(test_strmap_basic),
		cmocka_unit_test(test_strmap_key_copied),
		cmocka_unit_test(test_strmap_growth),
		cmocka_unit_test(test_strpool_intern),
		cmocka_unit_test(test_strpool_blocks),
		cmocka_unit_test(test_strpool_adopt_refused),
		cmocka_unit_test(test_grow_push),
		cmocka_unit_test(test_grow_struct),
		cmocka_unit_test(test_normalize_dwarf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
