// SPDX-License-Identifier: GPL-2.0
/*
 * test-fileloc.c - a location from a file's start plus an offset is the
 * one clang_getLocationForOffset() gives (fileloc.h), at every offset of
 * the main file, a guarded header and a header included twice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/clang/fileloc.h"

static const char guarded[] =
	"#ifndef G_H\n"
	"#define G_H\n"
	"#define TWICE(x) ((x) + (x))\n"
	"static inline int g(int x) { return TWICE(x); }\n"
	"#endif\n";
static const char twice[] =
	"/* no guard: two FileIDs */\n"
	"#ifndef FIRST\n#define FIRST\nint t1;\n#else\nint t2;\n#endif\n";
static const char main_c[] =
	"#include \"g.h\"\n"
	"#include \"t.h\"\n"
	"#include \"t.h\"\n"
	"#define CALL(f, a) f(TWICE(a))\n"
	"int m(int a)\n{\n\treturn CALL(g, a) + CALL(g, a + 1);\n}\n";

static char dir[] = "/tmp/trapcheck-fileloc-XXXXXX";
static char path[3][64];
static CXIndex idx;
static CXTranslationUnit tu;

static int put(int i, const char *name, const char *text)
{
	FILE *f;

	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	f = fopen(path[i], "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Forty headers, past the table's first size. */
#define NR_MANY 40
static char many_path[NR_MANY + 1][64];

static int put_many(int i, const char *name, const char *text)
{
	FILE *f;

	snprintf(many_path[i], sizeof(many_path[i]), "%s/%s", dir, name);
	f = fopen(many_path[i], "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int setup(void **state)
{
	if (!mkdtemp(dir) || put(0, "g.h", guarded) ||
	    put(1, "t.h", twice) || put(2, "m.c", main_c))
		return -1;
	idx = clang_createIndex(0, 0);
	tu = clang_parseTranslationUnit(idx, path[2], NULL, 0, NULL, 0,
					CXTranslationUnit_DetailedPreprocessingRecord);
	return tu ? 0 : -1;
}

static int teardown(void **state)
{
	int i;

	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	for (i = 0; i < 3; i++)
		unlink(path[i]);
	rmdir(dir);
	return 0;
}

/* The spellings of the tokens of [@from, @to), joined. */
static void spell(CXSourceLocation from, CXSourceLocation to, char *buf,
		  size_t size)
{
	CXToken *t = NULL;
	unsigned int n = 0, i;

	buf[0] = 0;
	clang_tokenize(tu, clang_getRange(from, to), &t, &n);
	for (i = 0; i < n; i++) {
		CXString s = clang_getTokenSpelling(tu, t[i]);

		snprintf(buf + strlen(buf), size - strlen(buf), "%s ",
			 clang_getCString(s));
		clang_disposeString(s);
	}
	clang_disposeTokens(tu, t, n);
}

/*
 * Every offset of the file @i: libclang's location, where it is a file
 * location, is ours; where it is a macro argument's expansion, its
 * spelling is ours; the tokens of every range from an offset to the end
 * and the token at each offset are the same from either.
 */
static unsigned int check_file(struct file_locs *l, int i, size_t size)
{
	CXFile f = clang_getFile(tu, path[i]);
	CXSourceLocation end_want, end_got;
	unsigned int off, args = 0;
	char a[1024], b[1024];

	assert_non_null(f);
	end_want = clang_getLocationForOffset(tu, f, size);
	end_got = file_loc(l, tu, f, size);
	for (off = 0; off <= size; off++) {
		CXSourceLocation want = clang_getLocationForOffset(tu, f, off);
		CXSourceLocation got = file_loc(l, tu, f, off);
		CXToken *tw, *tg;
		CXFile gf, wf;
		unsigned int goff, woff;

		clang_getSpellingLocation(got, &gf, NULL, NULL, &goff);
		assert_true(clang_File_isEqual(gf, f));
		assert_int_equal(goff, off);
		clang_getFileLocation(got, &gf, NULL, NULL, &goff);
		assert_true(clang_File_isEqual(gf, f));
		assert_int_equal(goff, off);
		clang_getSpellingLocation(want, &wf, NULL, NULL, &woff);
		assert_true(clang_File_isEqual(wf, f));
		assert_int_equal(woff, off);
		if (!clang_equalLocations(want, got))
			args++;
		spell(want, end_want, a, sizeof(a));
		spell(got, end_got, b, sizeof(b));
		assert_string_equal(a, b);
		tw = clang_getToken(tu, want);
		tg = clang_getToken(tu, got);
		assert_true(!tw == !tg || !tw);
		if (tw) {
			CXString sw = clang_getTokenSpelling(tu, *tw);
			CXString sg = clang_getTokenSpelling(tu, *tg);

			assert_string_equal(clang_getCString(sw),
					    clang_getCString(sg));
			clang_disposeString(sw);
			clang_disposeString(sg);
			clang_disposeTokens(tu, tw, 1);
		}
		if (tg)
			clang_disposeTokens(tu, tg, 1);
	}
	return args;
}

/* Every offset of every file, asked in turn and then interleaved. */
static void test_every_offset(void **state)
{
	struct file_locs l = { 0 };

	/* The arguments of CALL() map to their expansion in libclang's. */
	assert_true(check_file(&l, 2, strlen(main_c)) > 0);
	assert_true(check_file(&l, 0, strlen(guarded)) > 0);
	/* t.h twice: the first inclusion, as libclang answers. */
	assert_int_equal(check_file(&l, 1, strlen(twice)), 0);
	assert_true(check_file(&l, 2, strlen(main_c)) > 0);
	assert_int_equal(l.used, 3);
	file_locs_free(&l);
	assert_null(l.slots);
	check_file(&l, 1, strlen(twice));
	file_locs_free(&l);
}

/* No file, no location; the table keeps its answers as it grows. */
static void test_null_and_growth(void **state)
{
	struct file_locs l = { 0 };
	char name[16], m[4096] = "";
	CXTranslationUnit many;
	CXFile f[NR_MANY];
	int i, round;

	assert_true(clang_equalLocations(file_loc(&l, tu, NULL, 3),
					 clang_getNullLocation()));
	assert_int_equal(l.used, 0);
	for (i = 0; i < NR_MANY; i++) {
		char text[64];

		snprintf(name, sizeof(name), "h%d.h", i);
		snprintf(text, sizeof(text), "int v%d;\n", i);
		assert_int_equal(put_many(i, name, text), 0);
		snprintf(m + strlen(m), sizeof(m) - strlen(m),
			 "#include \"%s\"\n", name);
	}
	assert_int_equal(put_many(NR_MANY, "many.c", m), 0);
	many = clang_parseTranslationUnit(idx, many_path[NR_MANY], NULL, 0,
					  NULL, 0, 0);
	assert_non_null(many);
	for (round = 0; round < 2; round++)
		for (i = 0; i < NR_MANY; i++) {
			f[i] = clang_getFile(many, many_path[i]);
			assert_non_null(f[i]);
			assert_true(clang_equalLocations(
				file_loc(&l, many, f[i], 4),
				clang_getLocationForOffset(many, f[i], 4)));
		}
	assert_int_equal(l.used, NR_MANY);
	assert_true(l.mask + 1 > 2 * NR_MANY);
	file_locs_free(&l);
	clang_disposeTranslationUnit(many);
	for (i = 0; i <= NR_MANY; i++)
		unlink(many_path[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_offset),
		cmocka_unit_test(test_null_and_growth),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
