// SPDX-License-Identifier: GPL-2.0
/*
 * test-kconfig.c - configuration values and the CONFIG_ symbols behind a
 * source line (#if conditions open there, kbuild lines of its object).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapcheck/input/kconfig.h"

static char tree[] = "/tmp/trapcheck-kconfig-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *path = path_join(tree, rel), *dir = xstrdup(path);
	FILE *f;

	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_parents(dir, 0755), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(dir);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tree))
		return -1;
	put(".config",
	    "# comment\n"
	    "CONFIG_LRU_GEN=y\n"
	    "# CONFIG_NUMA is not set\n"
	    "CONFIG_HZ=250\n"
	    "CONFIG_LOCALVERSION=\"-cloud\"\n");
	put("mm/vmscan.c",
	    "#include <linux/mm.h>\n"		/* 1 */
	    "#ifdef CONFIG_LRU_GEN\n"		/* 2 */
	    "#if defined(CONFIG_NUMA) && \\\n"	/* 3 */
	    "    defined(CONFIG_MEMCG)\n"	/* 4 */
	    "int numa_only;\n"			/* 5 */
	    "#elif CONFIG_HZ > 100\n"		/* 6 */
	    "int hz_branch;\n"			/* 7 */
	    "#endif\n"				/* 8 */
	    "void look_around(void)\n"		/* 9 */
	    "{\n"				/* 10 */
	    "}\n"				/* 11 */
	    "#else\n"				/* 12 */
	    "static inline void look_around(void) {}\n"	/* 13 */
	    "#endif /* CONFIG_LRU_GEN */\n"	/* 14 */
	    "int everywhere;\n");		/* 15 */
	put("mm/Makefile",
	    "obj-y := vmscan.o other.o\n"
	    "# obj-$(CONFIG_COMMENTED) += vmscan.o\n"
	    "obj-$(CONFIG_MEMORY_FAILURE) += memory-failure.o \\\n"
	    "\tvmscan.o\n"
	    "obj-$(CONFIG_KSM) += ksm.o notvmscan.o\n");
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tree);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

static char *joined(const struct kconfig_syms *s)
{
	char *out = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		t = xasprintf("%s%s%s", out, i ? " " : "", s->v[i]);
		free(out);
		out = t;
	}
	return out;
}

static void check_line(const char *file, unsigned int line, const char *want)
{
	struct kconfig_syms s = { NULL };
	char *got;

	kconfig_line_symbols(tree, file, line, &s);
	got = joined(&s);
	if (strcmp(got, want))
		print_error("%s:%u: got \"%s\"\n", file, line, got);
	assert_string_equal(got, want);
	free(got);
	kconfig_syms_free(&s);
}

static void test_values(void **state)
{
	struct kconfig k;

	(void)state;
	assert_int_equal(kconfig_load(&k, tree), 0);
	assert_string_equal(kconfig_value(&k, "CONFIG_LRU_GEN"), "y");
	assert_string_equal(kconfig_value(&k, "CONFIG_HZ"), "250");
	assert_string_equal(kconfig_value(&k, "CONFIG_LOCALVERSION"),
			    "\"-cloud\"");
	assert_null(kconfig_value(&k, "CONFIG_NUMA"));
	assert_null(kconfig_value(&k, "CONFIG_ABSENT"));
	kconfig_free(&k);
	assert_int_equal(kconfig_load(&k, "/nonexistent-trapcheck"), -ENOENT);
	kconfig_free(&k);
}

/* Conditions open at a line, joined continuation lines, #elif chains. */
static void test_if_stack(void **state)
{
	const char *mk = "CONFIG_MEMORY_FAILURE";
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "CONFIG_LRU_GEN CONFIG_NUMA "
		 "CONFIG_MEMCG %s", mk);
	check_line("mm/vmscan.c", 5, want);
	/* An #elif depends on the branches before it too. */
	snprintf(want, sizeof(want), "CONFIG_LRU_GEN CONFIG_NUMA "
		 "CONFIG_MEMCG CONFIG_HZ %s", mk);
	check_line("mm/vmscan.c", 7, want);
	snprintf(want, sizeof(want), "CONFIG_LRU_GEN %s", mk);
	check_line("mm/vmscan.c", 10, want);
	/* The #else branch depends on the #ifdef as much. */
	check_line("mm/vmscan.c", 13, want);
	snprintf(want, sizeof(want), "%s", mk);
	check_line("mm/vmscan.c", 15, want);
}

/* kbuild: the object's own lines, not comments or longer names. */
static void test_kbuild(void **state)
{
	(void)state;
	check_line("mm/vmscan.c", 0, "CONFIG_MEMORY_FAILURE");
	check_line("mm/ksm.c", 0, "CONFIG_KSM");
	check_line("mm/other.c", 0, "");
	check_line("mm/missing.h", 3, "");
}

static void test_text(void **state)
{
	struct kconfig_syms s = { NULL };
	char *got;

	(void)state;
	kconfig_text_symbols("IS_ENABLED(CONFIG_A) && !MY_CONFIG_B && "
			     "CONFIG_A || CONFIG_", &s);
	got = joined(&s);
	assert_string_equal(got, "CONFIG_A");
	free(got);
	kconfig_syms_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_if_stack),
		cmocka_unit_test(test_kbuild),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
