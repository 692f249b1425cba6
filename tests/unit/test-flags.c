// SPDX-License-Identifier: GPL-2.0
/*
 * test-flags.c - gcc to clang flag translation (checker/input/flags.def).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

static enum flag_action classify(const char *arg, size_t *len)
{
	const char *rep = "unset";
	size_t n = 99;
	enum flag_action act = flags_classify(arg, &rep, &n);

	if (len)
		*len = n;
	if (act != FLAG_MAP)
		assert_null(rep);
	return act;
}

static void test_classify_drop(void **state)
{
	assert_int_equal(classify("-mabi=lp64", NULL), FLAG_DROP);
	assert_int_equal(classify("-fconserve-stack", NULL), FLAG_DROP);
	assert_int_equal(classify("-c", NULL), FLAG_DROP);
	assert_int_equal(classify("-Wp,-MMD,kernel/.fork.o.d", NULL),
			 FLAG_DROP);
	assert_int_equal(classify("-femit-struct-debug-baseonly", NULL),
			 FLAG_DROP);
	assert_int_equal(classify("-mstack-protector-guard-offset=1224",
				  NULL), FLAG_DROP);
	assert_int_equal(classify("-Wall", NULL), FLAG_DROP);
}

static void test_classify_path(void **state)
{
	size_t n;

	assert_int_equal(classify("-I./include", &n), FLAG_PATH);
	assert_int_equal(n, 2);
	assert_int_equal(classify("-I", &n), FLAG_PATH);
	assert_int_equal(n, 2);
	assert_int_equal(classify("-isystem", &n), FLAG_PATH);
	assert_int_equal(n, strlen("-isystem"));
	assert_int_equal(classify("-include", &n), FLAG_PATH);
	assert_int_equal(n, strlen("-include"));
}

static void test_classify_keep(void **state)
{
	size_t n;

	/* -D and -U keep their value, joined or as the next argument. */
	assert_int_equal(classify("-DFOO", &n), FLAG_KEEP_ARG);
	assert_int_equal(n, 2);
	assert_int_equal(classify("-DKBUILD_MODFILE=\"kernel/fork\"", NULL),
			 FLAG_KEEP_ARG);
	assert_int_equal(classify("-O2", NULL), FLAG_KEEP);
	assert_int_equal(classify("-nostdinc", NULL), FLAG_KEEP);
}

static void test_classify_drop_arg(void **state)
{
	size_t n;

	assert_int_equal(classify("-o", &n), FLAG_DROP_ARG);
	assert_int_equal(n, 2);
	assert_int_equal(classify("-MF", &n), FLAG_DROP_ARG);
}

static void test_classify_map(void **state)
{
	const char *rep = NULL;
	size_t n;

	assert_int_equal(flags_classify("-fplan9-extensions", &rep, &n),
			 FLAG_MAP);
	assert_string_equal(rep, "-fms-extensions");
}

static void test_classify_unknown(void **state)
{
	size_t n = 99;

	assert_int_equal(classify("-fmade-up-flag", &n), FLAG_UNKNOWN);
	assert_int_equal(n, 0);
	/* Exact spellings do not match as prefixes. */
	assert_int_equal(classify("-mabi=lp64x", NULL), FLAG_UNKNOWN);
	assert_int_equal(classify("-cx", NULL), FLAG_UNKNOWN);
}

static void check_target(const char *compiler, const char *want,
			 bool want_known)
{
	bool known = !want_known;
	char *t = flags_target_for(compiler, &known);

	assert_int_equal(known, want_known);
	if (want)
		assert_string_equal(t, want);
	else
		assert_null(t);
	free(t);
}

static void test_target_for(void **state)
{
	check_target("aarch64-linux-gnu-gcc", "aarch64-linux-gnu", true);
	check_target("/usr/bin/x86_64-linux-gnu-gcc-12", "x86_64-linux-gnu",
		     true);
	check_target("gcc", NULL, true);
	check_target("/usr/bin/gcc-12", NULL, true);
	check_target("cc", NULL, true);
	check_target("clang-14", NULL, true);
	check_target("javac", NULL, false);
	check_target("python3", NULL, false);
}

/* A kbuild command for kernel/fork.c, as gen_compile_commands.py splits. */
static char *fork_argv[] = {
	"aarch64-linux-gnu-gcc",
	"-Wp,-MMD,kernel/.fork.o.d",
	"-nostdinc",
	"-I./arch/arm64/include",
	"-I./arch/arm64/include/generated",
	"-I./include",
	"-include",
	"./include/linux/kconfig.h",
	"-D__KERNEL__",
	"-mlittle-endian",
	"-mabi=lp64",
	"-fconserve-stack",
	"-femit-struct-debug-baseonly",
	"-fno-allow-store-data-races",
	"-ftrivial-auto-var-init=zero",
	"-mstack-protector-guard=sysreg",
	"-mstack-protector-guard-reg=sp_el0",
	"-mstack-protector-guard-offset=1224",
	"-fmade-up-flag",
	"-O2",
	"-DKBUILD_MODFILE=\"kernel/fork\"",
	"-DKBUILD_BASENAME=\"fork\"",
	"-c",
	"-o",
	"kernel/fork.o",
	"kernel/fork.c",
	"-isystem",
	"/usr/lib/gcc-cross/aarch64-linux-gnu/12/include",
};

static const struct compdb_entry fork_entry = {
	.directory = "/tree",
	.file = "/tree/kernel/fork.c",
	.argv = fork_argv,
	.argc = ARRAY_SIZE(fork_argv),
};

static int find_arg(const struct clang_args *a, const char *arg)
{
	int i;

	for (i = 0; i < a->argc; i++)
		if (!strcmp(a->argv[i], arg))
			return i;
	return -1;
}

/* The arguments joined by blanks, to compare after freeing them. */
static void join_args(const struct clang_args *a, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < a->argc && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s", i ? " " : "",
			      a->argv[i]);
}

static void test_translate_kbuild(void **state)
{
	static const char *const gone[] = {
		"aarch64-linux-gnu-gcc", "-mabi=lp64", "-fconserve-stack",
		"-femit-struct-debug-baseonly", "-fno-allow-store-data-races",
		"-ftrivial-auto-var-init=zero",
		"-mstack-protector-guard=sysreg",
		"-mstack-protector-guard-reg=sp_el0",
		"-mstack-protector-guard-offset=1224", "-c", "-o",
		"kernel/fork.o", "kernel/fork.c", "/tree/kernel/fork.c",
		"-I./arch/arm64/include", "./include/linux/kconfig.h",
	};
	struct clang_args a;
	size_t i;
	int at;

	assert_int_equal(flags_translate(&fork_entry, "/tree", &a),
			 FLAGS_PARSE);
	assert_string_equal(a.target, "aarch64-linux-gnu");
	assert_false(a.assembly);
	assert_true(a.argc > 0);
	assert_string_equal(a.argv[0], "--target=aarch64-linux-gnu");

	assert_true(find_arg(&a, "-I/tree/arch/arm64/include") > 0);
	assert_true(find_arg(&a, "-I/tree/arch/arm64/include/generated") > 0);
	assert_true(find_arg(&a, "-I/tree/include") > 0);
	at = find_arg(&a, "-include");
	assert_true(at > 0 && at + 1 < a.argc);
	assert_string_equal(a.argv[at + 1], "/tree/include/linux/kconfig.h");

	for (i = 0; i < ARRAY_SIZE(gone); i++) {
		if (find_arg(&a, gone[i]) >= 0)
			print_error("still there: %s\n", gone[i]);
		assert_int_equal(find_arg(&a, gone[i]), -1);
	}
	for (at = 0; at < a.argc; at++) {
		assert_null(strstr(a.argv[at], "-Wp,"));
		assert_null(strstr(a.argv[at], "gcc-cross"));
	}

	assert_true(find_arg(&a, "-O2") > 0);
	assert_true(find_arg(&a, "-nostdinc") > 0);
	assert_true(find_arg(&a, "-D__KERNEL__") > 0);
	assert_true(find_arg(&a, "-mlittle-endian") > 0);
	assert_true(find_arg(&a, "-DKBUILD_MODFILE=\"kernel/fork\"") > 0);
	assert_string_equal(a.argv[a.argc - 1], "-w");
	assert_int_equal(find_arg(&a, "-w"), a.argc - 1);

	/* gcc's own include directory becomes clang's resource directory. */
	at = find_arg(&a, "-isystem");
	assert_true(at > 0 && at + 1 < a.argc);
	assert_null(strstr(a.argv[at + 1], "gcc"));
	assert_string_equal(a.argv[at + 1], CLANG_RESOURCE_INCLUDE);

	assert_int_equal(a.nr_unknown, 1);
	assert_string_equal(a.unknown[0], "-fmade-up-flag");
	assert_true(find_arg(&a, "-fmade-up-flag") > 0);
	flags_args_free(&a);
	assert_null(a.argv);
}

static void test_drop_unknown(void **state)
{
	struct clang_args a;
	int argc, o2;

	assert_int_equal(flags_translate(&fork_entry, "/tree", &a),
			 FLAGS_PARSE);
	argc = a.argc;
	assert_true(find_arg(&a, "-fmade-up-flag") > 0);
	flags_drop_unknown(&a);
	assert_int_equal(a.argc, argc - 1);
	assert_int_equal(find_arg(&a, "-fmade-up-flag"), -1);
	o2 = find_arg(&a, "-O2");
	assert_true(o2 > 0);
	assert_string_equal(a.argv[0], "--target=aarch64-linux-gnu");
	assert_string_equal(a.argv[a.argc - 1], "-w");
	flags_args_free(&a);
}

/* "-D NAME" and "-U NAME": the value is the next argument. */
static void test_translate_separate_define(void **state)
{
	char *argv[] = { "gcc", "-D", "FOO=1", "-U", "BAR", "-c",
			 "kernel/fork.c" };
	struct compdb_entry e = {
		.directory = "/tree",
		.file = "/tree/kernel/fork.c",
		.argv = argv,
		.argc = ARRAY_SIZE(argv),
	};
	char first[256], retry[256];
	struct clang_args a;
	enum flags_skip skip;
	int nr_unknown;

	skip = flags_translate(&e, "/tree", &a);
	join_args(&a, first, sizeof(first));
	nr_unknown = a.nr_unknown;
	/* The values are no unknown flags, so a retry keeps them. */
	flags_drop_unknown(&a);
	join_args(&a, retry, sizeof(retry));
	flags_args_free(&a);

	assert_int_equal(skip, FLAGS_PARSE);
	assert_string_equal(first, "-D FOO=1 -U BAR -w");
	assert_string_equal(retry, "-D FOO=1 -U BAR -w");
	assert_int_equal(nr_unknown, 0);
}

static enum flags_skip translate(const char *file, const char *root,
				 char **argv, int argc, struct clang_args *a)
{
	struct compdb_entry e = {
		.directory = "/tree",
		.file = (char *)file,
		.argv = argv,
		.argc = argc,
	};

	return flags_translate(&e, root, a);
}

/* The module kbuild builds a TU into: KBUILD_MODFILE, else KBUILD_MODNAME. */
static void test_module(void **state)
{
	char *argv[] = { "aarch64-linux-gnu-gcc", "-DMODULE",
			 "-DKBUILD_MODNAME=\"ath11k\"", "-c",
			 "drivers/net/wireless/ath/ath11k/ce.c" };
	struct clang_args a;
	bool loadable;
	char *mod;

	(void)state;
	assert_int_equal(flags_translate(&fork_entry, "/tree", &a),
			 FLAGS_PARSE);
	mod = flags_module(&a, &loadable);
	assert_string_equal(mod, "kernel/fork");
	assert_false(loadable);
	free(mod);
	flags_args_free(&a);
	assert_int_equal(translate("/tree/drivers/net/wireless/ath/ath11k/ce.c",
				   "/tree", argv, ARRAY_SIZE(argv), &a),
			 FLAGS_PARSE);
	mod = flags_module(&a, &loadable);
	assert_string_equal(mod, "ath11k");
	assert_true(loadable);
	free(mod);
	flags_args_free(&a);
}

static void test_skip_not_c(void **state)
{
	char *argv[] = { "aarch64-linux-gnu-gcc", "-D__ASSEMBLY__", "-c",
			 "arch/arm64/kernel/entry.S" };
	struct clang_args a;

	/* A .S is translated, marked: the pipeline reads it with
	 * --assembly only (clang/asm.c). */
	assert_int_equal(translate("/tree/arch/arm64/kernel/entry.S", "/tree",
				   argv, ARRAY_SIZE(argv), &a), FLAGS_PARSE);
	assert_true(a.assembly);
	flags_args_free(&a);
	assert_int_equal(translate("/tree/lib/a.s", "/tree", argv,
				   ARRAY_SIZE(argv), &a), FLAGS_SKIP_NOT_C);
	flags_args_free(&a);
	assert_int_equal(translate("/tree/lib/c", "/tree", argv,
				   ARRAY_SIZE(argv), &a), FLAGS_SKIP_NOT_C);
	flags_args_free(&a);
}

static void test_skip_host(void **state)
{
	char *argv[] = { "gcc", "-O2", "-o", "scripts/kallsyms",
			 "scripts/kallsyms.c" };
	struct clang_args a;

	assert_int_equal(translate("/tree/scripts/kallsyms.c", "/tree", argv,
				   ARRAY_SIZE(argv), &a), FLAGS_SKIP_HOST);
	flags_args_free(&a);
	assert_int_equal(translate("/tree/tools/lib/x.c", "/tree/", argv,
				   ARRAY_SIZE(argv), &a), FLAGS_SKIP_HOST);
	flags_args_free(&a);
	/* Only the tree's own scripts/ is host code. */
	assert_int_equal(translate("/tree/kernel/scripts/x.c", "/tree", argv,
				   ARRAY_SIZE(argv), &a), FLAGS_PARSE);
	assert_null(a.target);
	assert_int_equal(find_arg(&a, "-O2"), 0);
	flags_args_free(&a);
}

/* A tree at "/" (compile_commands.json at the filesystem root). */
static void test_skip_host_fs_root(void **state)
{
	char *argv[] = { "gcc", "-O2", "-o", "scripts/kallsyms",
			 "scripts/kallsyms.c" };
	struct clang_args a;
	enum flags_skip skip;

	skip = translate("/scripts/kallsyms.c", "/", argv, ARRAY_SIZE(argv),
			 &a);
	flags_args_free(&a);
	assert_int_equal(skip, FLAGS_SKIP_HOST);
}

static void test_skip_compiler(void **state)
{
	char *javac[] = { "javac", "-d", "out", "kernel/fork.c" };
	char *ccache_only[] = { "ccache" };
	struct clang_args a;

	assert_int_equal(translate("/tree/kernel/fork.c", "/tree", javac,
				   ARRAY_SIZE(javac), &a),
			 FLAGS_SKIP_COMPILER);
	assert_null(a.target);
	flags_args_free(&a);
	assert_int_equal(translate("/tree/kernel/fork.c", "/tree",
				   ccache_only, ARRAY_SIZE(ccache_only), &a),
			 FLAGS_SKIP_COMPILER);
	flags_args_free(&a);
}

static void test_ccache_wrapper(void **state)
{
	char *argv[] = { "ccache", "aarch64-linux-gnu-gcc", "-O2", "-c",
			 "-o", "kernel/fork.o", "./kernel/fork.c" };
	struct clang_args a;

	assert_int_equal(translate("/tree/kernel/fork.c", "/tree", argv,
				   ARRAY_SIZE(argv), &a), FLAGS_PARSE);
	assert_string_equal(a.target, "aarch64-linux-gnu");
	assert_int_equal(a.argc, 3);
	assert_string_equal(a.argv[0], "--target=aarch64-linux-gnu");
	assert_string_equal(a.argv[1], "-O2");
	assert_string_equal(a.argv[2], "-w");
	assert_int_equal(a.nr_unknown, 0);
	flags_args_free(&a);
}

static void test_flag_warn_once(void **state)
{
	struct flag_warnings w;

	flags_warnings_init(&w);
	assert_true(flags_warn_once(&w, "-fmade-up-flag"));
	assert_false(flags_warn_once(&w, "-fmade-up-flag"));
	assert_true(flags_warn_once(&w, "-fother"));
	assert_false(flags_warn_once(&w, "-fother"));
	flags_warnings_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_drop),
		cmocka_unit_test(test_classify_path),
		cmocka_unit_test(test_classify_keep),
		cmocka_unit_test(test_classify_drop_arg),
		cmocka_unit_test(test_classify_map),
		cmocka_unit_test(test_classify_unknown),
		cmocka_unit_test(test_target_for),
		cmocka_unit_test(test_translate_kbuild),
		cmocka_unit_test(test_drop_unknown),
		cmocka_unit_test(test_translate_separate_define),
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_skip_not_c),
		cmocka_unit_test(test_skip_host),
		cmocka_unit_test(test_skip_host_fs_root),
		cmocka_unit_test(test_skip_compiler),
		cmocka_unit_test(test_ccache_wrapper),
		cmocka_unit_test(test_flag_warn_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
