// SPDX-License-Identifier: GPL-2.0
/*
 * A TU's macro set (model/macroset.h) round-trips through its text and
 * refuses a damaged one; the definitions read from source text
 * (model/macrodefs.h) give every macro that may expand a changed one: in
 * a body, through continuations, through a literal part of a pasted
 * name (both ends when both are literal, three characters at least), and
 * not through a parameter of the same name, a comment or a string; a
 * definition in a TU's own source counts for that TU only.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "trapcheck/model/macrodefs.h"
#include "trapcheck/model/macroset.h"

static uint32_t h(const char *s)
{
	return macroset_hash(s, strlen(s));
}

static void test_set_roundtrip(void **state)
{
	uint32_t v[] = { 0xffffffffu, 0, 5, 5, 1u << 31, 31, 32, 1023 };
	uint32_t q[2];
	size_t i;
	char *text;

	(void)state;
	text = macroset_encode(v, sizeof(v) / sizeof(v[0]));
	assert_memory_equal(text, MACROSET_TAG, strlen(MACROSET_TAG));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		q[0] = v[i];
		assert_int_equal(macroset_any(text, q, 1), 1);
	}
	q[0] = 4;
	q[1] = 6;
	assert_int_equal(macroset_any(text, q, 2), 0);
	q[0] = 6;
	q[1] = 1u << 31;
	assert_int_equal(macroset_any(text, q, 2), 1);
	assert_int_equal(macroset_any("x1:AB", q, 2), -EINVAL);
	assert_int_equal(macroset_any("m1:AB\x01", q, 2), -EINVAL);
	free(text);
	text = macroset_encode(v, 0);
	assert_string_equal(text, MACROSET_TAG);
	assert_int_equal(macroset_any(text, q, 2), 0);
	free(text);
}

/* Is @name in the closure @c of @n, defined in @file? */
static bool in_file(const struct macro_dep *c, size_t n, const char *name,
		    int file)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].h == h(name) && c[i].file == file)
			return true;
	return false;
}

static bool in(const struct macro_dep *c, size_t n, const char *name)
{
	return in_file(c, n, name, 0) || in_file(c, n, name, -1);
}

static void test_closure(void **state)
{
	static const char text[] =
		"#define FTR_STRICT true\n"
		"#define USES_IT(x) (x ? FTR_STRICT : 0)\n"
		"  #  define USES_USES \\\n\t\tUSES_IT(1)\n"
		"#define PARAM(FTR_STRICT) FTR_STRICT\n"
		"#define COMMENT /* FTR_STRICT */ 1\n"
		"#define STRING \"FTR_STRICT\"\n"
		"#define PASTE(f) FTR_ ## f\n"
		"#define PASTE2(f) f ## _STRICT\n"
		"#define BOTH(a, b) a ## b\n"
		"#define MIDDLE(a, b) a ## _ ## b\n"
		"#define ENDS(n) FTR_ ## n ## _SHIFT\n"
		"#define ENDS2(n) F ## n ## _STRICT\n"
		"#define SUF3(v) v ## ICT\n"
		"#define SUF2(v) v ## CT\n"
		"int FTR_STRICT_user = FTR_STRICT;\n"
		"/*\n#define IN_COMMENT FTR_STRICT\n*/\n";
	char *changed[] = { "FTR_STRICT", NULL };
	static const char other[] =
		"#define RX_SIZE (1500 + FTR_STRICT)\n";
	static const char third[] =
		"#define RX_SIZE 1500\n#define USES_RX RX_SIZE\n";
	struct macro_defs *d = macro_defs_new();
	struct macro_dep *c;
	size_t n;

	(void)state;
	macro_defs_read(d, text, strlen(text), 0, false);
	macro_defs_read(d, other, strlen(other), 1, true);
	macro_defs_read(d, third, strlen(third), 2, false);
	c = macro_defs_closure(d, changed, &n);
	assert_true(in(c, n, "FTR_STRICT"));
	assert_true(in(c, n, "USES_IT"));
	assert_true(in(c, n, "USES_USES"));	/* in turn, continued */
	assert_true(in(c, n, "PASTE"));		/* FTR_ ## f */
	assert_true(in(c, n, "PASTE2"));	/* f ## _STRICT */
	assert_false(in(c, n, "PARAM"));	/* its own parameter */
	assert_false(in(c, n, "COMMENT"));
	assert_false(in(c, n, "STRING"));
	assert_false(in(c, n, "BOTH"));		/* known limit */
	assert_false(in(c, n, "MIDDLE"));	/* nor a literal between */
	assert_false(in(c, n, "ENDS"));		/* both ends must fit */
	assert_true(in(c, n, "ENDS2"));
	assert_true(in(c, n, "SUF3"));
	assert_false(in(c, n, "SUF2"));		/* shorter than FRAG_MIN */
	/* A #define line in a block comment is read: more, never fewer. */
	assert_true(in(c, n, "IN_COMMENT"));
	/* Each definition where it is: RX_SIZE of file 1 names it ... */
	assert_true(in_file(c, n, "RX_SIZE", 1));
	assert_false(in_file(c, n, "RX_SIZE", 2));
	/* ... a .c file's (local): file 2's USES_RX, which names the name,
	 * counts only in that TU (file 1), where RX_SIZE may be file 1's. */
	assert_true(in_file(c, n, "USES_RX", 1));
	assert_false(in_file(c, n, "USES_RX", 2));
	assert_true(in_file(c, n, "FTR_STRICT", -1));
	for (size_t i = 1; i < n; i++)
		assert_true(c[i - 1].file < c[i].file ||
			    (c[i - 1].file == c[i].file && c[i - 1].h < c[i].h));
	free(c);
	macro_defs_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_roundtrip),
		cmocka_unit_test(test_closure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
