// SPDX-License-Identifier: GPL-2.0
/*
 * A header's shape (model/shape.h): changes inside function bodies keep
 * it, changes to what includers see (macros, types, declarations,
 * signatures) do not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "trapcheck/model/shape.h"

#define BASE								\
	"#ifndef H\n#define H\n#define SHIFT 8\n"			\
	"struct s { int a; };\n"					\
	"/* a comment */\n"						\
	"static inline bool f(void)\n{\n"				\
	"\tu64 v;\n#ifdef X\n\tv = 1;\n#endif\n"			\
	"\tv = read_cpuid(ID_AA64MMFR1_EL1);\n"			\
	"\tif (v) { return \"}\"[0]; }\n\treturn v >> SHIFT;\n}\n"	\
	"static const struct s t = { 1 };\n#endif\n"

static bool same(const char *a, const char *b)
{
	return shape_same(a, strlen(a), b, strlen(b));
}

/* @from replaced by @to in BASE, once. */
static char *edit(const char *from, const char *to)
{
	const char *base = BASE, *at = strstr(base, from);
	size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
	char *s = malloc(n);

	assert_non_null(at);
	memcpy(s, base, (size_t)(at - base));
	strcpy(s + (at - base), to);
	strcat(s, at + strlen(from));
	return s;
}

static void check(const char *from, const char *to, bool want)
{
	char *s = edit(from, to);

	if (same(BASE, s) != want)
		print_error("%s -> %s\n", from, to);
	assert_int_equal(same(BASE, s), want);
	free(s);
}

static void test_body_only(void **state)
{
	(void)state;
	/* a89c6bcdac22's change: the read inside the body. */
	check("v = read_cpuid(ID_AA64MMFR1_EL1);",
	      "v = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);", true);
	check("/* a comment */", "/* another comment */", true);
	check("struct s { int a; };", "struct s {\n\tint a;\n};", true);
	check("#ifdef X\n", "#ifdef Y\n", true);	/* inside the body */
	check("\"}\"[0]", "\"{\"[0]", true);		/* braces in a string */
}

static void test_shape_changes(void **state)
{
	(void)state;
	check("#define SHIFT 8", "#define SHIFT 9", false);
	check("struct s { int a; };", "struct s { long a; };", false);
	check("bool f(void)", "bool f(int x)", false);
	check("static const struct s t = { 1 };",
	      "static const struct s t = { 2 };", false);
	check("static inline bool f", "int g(void);\nstatic inline bool f",
	      false);
	/* a #define inside a body is seen by what follows it */
	check("\tv = 1;\n", "\tv = 1;\n#define SHIFT2 3\n", false);
}

/*
 * shape_macros() of BASE and BASE with @from replaced by @to: false, or
 * the names changed and added as "A,B/C" (sorted as found).
 */
static char *macros(const char *from, const char *to)
{
	char *s = edit(from, to), **ch, **ad, out[256] = "";
	size_t i;

	if (!shape_macros(BASE, strlen(BASE), s, strlen(s), &ch, &ad)) {
		free(s);
		return NULL;
	}
	for (i = 0; ch[i]; i++) {
		strcat(out, i ? "," : "");
		strcat(out, ch[i]);
		free(ch[i]);
	}
	strcat(out, "/");
	for (i = 0; ad[i]; i++) {
		strcat(out, i ? "," : "");
		strcat(out, ad[i]);
		free(ad[i]);
	}
	free(ch);
	free(ad);
	free(s);
	return strdup(out);
}

static void check_macros(const char *from, const char *to, const char *want)
{
	char *got = macros(from, to);

	if (!want ? got != NULL : !got || strcmp(got, want))
		print_error("%s -> %s: %s, not %s\n", from, to,
			    got ? got : "(not macros only)",
			    want ? want : "(not macros only)");
	if (want) {
		assert_non_null(got);
		assert_string_equal(got, want);
	} else {
		assert_null(got);
	}
	free(got);
}

static void test_macros_only(void **state)
{
	(void)state;
	/* A new value: where it is defined does not change. */
	check_macros("#define SHIFT 8", "#define SHIFT 9", "SHIFT/");
	check_macros("#define SHIFT 8",
		     "#define SHIFT \\\n\t8 + 1", "SHIFT/");
	/* A new name, named nowhere else in the header. */
	check_macros("#define SHIFT 8", "#define SHIFT 8\n#define NEW 1",
		     "NEW/NEW");
	/* Removed: its users were recorded (it was defined). */
	check_macros("#define SHIFT 8\n", "", "SHIFT/");
	check_macros("#define H\n", "", "H/");
	/* A group of definitions only: all it defines, maybe newly. */
	check_macros("#define SHIFT 8",
		     "#ifdef CONFIG_X\n#define SHIFT 9\n#else\n"
		     "#define SHIFT 8\n#endif", "SHIFT/SHIFT");
	/* In a function body, with the body changed too. */
	check_macros("\tv = 1;\n", "\tv = 2;\n#define SHIFT2 3\n",
		     "SHIFT2/SHIFT2");
	/* A new name some other line names: every includer. */
	check_macros("#define SHIFT 8", "#define SHIFT 8\n#define a 1",
		     NULL);
	/* A new name a definition names: that one changes too. */
	check_macros("#define SHIFT 8",
		     "#define NEW 1\n#define SHIFT NEW", "SHIFT,NEW/NEW");
	/* Not macros only. */
	check_macros("struct s { int a; };", "struct s { long a; };", NULL);
	check_macros("#ifndef H\n", "#ifndef H2\n", NULL);
	check_macros("/* a comment */", "#include <x.h>", NULL);
	/* Bodies only: shape_same()'s case, no macro changed. */
	check_macros("/* a comment */", "/* another */", NULL);
}

/* shape_macros() of two whole texts, as macros() gives it. */
static void check_texts(const char *a, const char *b, const char *want)
{
	char **ch, **ad, out[256] = "";
	size_t i;
	bool ok = shape_macros(a, strlen(a), b, strlen(b), &ch, &ad);

	if (ok) {
		for (i = 0; ch[i]; i++) {
			strcat(out, i ? "," : "");
			strcat(out, ch[i]);
			free(ch[i]);
		}
		strcat(out, "/");
		for (i = 0; ad[i]; i++) {
			strcat(out, i ? "," : "");
			strcat(out, ad[i]);
			free(ad[i]);
		}
		free(ch);
		free(ad);
	}
	if (!want ? ok : !ok || strcmp(out, want))
		print_error("%s -> %s: %s, not %s\n", a, b,
			    ok ? out : "(not macros only)",
			    want ? want : "(not macros only)");
	assert_int_equal(ok, want != NULL);
	if (want)
		assert_string_equal(out, want);
}

#define GUARDED "#ifndef G_H\n#define G_H\n\n#define A 1\n#define B(x) A\n\n#endif\n"

/*
 * A header of macros only inside its include guard: each line an item,
 * as with code inside (it was one group, so a macro added changed every
 * name it defines, the guard's too: every includer parsed again).
 */
static void test_macros_guarded(void **state)
{
	(void)state;
	check_texts(GUARDED,
		    "#ifndef G_H\n#define G_H\n#define N 1\n\n#define A 1\n"
		    "#define B(x) A\n\n#endif\n", "N/N");
	check_texts(GUARDED,
		    "#ifndef G_H\n#define G_H\n\n#define A 1\n#define B(x) A\n"
		    "\n#endif\n#define N 1\n", "N/N");
	check_texts(GUARDED,
		    "#ifndef G_H\n#define G_H\n\n#define A 2\n#define B(x) A\n"
		    "\n#endif\n", "A/");
	/* A conditional group inside: still one item. */
	check_texts("#ifndef G_H\n#define G_H\n#ifdef X\n#define A 1\n#else\n"
		    "#define A 2\n#endif\n#endif\n",
		    "#ifndef G_H\n#define G_H\n#ifdef X\n#define A 1\n#else\n"
		    "#define A 3\n#endif\n#endif\n", "A/A");
	/* The guard renamed: not macros only. */
	check_texts(GUARDED,
		    "#ifndef G2_H\n#define G2_H\n\n#define A 1\n"
		    "#define B(x) A\n\n#endif\n", NULL);
	/* Not the idiom (the guard given a value): one group, as before. */
	check_texts("#ifndef G_H\n#define G_H 1\n#define A 1\n#endif\n",
		    "#ifndef G_H\n#define G_H 1\n#define A 2\n#endif\n",
		    "G_H,A/G_H,A");
	/* Not at the top: a group like any other. */
	check_texts("#define Z 0\n#ifndef G_H\n#define G_H\n#define A 1\n#endif\n",
		    "#define Z 0\n#ifndef G_H\n#define G_H\n#define A 2\n#endif\n",
		    "G_H,A/G_H,A");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_only),
		cmocka_unit_test(test_shape_changes),
		cmocka_unit_test(test_macros_only),
		cmocka_unit_test(test_macros_guarded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
