// SPDX-License-Identifier: GPL-2.0
/*
 * test-patch.c - patch file names as git format-patch makes them; the
 * diffs of several edits of one file (edit_diff_all()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A file of lines "l1" .. "l20". */
static void twenty_lines(struct src_file *src)
{
	char *text = calloc(1, 200), *p = text;
	int i;

	for (i = 1; i <= 20; i++)
		p += sprintf(p, "l%d\n", i);
	src_from_text(src, "f.c", text);
}

/*
 * An edit that keeps its first line (an insertion after it) shows three
 * lines of context on each side, as diff(1): GNU patch wants no fuzz.
 */
static void test_insertion_context(void **state)
{
	struct src_file src;
	struct fix_edit e = { 0 };
	const struct fix_edit *v[] = { &e };
	size_t added, removed;
	char *d;

	twenty_lines(&src);
	e.first = e.last = 10;
	fix_edit_add_line(&e, "l10");
	fix_edit_add_line(&e, "new");
	d = edit_diff_all(&src, v, 1, &added, &removed);
	assert_non_null(d);
	assert_non_null(strstr(d, "@@ -8,6 +8,7 @@\n l8\n l9\n l10\n+new\n l11\n"
				  " l12\n l13\n"));
	assert_int_equal(added, 1);
	assert_int_equal(removed, 0);
	free(d);
	fix_edit_free(&e);
	src_free(&src);
}

/*
 * Two edits far apart are two hunks, the second's new start moved by
 * the first; two close ones are one hunk; overlapping ones are refused.
 */
static void test_two_edits(void **state)
{
	struct src_file src;
	struct fix_edit a = { 0 }, b = { 0 }, c = { 0 };
	const struct fix_edit *far[] = { &b, &a }, *near[] = { &a, &c };
	const struct fix_edit *both[] = { &a, &a };
	size_t added, removed;
	char *d, *t;

	twenty_lines(&src);
	a.first = a.last = 3;
	fix_edit_add_line(&a, "x3");
	fix_edit_add_line(&a, "y3");
	b.first = b.last = 17;
	fix_edit_add_line(&b, "x17");
	c.first = c.last = 6;
	fix_edit_add_line(&c, "x6");
	d = edit_diff_all(&src, far, 2, &added, &removed);
	assert_non_null(strstr(d, "@@ -1,6 +1,7 @@\n"));
	assert_non_null(strstr(d, "@@ -14,7 +15,7 @@\n"));
	assert_int_equal(added, 3);
	assert_int_equal(removed, 2);
	free(d);
	d = edit_diff_all(&src, near, 2, &added, &removed);
	assert_non_null(strstr(d, "@@ -1,9 +1,10 @@\n"));
	assert_null(strstr(strstr(d, "\n@@") + 1, "\n@@"));	/* one hunk */
	free(d);
	t = edit_apply_all(&src, far, 2);
	assert_non_null(strstr(t, "l2\nx3\ny3\nl4\n"));
	assert_non_null(strstr(t, "l16\nx17\nl18\n"));
	free(t);
	assert_null(edit_apply_all(&src, both, 2));
	fix_edit_free(&a);
	fix_edit_free(&b);
	fix_edit_free(&c);
	src_free(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_long_slug),
		cmocka_unit_test(test_git_names),
		cmocka_unit_test(test_insertion_context),
		cmocka_unit_test(test_two_edits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
