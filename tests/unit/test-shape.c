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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_only),
		cmocka_unit_test(test_shape_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
