// SPDX-License-Identifier: GPL-2.0
/*
 * Rule switches (rules/switches.h): gcc's and sparse's spellings, the
 * last word about a rule winning, other tools' -W words left alone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trapcheck/rules/switches.h"

static char err[512];

static int take(struct rule_switches *s, const char *w, unsigned int how)
{
	err[0] = '\0';
	return switches_take(s, w, how, err, sizeof(err));
}

static void test_off_and_back(void **state)
{
	struct rule_switches s;

	(void)state;
	switches_init(&s, RULE_ERROR);
	assert_int_equal(take(&s, "-Wno-preempt-guard", SWITCH_STRICT), 1);
	assert_int_equal(switches_level(&s, "preempt-guard"), RULE_OFF);
	assert_int_equal(switches_level(&s, "slow-entropy"), RULE_ERROR);
	/* -WRULE: back at the run's level, an error here. */
	assert_int_equal(take(&s, "-Wpreempt-guard", SWITCH_STRICT), 1);
	assert_int_equal(switches_level(&s, "preempt-guard"), RULE_ERROR);
}

static void test_error_levels(void **state)
{
	struct rule_switches s;

	(void)state;
	switches_init(&s, RULE_WARNING);
	assert_int_equal(take(&s, "-Werror=slow-entropy", 0), 1);
	assert_int_equal(switches_level(&s, "slow-entropy"), RULE_ERROR);
	assert_int_equal(switches_level(&s, "local-cap-check"), RULE_WARNING);
	/* A bare -Werror only where it is ours to take. */
	assert_int_equal(take(&s, "-Werror", 0), 0);
	assert_int_equal(switches_level(&s, "local-cap-check"), RULE_WARNING);
	assert_int_equal(take(&s, "-Werror", SWITCH_BARE), 1);
	assert_int_equal(switches_level(&s, "local-cap-check"), RULE_ERROR);
	assert_int_equal(take(&s, "-Wno-error=local-cap-check", 0), 1);
	assert_int_equal(switches_level(&s, "local-cap-check"), RULE_WARNING);
	/* -WRULE on a rule that is on keeps its level. */
	assert_int_equal(take(&s, "-Wslow-entropy", 0), 1);
	assert_int_equal(switches_level(&s, "slow-entropy"), RULE_ERROR);
	/* An off rule stays off under -Werror. */
	assert_int_equal(take(&s, "-Wno-preempt-guard", 0), 1);
	assert_int_equal(take(&s, "-Werror", SWITCH_BARE), 1);
	assert_int_equal(switches_level(&s, "preempt-guard"), RULE_OFF);
}

static void test_not_ours(void **state)
{
	struct rule_switches s;

	(void)state;
	switches_init(&s, RULE_WARNING);
	/* sparse's and gcc's words, among kbuild's. */
	assert_int_equal(take(&s, "-Wbitwise", SWITCH_BARE), 0);
	assert_int_equal(take(&s, "-Wno-return-void", SWITCH_BARE), 0);
	assert_int_equal(take(&s, "-Werror=implicit-int", 0), 0);
	assert_false(s.changed);
	/* On trapcheck's own command line, a typo is an error. */
	assert_int_equal(take(&s, "-Wno-preempt-gaurd", SWITCH_STRICT),
			 -EINVAL);
	assert_non_null(strstr(err, "no rule 'preempt-gaurd' (rules: "));
	/* Every rule, the architectures' own too, in the rules' order. */
	assert_non_null(strstr(err, " trapping-idreg-read, slow-entropy, "
			       "preempt-guard, local-cap-check, "
			       "trapping-msr-read, trapping-pmc-read)"));
}

static void test_filter_and_count(void **state)
{
	struct finding v[3] = {
		{ .rule = "preempt-guard" },
		{ .rule = "slow-entropy" },
		{ .rule = "local-cap-check" },
	};
	struct findings fs = { 0 };
	struct rule_switches s;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		*PUSH(fs.v, fs.nr, fs.alloc) = v[i];
	switches_init(&s, RULE_ERROR);
	take(&s, "-Wno-preempt-guard", SWITCH_STRICT);
	take(&s, "-Wno-error=slow-entropy", SWITCH_STRICT);
	switches_filter(&s, &fs, NULL);
	assert_int_equal(fs.nr, 2);
	assert_string_equal(fs.v[0].rule, "slow-entropy");
	assert_string_equal(fs.v[1].rule, "local-cap-check");
	assert_int_equal(switches_errors(&s, &fs), 1);
	findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_and_back),
		cmocka_unit_test(test_error_levels),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_filter_and_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
