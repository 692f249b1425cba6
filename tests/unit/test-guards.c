// SPDX-License-Identifier: GPL-2.0
/*
 * Branch conditions to guard atoms (guards.c), and what they mean.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/guards.h"

/* Split a space-separated token list and normalise it. */
static char *atoms(const char *text, bool negated)
{
	char *copy = strdup(text), *toks[64], *save = NULL, *t, *out = NULL;
	size_t n = 0;

	for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		toks[n++] = t;
	guard_atoms((const char *const *)toks, n, negated, &out);
	free(copy);
	return out ? out : strdup("");
}

static void expect(const char *text, bool negated, const char *want)
{
	char *got = atoms(text, negated);

	assert_string_equal(got, want);
	free(got);
}

static void test_unlikely_and_conjunction(void **state)
{
	/* Seed 000's condition. */
	expect("unlikely ( ! system_capabilities_finalized ( ) && "
	       "! preemptible ( ) )", false,
	       "!system_capabilities_finalized() && !preemptible()");
	/* Seed 003's fixed condition, as the left operand of &&. */
	expect("unlikely ( ! crng_ready ( ) )", false, "!crng_ready()");
}

static void test_negation(void **state)
{
	expect("! crng_ready ( )", true, "crng_ready()");
	expect("crng_ready ( )", true, "!crng_ready()");
	/* !(a || b) is !a && !b. */
	expect("a || b", true, "!a && !b");
	/* !(a && b) stays one atom. */
	expect("a && b", true, "!(a&&b)");
	/* Precedence: !(ret & mask), not !ret & mask. */
	expect("ret & ( X | Y )", true, "!(ret&(X|Y))");
	expect("likely ( x > 0 )", true, "!(x>0)");
	expect("& foo", false, "&foo");
}

static void test_kinds(void **state)
{
	const char *g = "!system_capabilities_finalized() && !preemptible()";

	assert_true(guards_have(g, GUARD_CAPS_UNFINALIZED));
	assert_true(guards_have(g, GUARD_NOT_PREEMPTIBLE));
	assert_true(guards_boot(g));
	assert_true(guards_boot("x && !crng_ready()"));
	assert_false(guards_boot("crng_ready()"));
	/* An atom must match whole: not a substring of another. */
	assert_false(guards_boot("!crng_ready()_really"));
	assert_false(guards_have("x!preemptible()", GUARD_NOT_PREEMPTIBLE));
	assert_false(guards_have(NULL, GUARD_BOOT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlikely_and_conjunction),
		cmocka_unit_test(test_negation),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
