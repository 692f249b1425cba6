// SPDX-License-Identifier: GPL-2.0
/*
 * test-checkargs.c - the command line of "trapcheck check" (kbuild's
 * CHECK protocol): our options, sparse's CHECKFLAGS, options with a
 * separate argument, the one source file, and the usage errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/checkargs.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

/*
 * What kbuild passed to $(CHECK) for the arm64 vDSO's vgetrandom.c of
 * Linux 6.12 (make ARCH=arm64 C=2 arch/arm64/kernel/vdso/, defconfig),
 * one word each: sparse's CHECKFLAGS, then c_flags from -Wp,-MMD, with
 * "-include <tree>/lib/vdso/getrandom.c" before the file.
 */
static const char *const vgetrandom_args[] = {
	"-D__linux__",
	"-Dlinux",
	"-D__STDC__",
	"-Dunix",
	"-D__unix__",
	"-Wbitwise",
	"-Wno-return-void",
	"-Wno-unknown-attribute",
	"-D__AARCH64EL__",
	"-D__aarch64__",
	"--arch=arm64",
	"-mlittle-endian",
	"-m64",
	"-Wp,-MMD,arch/arm64/kernel/vdso/.vgetrandom.o.d",
	"-nostdinc",
	"-I./arch/arm64/include",
	"-I./arch/arm64/include/generated",
	"-I./include",
	"-I./arch/arm64/include/uapi",
	"-I./arch/arm64/include/generated/uapi",
	"-I./include/uapi",
	"-I./include/generated/uapi",
	"-include",
	"./include/linux/compiler-version.h",
	"-include",
	"./include/linux/kconfig.h",
	"-include",
	"./include/linux/compiler_types.h",
	"-D__KERNEL__",
	"-mlittle-endian",
	"-DKASAN_SHADOW_SCALE_SHIFT=",
	"-fmacro-prefix-map=./=",
	"-std=gnu11",
	"-fshort-wchar",
	"-funsigned-char",
	"-fno-common",
	"-fno-PIE",
	"-fno-strict-aliasing",
	"-mgeneral-regs-only",
	"-DCONFIG_CC_HAS_K_CONSTRAINT=1",
	"-Wno-psabi",
	"-mabi=lp64",
	"-fno-asynchronous-unwind-tables",
	"-fno-unwind-tables",
	"-mbranch-protection=pac-ret",
	"-Wa,-march=armv8.5-a",
	"-DARM64_ASM_ARCH=\"armv8.5-a\"",
	"-DKASAN_SHADOW_SCALE_SHIFT=",
	"-fno-delete-null-pointer-checks",
	"-O2",
	"-fno-allow-store-data-races",
	"-fstack-protector-strong",
	"-fno-omit-frame-pointer",
	"-fno-optimize-sibling-calls",
	"-ftrivial-auto-var-init=zero",
	"-fno-stack-clash-protection",
	"-falign-functions=4",
	"-fno-strict-overflow",
	"-fno-stack-check",
	"-fconserve-stack",
	"-fno-builtin-wcslen",
	"-fno-builtin-wcslen",
	"-Wall",
	"-Wextra",
	"-Wundef",
	"-Werror=implicit-function-declaration",
	"-Werror=implicit-int",
	"-Werror=return-type",
	"-Werror=strict-prototypes",
	"-Wno-format-security",
	"-Wno-trigraphs",
	"-Wno-frame-address",
	"-Wno-address-of-packed-member",
	"-Wframe-larger-than=2048",
	"-Wno-main",
	"-Wno-dangling-pointer",
	"-Wvla",
	"-Wno-pointer-sign",
	"-Wcast-function-type",
	"-Wno-array-bounds",
	"-Wno-stringop-overflow",
	"-Wno-alloc-size-larger-than",
	"-Wimplicit-fallthrough=5",
	"-Werror=date-time",
	"-Werror=incompatible-pointer-types",
	"-Werror=designated-init",
	"-Wenum-conversion",
	"-Wunused",
	"-Wno-unused-but-set-variable",
	"-Wno-unused-const-variable",
	"-Wno-packed-not-aligned",
	"-Wno-format-overflow",
	"-Wno-format-truncation",
	"-Wno-stringop-truncation",
	"-Wno-override-init",
	"-Wno-missing-field-initializers",
	"-Wno-type-limits",
	"-Wno-shift-negative-value",
	"-Wno-maybe-uninitialized",
	"-Wno-sign-compare",
	"-Wno-unused-parameter",
	"-g",
	"-fno-var-tracking",
	"-femit-struct-debug-baseonly",
	"-mstack-protector-guard=sysreg",
	"-mstack-protector-guard-reg=sp_el0",
	"-mstack-protector-guard-offset=1224",
	"-fno-common",
	"-fno-builtin",
	"-fno-stack-protector",
	"-ffixed-x18",
	"-DDISABLE_BRANCH_PROFILING",
	"-DBUILD_VDSO",
	"-O2",
	"-mcmodel=tiny",
	"-fasynchronous-unwind-tables",
	"-include",
	"/tmp/kc/linux-6.12-arm64-defconfig-focus/lib/vdso/getrandom.c",
	"-DKBUILD_MODFILE=\"arch/arm64/kernel/vdso/vgetrandom\"",
	"-DKBUILD_BASENAME=\"vgetrandom\"",
	"-DKBUILD_MODNAME=\"vgetrandom\"",
	"-D__KBUILD_MODNAME=kmod_vgetrandom",
	"arch/arm64/kernel/vdso/vgetrandom.c",
};

#define VGETRANDOM "arch/arm64/kernel/vdso/vgetrandom.c"
#define GETRANDOM \
	"/tmp/kc/linux-6.12-arm64-defconfig-focus/lib/vdso/getrandom.c"

/* Parse "check" followed by the NULL-terminated words. */
static int parse_v(struct check_args *ca, const char *db, va_list ap)
{
	char *argv[64] = { (char *)"check" };
	int argc = 1;
	const char *a;

	while ((a = va_arg(ap, const char *)))
		argv[argc++] = (char *)a;
	return check_args_parse(ca, argc, argv, db);
}

static int parse(struct check_args *ca, const char *db, ...)
{
	va_list ap;
	int ret;

	va_start(ap, db);
	ret = parse_v(ca, db, ap);
	va_end(ap);
	return ret;
}

/* How often @arg is in the compile command; the index of the last. */
static int count_arg(const struct check_args *ca, const char *arg, int *at)
{
	int i, n = 0;

	for (i = 0; i < ca->argc; i++) {
		if (!strcmp(ca->argv[i], arg)) {
			n++;
			if (at)
				*at = i;
		}
	}
	return n;
}

/* A usage error whose text holds @want. */
static void assert_usage(struct check_args *ca, int ret, const char *want)
{
	assert_int_equal(ret, -1);
	assert_non_null(ca->error);
	assert_non_null(strstr(ca->error, want));
	assert_null(strchr(ca->error, '\n'));
	check_args_free(ca);
}

static void test_vgetrandom(void **state)
{
	size_t n = ARRAY_SIZE(vgetrandom_args), i;
	char **argv = xcalloc(n + 2, sizeof(*argv));
	struct compdb_entry e;
	struct clang_args args;
	struct check_args ca;
	int at = -1;

	argv[0] = (char *)"check";
	argv[1] = (char *)"--db=/tmp/k.db";
	for (i = 0; i < n; i++)
		argv[i + 2] = (char *)vgetrandom_args[i];
	assert_int_equal(check_args_parse(&ca, n + 2, argv, NULL), 0);
	assert_null(ca.error);
	assert_string_equal(ca.dbpath, "/tmp/k.db");
	assert_string_equal(ca.file, VGETRANDOM);
	assert_string_equal(ca.target, "aarch64-linux-gnu");
	assert_false(ca.fail);
	assert_false(ca.quiet);

	/* The compiler first, the file last, once. */
	assert_string_equal(ca.argv[0], "aarch64-linux-gnu-gcc");
	assert_string_equal(ca.argv[ca.argc - 1], VGETRANDOM);
	assert_int_equal(count_arg(&ca, VGETRANDOM, NULL), 1);

	/* sparse's 13 CHECKFLAGS are gone; c_flags' -mlittle-endian is not. */
	assert_int_equal(ca.nr_checkflags, 13);
	assert_int_equal(ca.argc, (int)n - 13 + 1);
	assert_int_equal(count_arg(&ca, "--arch=arm64", NULL), 0);
	assert_int_equal(count_arg(&ca, "-m64", NULL), 0);
	assert_int_equal(count_arg(&ca, "-D__aarch64__", NULL), 0);
	assert_int_equal(count_arg(&ca, "-D__STDC__", NULL), 0);
	assert_int_equal(count_arg(&ca, "-Wbitwise", NULL), 0);
	assert_int_equal(count_arg(&ca, "-mlittle-endian", NULL), 1);
	assert_string_equal(ca.argv[1], "-Wp,-MMD,arch/arm64/kernel/vdso/"
			    ".vgetrandom.o.d");

	/* -include keeps its .c file, the next -D is a -D. */
	assert_int_equal(count_arg(&ca, GETRANDOM, &at), 1);
	assert_string_equal(ca.argv[at - 1], "-include");
	assert_string_equal(ca.argv[at + 1],
			    "-DKBUILD_MODFILE=\"arch/arm64/kernel/vdso/"
			    "vgetrandom\"");

	/* And flags.def knows every flag that is left. */
	e.directory = (char *)"/tmp/kc/linux-6.12-arm64-defconfig-focus";
	e.file = path_join(e.directory, ca.file);
	e.argv = ca.argv;
	e.argc = ca.argc;
	assert_int_equal(flags_translate(&e, e.directory, &args), FLAGS_PARSE);
	for (i = 0; i < (size_t)args.nr_unknown; i++)
		fprintf(stderr, "unknown: %s\n", args.unknown[i]);
	assert_int_equal(args.nr_unknown, 0);
	assert_string_equal(args.target, "aarch64-linux-gnu");
	assert_string_equal(args.argv[0], "--target=aarch64-linux-gnu");
	for (i = 0; i < (size_t)args.argc; i++)
		if (!strcmp(args.argv[i], GETRANDOM))
			break;
	assert_true(i < (size_t)args.argc);
	assert_string_equal(args.argv[i - 1], "-include");
	flags_args_free(&args);
	free(e.file);
	check_args_free(&ca);
	free(argv);
}

static void test_usage_errors(void **state)
{
	struct check_args ca;

	assert_usage(&ca, parse(&ca, NULL, NULL), "no source file");
	assert_usage(&ca, parse(&ca, NULL, "--db=/tmp/k.db", "-v", NULL),
		     "no source file");
	assert_usage(&ca, parse(&ca, NULL, "-v", "foo.c", NULL),
		     "no database");
	assert_usage(&ca, parse(&ca, "", "foo.c", NULL), "no database");
	/* A .c that is an option's value is not the file. */
	assert_usage(&ca, parse(&ca, "k.db", "-include", "foo.c", NULL),
		     "no source file");
	assert_usage(&ca, parse(&ca, "k.db", "foo.c", "-include", NULL),
		     "'-include' needs an argument");
	assert_usage(&ca, parse(&ca, "k.db", "foo.c", "-o", NULL),
		     "'-o' needs an argument");
	assert_usage(&ca, parse(&ca, "k.db", "foo.S", NULL),
		     "no source file");
}

static void test_two_files(void **state)
{
	struct check_args ca;

	assert_usage(&ca, parse(&ca, "k.db", "a.c", "-O2", "dir/b.c", NULL),
		     "2 source files: 'a.c', 'dir/b.c'");
	assert_usage(&ca, parse(&ca, "k.db", "a.c", "b.c", "c.c", NULL),
		     "3 source files: 'a.c', 'b.c', 'c.c'");
	/* A newline in a name does not make the message two lines. */
	assert_usage(&ca, parse(&ca, "k.db", "a\n.c", "b.c", NULL),
		     "'a .c', 'b.c'");
}

static void test_db_forms(void **state)
{
	struct check_args ca;

	assert_int_equal(parse(&ca, NULL, "--db=x.db", "a.c", NULL), 0);
	assert_string_equal(ca.dbpath, "x.db");
	check_args_free(&ca);
	assert_int_equal(parse(&ca, NULL, "--db", "y.db", "a.c", NULL), 0);
	assert_string_equal(ca.dbpath, "y.db");
	assert_int_equal(count_arg(&ca, "y.db", NULL), 0);
	check_args_free(&ca);
	/* TRAPCHECK_DB, unless --db says otherwise. */
	assert_int_equal(parse(&ca, "env.db", "a.c", NULL), 0);
	assert_string_equal(ca.dbpath, "env.db");
	check_args_free(&ca);
	assert_int_equal(parse(&ca, "env.db", "a.c", "--db=x.db", NULL), 0);
	assert_string_equal(ca.dbpath, "x.db");
	check_args_free(&ca);
	/* The last one wins. */
	assert_int_equal(parse(&ca, NULL, "--db=1.db", "--db=2.db", "a.c",
			       NULL), 0);
	assert_string_equal(ca.dbpath, "2.db");
	check_args_free(&ca);

	assert_usage(&ca, parse(&ca, "env.db", "--db=", "a.c", NULL),
		     "--db= names no file");
	assert_usage(&ca, parse(&ca, NULL, "a.c", "--db", NULL),
		     "--db names no file");
	assert_usage(&ca, parse(&ca, NULL, "--db", "", "a.c", NULL),
		     "--db names no file");
}

static void test_fail_quiet(void **state)
{
	struct check_args ca;

	assert_int_equal(parse(&ca, "k.db", "--fail", "-q", "-O2", "a.c",
			       NULL), 0);
	assert_true(ca.fail);
	assert_true(ca.quiet);
	assert_int_equal(ca.argc, 3);		/* gcc -O2 a.c */
	assert_string_equal(ca.argv[0], "gcc");
	assert_string_equal(ca.argv[1], "-O2");
	assert_string_equal(ca.argv[2], "a.c");
	check_args_free(&ca);
	/* As an option's value, "-q" is gcc's. */
	assert_int_equal(parse(&ca, "k.db", "-D", "-q", "a.c", NULL), 0);
	assert_false(ca.quiet);
	assert_int_equal(count_arg(&ca, "-q", NULL), 1);
	check_args_free(&ca);
}

static void test_include_c(void **state)
{
	struct check_args ca;
	int at = -1;

	assert_int_equal(parse(&ca, "k.db", "-include", "lib/x.c",
			       "-DFOO=1", "-imacros", "y.c", "drv/a.c",
			       NULL), 0);
	assert_string_equal(ca.file, "drv/a.c");
	assert_int_equal(count_arg(&ca, "lib/x.c", &at), 1);
	assert_string_equal(ca.argv[at - 1], "-include");
	assert_string_equal(ca.argv[at + 1], "-DFOO=1");
	assert_int_equal(count_arg(&ca, "y.c", NULL), 1);
	assert_string_equal(ca.argv[ca.argc - 1], "drv/a.c");
	check_args_free(&ca);
	/* Joined, the value is no separate word. */
	assert_int_equal(parse(&ca, "k.db", "-includelib/x.h", "a.c", NULL),
			 0);
	assert_string_equal(ca.file, "a.c");
	check_args_free(&ca);
}

static void test_separate_values(void **state)
{
	struct check_args ca;

	assert_int_equal(parse(&ca, "k.db", "-o", "out.c", "-MF", "dep.c",
			       "-MT", "t.c", "-I", "inc.c", "-D", "X.c",
			       "--param", "p.c", "real.c", NULL), 0);
	assert_string_equal(ca.file, "real.c");
	assert_int_equal(count_arg(&ca, "out.c", NULL), 1);
	assert_int_equal(count_arg(&ca, "dep.c", NULL), 1);
	check_args_free(&ca);
	/* A word that is not .c and no option's value goes to gcc. */
	assert_int_equal(parse(&ca, "k.db", "-x", "c", "a.c", "", NULL), 0);
	assert_string_equal(ca.file, "a.c");
	assert_int_equal(count_arg(&ca, "c", NULL), 1);
	assert_int_equal(count_arg(&ca, "", NULL), 0);
	check_args_free(&ca);
}

/*
 * CHECKFLAGS are what comes before kbuild's -Wp,-MMD: later, -m32 and
 * -mlittle-endian are c_flags and stay (x86_64's vdso32 is built -m32).
 */
static void test_checkflags_before_c_flags(void **state)
{
	struct check_args ca;

	assert_int_equal(parse(&ca, "k.db", "-D__linux__", "-Wsparse-all",
			       "-D__CHECK_ENDIAN__", "-D__x86_64__",
			       "--arch=x86_64", "-mlittle-endian", "-m64",
			       "-Wp,-MMD,arch/x86/entry/vdso/vdso32/.x.o.d",
			       "-m32", "-mlittle-endian", "vdso32/x.c",
			       NULL), 0);
	assert_string_equal(ca.target, "x86_64-linux-gnu");
	assert_string_equal(ca.argv[0], "x86_64-linux-gnu-gcc");
	assert_int_equal(ca.nr_checkflags, 5);
	assert_int_equal(count_arg(&ca, "-m64", NULL), 0);
	assert_int_equal(count_arg(&ca, "-m32", NULL), 1);
	assert_int_equal(count_arg(&ca, "-mlittle-endian", NULL), 1);
	assert_int_equal(count_arg(&ca, "--arch=x86_64", NULL), 0);
	/* Not sparse's own: the user's CF= flags stay. */
	assert_int_equal(count_arg(&ca, "-D__CHECK_ENDIAN__", NULL), 1);
	assert_int_equal(count_arg(&ca, "-Wsparse-all", NULL), 1);
	check_args_free(&ca);
}

/* Without kbuild's mark: the leading words the table knows. */
static void test_checkflags_leading(void **state)
{
	struct check_args ca;

	assert_int_equal(parse(&ca, "k.db", "-D__i386__", "-m32", "-I.",
			       "-m32", "-D__i386__", "a.c", NULL), 0);
	assert_string_equal(ca.target, "i386-linux-gnu");
	assert_string_equal(ca.argv[0], "i386-linux-gnu-gcc");
	assert_int_equal(ca.nr_checkflags, 2);
	assert_int_equal(count_arg(&ca, "-m32", NULL), 1);
	assert_int_equal(count_arg(&ca, "-D__i386__", NULL), 1);
	check_args_free(&ca);
	/* No architecture named: the host's compiler. */
	assert_int_equal(parse(&ca, "k.db", "--arch=mips", "-m64", "a.c",
			       NULL), 0);
	assert_null(ca.target);
	assert_string_equal(ca.argv[0], "gcc");
	assert_int_equal(ca.argc, 2);
	check_args_free(&ca);
}

static void test_check_flag_classify(void **state)
{
	bool known = false;

	assert_string_equal(check_flag_classify("-D__aarch64__", &known),
			    "aarch64-linux-gnu");
	assert_true(known);
	assert_string_equal(check_flag_classify("-D__i386__", &known),
			    "i386-linux-gnu");
	assert_null(check_flag_classify("--arch=arm64", &known));
	assert_true(known);
	assert_null(check_flag_classify("-D__riscv_xlen=64", &known));
	assert_true(known);
	assert_null(check_flag_classify("-m64", &known));
	assert_true(known);
	assert_null(check_flag_classify("-m64x", &known));
	assert_false(known);
	assert_null(check_flag_classify("-D__KERNEL__", &known));
	assert_false(known);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vgetrandom),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_two_files),
		cmocka_unit_test(test_db_forms),
		cmocka_unit_test(test_fail_quiet),
		cmocka_unit_test(test_include_c),
		cmocka_unit_test(test_separate_values),
		cmocka_unit_test(test_checkflags_before_c_flags),
		cmocka_unit_test(test_checkflags_leading),
		cmocka_unit_test(test_check_flag_classify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
