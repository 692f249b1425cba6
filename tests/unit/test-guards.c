// SPDX-License-Identifier: GPL-2.0
/*
 * Branch conditions to guard atoms (guards.c), and what they mean.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"

#define arch_arm64 (*arch_find("arm64"))

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
	/* __cpu_has_rng()'s guard before its fix. */
	expect("unlikely ( ! system_capabilities_finalized ( ) && "
	       "! preemptible ( ) )", false,
	       "!system_capabilities_finalized() && !preemptible() && "
	       "<rare: unlikely(!system_capabilities_finalized()&&"
	       "!preemptible())>");
	/* The RDRAND patch's fixed condition, as the left operand of &&. */
	expect("unlikely ( ! crng_ready ( ) )", false,
	       "!crng_ready() && <rare: unlikely(!crng_ready())>");
	/* The other side of unlikely() and the likely side are not rare. */
	expect("unlikely ( ! crng_ready ( ) )", true, "crng_ready()");
	expect("likely ( src )", false, "src");
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
	/* The other side of likely(): rare, as written. */
	expect("likely ( x > 0 )", true, "!(x>0) && <rare: !likely(x>0)>");
	expect("& foo", false, "&foo");
}

/* Text as clang would print it, and likely() as the compiler sees it. */
static void test_tokens(void **state)
{
	char **t;
	size_t n, i;
	char *out = NULL;

	t = guard_tokens("__builtin_expect(!!(!system_capabilities_finalized()"
			 "), 0)&&x->y<=0x1fUL", &n);
	assert_int_equal(n, 19);
	assert_string_equal(t[0], "__builtin_expect");
	assert_string_equal(t[2], "!");
	assert_string_equal(t[13], "&&");
	assert_string_equal(t[15], "->");
	assert_string_equal(t[17], "<=");
	assert_string_equal(t[18], "0x1fUL");
	guard_atoms((const char *const *)t, 13, false, &out);
	assert_string_equal(out, "!system_capabilities_finalized() && <rare: "
			    "__builtin_expect(!!(!system_capabilities_"
			    "finalized()),0)>");
	free(out);
	for (i = 0; i < n; i++)
		free(t[i]);
	free(t);
	t = guard_tokens("  1.5e-3 'a' \"s\\\"\"", &n);
	assert_int_equal(n, 3);
	assert_string_equal(t[0], "1.5e-3");
	assert_string_equal(t[1], "'a'");
	for (i = 0; i < n; i++)
		free(t[i]);
	free(t);
}

/*
 * An architecture's own atoms are its: arm64's capability finalization is
 * a boot guard under arm64, nothing under an architecture without them;
 * the generic atoms hold under both.
 */
static void test_arch_atoms(void **state)
{
	const char *g = "!system_capabilities_finalized()";
	struct arch bare = { .name = "bare" };

	arch_set(&arch_arm64);
	assert_true(guards_boot(g));
	assert_true(guards_have(g, GUARD_CAPS_UNFINALIZED));
	arch_set(&bare);
	assert_false(guards_boot(g));
	assert_false(guards_have(g, GUARD_CAPS_UNFINALIZED));
	assert_true(guards_boot("!crng_ready()"));
	assert_true(guards_have("!preemptible()", GUARD_NOT_PREEMPTIBLE));
	arch_set(&arch_arm64);
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

/* A deadline test (6.1 crng_make_state()): a prefix atom of phases.def. */
static void test_periodic(void **state)
{
	const char *reseed = "time_is_before_jiffies(READ_ONCE(base_crng."
			     "birth)+crng_reseed_interval())";

	assert_true(guards_periodic(reseed));
	assert_true(guards_periodic("x && time_after(jiffies,next)"));
	assert_false(guards_periodic("time_after(now,next)"));
	/* Inside the interval: the hot path, not rate-limited. */
	assert_false(guards_periodic("!time_is_before_jiffies(t+HZ)"));
	/* A prefix still starts an atom. */
	assert_false(guards_periodic("xtime_is_before_jiffies(t)"));
	assert_false(guards_boot(reseed));
}

/* A case of a switch on a parameter: one argument value. */
static void test_argument(void **state)
{
	const char *g = "has_vhe() && <argument reg is CSSELR_EL1>";
	char *a = guards_find(g, GUARD_ARGUMENT);

	assert_non_null(a);
	assert_string_equal(a, "<argument reg is CSSELR_EL1>");
	free(a);
	assert_null(guards_find("has_vhe()", GUARD_ARGUMENT));
	assert_false(guards_have("x<argument reg is A>", GUARD_ARGUMENT));
}

/* A site the configuration compiles out (clang/extract-body.c). */
static void test_never(void **state)
{
	assert_true(guards_never("x && <never: 0&&y>"));
	assert_false(guards_never("x && never(y)"));
	assert_false(guards_never(NULL));
}

/* The machine's features (--features) against one-name feature tests. */
static void test_features(void **state)
{
	const char *fgt = "cpus_have_final_cap(ARM64_HAS_FGT)";
	char err[128];

	arch_set(&arch_arm64);
	assert_int_equal(cond_features_check("!ARM64_HAS_FGT,X_1", err,
					     sizeof(err)), 0);
	assert_int_equal(cond_features_check("A,,B", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--features: \"\" is not NAME or !NAME");
	assert_int_equal(cond_features_check("A,", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(cond_features_check("!", err, sizeof(err)), -EINVAL);
	assert_int_equal(cond_features_check("9A", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(cond_features_check("A(B)", err, sizeof(err)),
			 -EINVAL);
	assert_true(cond_features_rule_out(fgt, "!ARM64_HAS_FGT"));
	assert_true(cond_features_rule_out("x && !cpus_have_final_cap("
					   "ARM64_HAS_FGT)", "ARM64_HAS_FGT"));
	assert_false(cond_features_rule_out(fgt, "ARM64_HAS_FGT"));
	/* Not named, a prefix of a name, not a feature test: nothing. */
	assert_false(cond_features_rule_out(fgt, "!ARM64_HAS_FG"));
	assert_false(cond_features_rule_out(fgt, "!ARM64_HAS_RNG"));
	assert_false(cond_features_rule_out("test_bit(ARM64_HAS_FGT)",
					    "!ARM64_HAS_FGT"));
	/* A compound test decides nothing. */
	assert_false(cond_features_rule_out("cpus_have_final_cap("
					    "ARM64_HAS_FGT|1)",
					    "!ARM64_HAS_FGT"));
	assert_false(cond_features_rule_out(fgt, NULL));
	/* Whether a site is under any feature test (graph.c's pairs). */
	assert_true(cond_has_feature("x && !cpus_have_final_cap(A)"));
	assert_false(cond_has_feature("test_bit(A) && x"));
	assert_false(cond_has_feature(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlikely_and_conjunction),
		cmocka_unit_test(test_negation),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_periodic),
		cmocka_unit_test(test_argument),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_arch_atoms),
		cmocka_unit_test(test_never),
		cmocka_unit_test(test_features),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
