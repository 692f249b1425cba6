// SPDX-License-Identifier: GPL-2.0
/*
 * test-patch.c - patch file names as git format-patch makes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "trapcheck/output/patch.h"

static void check_name(unsigned int n, const char *subject, const char *want)
{
	char *got = patch_name(n, subject);

	assert_string_equal(got, want);
	free(got);
}

static void test_names(void **state)
{
	check_name(1, "arm64: cpufeature: avoid it",
		   "0001-arm64-cpufeature-avoid-it.patch");
	check_name(12, "--a  b--", "0012-a-b.patch");
	check_name(3, "", "0003-.patch");
}

/*
 * A subject that loses fewer characters than ".patch" adds: the name
 * used to be written past the end of its buffer (ASan: heap overflow in
 * patch_name()).
 */
static void test_long_slug(void **state)
{
	check_name(5, "rng_variants: avoid it in variant_extract",
		   "0005-rng_variants-avoid-it-in-variant_extract.patch");
	check_name(7, "abcdefghij", "0007-abcdefghij.patch");
}

/*
 * git format-patch's names: '.' kept (a run of them once), trailing '.'
 * and '-' dropped, then cut at 64 characters with the suffix, a '-' left
 * where the cut falls (what git 2.39 writes for the same subject).
 */
static void test_git_names(void **state)
{
	check_name(2, "a..b.c. ", "0002-a.b.c.patch");
	check_name(1, "arm64: cpufeature: avoid trapping ID register read "
		   "in cpu_has_hw_af()",
		   "0001-arm64-cpufeature-avoid-trapping-ID-register-read-in-"
		   ".patch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_long_slug),
		cmocka_unit_test(test_git_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
