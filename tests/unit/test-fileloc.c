// SPDX-License-Identifier: GPL-2.0
/*
 * test-fileloc.c - a location from a file's start plus an offset
 * (fileloc.h) against clang_getLocationForOffset(), at every offset of
 * the main file, a guarded header and headers included twice: the same
 * location but where libclang maps a macro argument to its expansion,
 * the same spelling always, the same tokens.
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
/*
 * Its first inclusion passes W(2) to a macro, its second calls f1():
 * libclang maps the second's bytes to the first's macro argument.
 */
static const char stage[] =
	"extern int s[sizeof(LONG_STAGE_NAME(W(2)))];\n";
static const char main_c[] =
	"#include \"g.h\"\n"
	"#include \"t.h\"\n"
	"#include \"t.h\"\n"
	"int f1(int);\n"
	"#define LONG_STAGE_NAME(x) (x)\n"
	"#define W(x) (x)\n"
	"#include \"s.h\"\n"
	"#undef LONG_STAGE_NAME\n"
	"#undef W\n"
	"#define LONG_STAGE_NAME(x) x\n"
	"#define W(x) f1(x)\n"
	"#include \"s.h\"\n"
	"#define CALL(f, a) f(TWICE(a))\n"
	"int m(int a)\n{\n\treturn CALL(g, a) + CALL(g, a + 1);\n}\n";

enum { G_H, T_H, S_H, M_C, NR_FILES };
static const char *const name[NR_FILES] = { "g.h", "t.h", "s.h", "m.c" };
static const char *const text[NR_FILES] = { guarded, twice, stage, main_c };

/* Forty headers, past the 31 the table's first 64 slots hold. */
#define NR_MANY 40

static char dir[] = "/tmp/trapcheck-fileloc-XXXXXX";
static char path[NR_FILES][64];
static char many_path[NR_MANY + 1][64];
static CXIndex idx;
static CXTranslationUnit tu;

static int put(char *p, size_t size, const char *file, const char *body)
{
	FILE *f;

	snprintf(p, size, "%s/%s", dir, file);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs(body, f);
	return fclose(f);
}

static int setup(void **state)
{
	int i;

	if (!mkdtemp(dir))
		return -1;
	for (i = 0; i < NR_FILES; i++)
		if (put(path[i], sizeof(path[i]), name[i], text[i]))
			return -1;
	idx = clang_createIndex(0, 0);
	tu = clang_parseTranslationUnit(idx, path[M_C], NULL, 0, NULL, 0,
			CXTranslationUnit_DetailedPreprocessingRecord);
	if (!tu)
		return -1;
	/* The sources are C a compiler takes. */
	for (i = 0; i < (int)clang_getNumDiagnostics(tu); i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, (unsigned int)i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);

		clang_disposeDiagnostic(d);
		if (sev >= CXDiagnostic_Warning)
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	int i;

	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	for (i = 0; i < NR_FILES; i++)
		unlink(path[i]);
	for (i = 0; i <= NR_MANY; i++)
		if (many_path[i][0])
			unlink(many_path[i]);
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

/* What differed at the offsets of one file. */
struct differed {
	unsigned int args;	/* libclang's location: an argument's expansion */
	unsigned int tokens;	/* a token from ours, none from libclang's */
};

/*
 * Every offset of file @i: ours is a file location of that byte;
 * libclang's is ours, or a macro argument's expansion with the same
 * spelling; the tokens from there to the file's end are the same; where
 * libclang's gives a token, ours gives the same.
 */
static struct differed check_file(struct file_locs *l, int i)
{
	CXFile f = clang_getFile(tu, path[i]);
	size_t size = strlen(text[i]);
	CXSourceLocation end_want, end_got;
	struct differed d = { 0, 0 };
	unsigned int off;
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
		clang_getExpansionLocation(got, &gf, NULL, NULL, &goff);
		assert_true(clang_File_isEqual(gf, f));
		assert_int_equal(goff, off);
		clang_getSpellingLocation(want, &wf, NULL, NULL, &woff);
		assert_true(clang_File_isEqual(wf, f));
		assert_int_equal(woff, off);
		if (!clang_equalLocations(want, got)) {
			/* Expanded where the macro's name is, not here. */
			clang_getExpansionLocation(want, NULL, NULL, NULL,
						   &woff);
			assert_int_not_equal(woff, off);
			d.args++;
		}
		spell(want, end_want, a, sizeof(a));
		spell(got, end_got, b, sizeof(b));
		assert_string_equal(a, b);
		tw = clang_getToken(tu, want);
		tg = clang_getToken(tu, got);
		if (tw) {
			CXString sw = clang_getTokenSpelling(tu, *tw);
			CXString sg;

			assert_non_null(tg);
			sg = clang_getTokenSpelling(tu, *tg);
			assert_string_equal(clang_getCString(sw),
					    clang_getCString(sg));
			clang_disposeString(sw);
			clang_disposeString(sg);
			clang_disposeTokens(tu, tw, 1);
		} else if (tg) {
			d.tokens++;
		}
		if (tg)
			clang_disposeTokens(tu, tg, 1);
	}
	return d;
}

/* Every offset of every file, asked in turn and then again. */
static void test_every_offset(void **state)
{
	struct file_locs l = { 0 };
	struct differed d;

	/* The arguments of CALL() and TWICE(). */
	assert_true(check_file(&l, M_C).args > 0);
	assert_true(check_file(&l, G_H).args > 0);
	/* t.h twice, no macro: the first inclusion, as libclang's. */
	d = check_file(&l, T_H);
	assert_int_equal(d.args, 0);
	assert_int_equal(d.tokens, 0);
	/*
	 * s.h: libclang maps its bytes to the first inclusion's argument
	 * of LONG_STAGE_NAME(), where clang_getToken() measures the
	 * macro's name and finds no token; ours finds "W" written there.
	 */
	d = check_file(&l, S_H);
	assert_true(d.args > 0);
	assert_true(d.tokens > 0);
	assert_true(check_file(&l, M_C).args > 0);
	assert_int_equal(l.used, 4);
	file_locs_free(&l);
	assert_null(l.slots);
	check_file(&l, T_H);
	file_locs_free(&l);
}

/* s.h's "W" at the offset of the second inclusion's call of f1(). */
static void test_token_written(void **state)
{
	struct file_locs l = { 0 };
	CXFile f = clang_getFile(tu, path[S_H]);
	unsigned int off = (unsigned int)(strstr(stage, "W(") - stage);
	CXToken *t = clang_getToken(tu, file_loc(&l, tu, f, off));
	CXString s;

	assert_non_null(t);
	s = clang_getTokenSpelling(tu, *t);
	assert_string_equal(clang_getCString(s), "W");
	clang_disposeString(s);
	clang_disposeTokens(tu, t, 1);
	file_locs_free(&l);
}

/*
 * No file, or a file of another TU: the null location. The table keeps
 * its answers as it grows, and forgets them for another TU.
 */
static void test_null_growth_and_tu(void **state)
{
	struct file_locs l = { 0 };
	char m[4096] = "", file[16], body[32];
	CXTranslationUnit many;
	CXFile f;
	int i, round;

	assert_true(clang_equalLocations(file_loc(&l, tu, NULL, 3),
					 clang_getNullLocation()));
	assert_int_equal(l.used, 0);
	for (i = 0; i < NR_MANY; i++) {
		snprintf(file, sizeof(file), "h%d.h", i);
		snprintf(body, sizeof(body), "int v%d;\n", i);
		assert_int_equal(put(many_path[i], sizeof(many_path[i]), file,
				     body), 0);
		snprintf(m + strlen(m), sizeof(m) - strlen(m),
			 "#include \"%s\"\n", file);
	}
	assert_int_equal(put(many_path[NR_MANY], sizeof(many_path[NR_MANY]),
			     "many.c", m), 0);
	many = clang_parseTranslationUnit(idx, many_path[NR_MANY], NULL, 0,
					  NULL, 0, 0);
	assert_non_null(many);
	for (round = 0; round < 2; round++)
		for (i = 0; i < NR_MANY; i++) {
			f = clang_getFile(many, many_path[i]);
			assert_non_null(f);
			assert_true(clang_equalLocations(
				file_loc(&l, many, f, 4),
				clang_getLocationForOffset(many, f, 4)));
		}
	assert_int_equal(l.used, NR_MANY);
	assert_true(l.mask + 1 > 2 * NR_MANY);
	/* h0.h is no file of the first TU; @l forgets many's files. */
	f = clang_getFile(many, many_path[0]);
	assert_true(clang_equalLocations(file_loc(&l, tu, f, 4),
					 clang_getNullLocation()));
	assert_int_equal(l.used, 1);
	file_locs_free(&l);
	clang_disposeTranslationUnit(many);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_offset),
		cmocka_unit_test(test_token_written),
		cmocka_unit_test(test_null_growth_and_tu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
