// SPDX-License-Identifier: GPL-2.0
/*
 * test-cocci-emit.c - the shapes --emit-cocci writes, and the edits it
 * leaves out with a reason. spatch itself runs in tests/e2e/emitcocci.t.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/model/sinks.h"
#include "trapcheck/output/cocci-emit.h"
#include "trapcheck/base/util.h"

/* One site: @text is the file, lines [first, last] become @new. */
struct one {
	struct finding f;
	struct fix_sites sites;
	struct findings list;	/* the notes --emit-cocci leaves */
	char path[64];
	char *out;
};

static void split(struct src_file *s, const char *rel, const char *text)
{
	char *p;

	memset(s, 0, sizeof(*s));
	s->path = xstrdup(rel);
	s->text = xstrdup(text);
	s->lines = xcalloc(strlen(text) + 2, sizeof(*s->lines));
	for (p = s->text; *p;) {
		char *nl = strchr(p, '\n');

		s->lines[s->nr_lines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
}

static void add_site(struct one *o, struct finding *f, const char *text,
		     unsigned int first, unsigned int last, const char **new)
{
	struct fix_site *s = PUSH(o->sites.v, o->sites.nr, o->sites.alloc);

	memset(s, 0, sizeof(*s));
	s->f = f;
	split(&s->src, f->site->file, text);
	s->e.first = first;
	s->e.last = last;
	for (; *new; new++)
		fix_edit_add_line(&s->e, "%s", *new);
	s->e.subject = xasprintf("fix %s()", f->fn->name);
}

/* The graph's side of the test's findings: a few at a time. */
static struct gsink sites[8];
static struct gnode fns[8];
static unsigned int nr_made;

static void init_finding(struct finding *f, const char *file,
			 const char *function, unsigned int func_line,
			 unsigned int line, const char *sink)
{
	struct gsink *s = &sites[nr_made % ARRAY_SIZE(sites)];
	struct gnode *n = &fns[nr_made++ % ARRAY_SIZE(fns)];

	memset(f, 0, sizeof(*f));
	memset(s, 0, sizeof(*s));
	memset(n, 0, sizeof(*n));
	n->name = function;
	n->file = file;
	n->line = func_line;
	n->defined = true;
	s->file = file;
	s->line = line;
	s->col = 2;
	s->sink = sink_lookup_name(sink);
	assert_true(s->sink >= 0);
	f->rule = "trapping-idreg-read";
	f->site = s;
	f->fn = n;
	f->message = "a message";
}

/* Write the semantic patch; its text in o->out. Returns the rules. */
static int emit(struct one *o)
{
	struct cocci_opts co = { "/some/linux", 0 };
	char err[256];
	FILE *fp;
	long n;
	int ret;

	strcpy(o->path, "/tmp/test-cocci-emit.XXXXXX");
	ret = mkstemp(o->path);
	assert_true(ret >= 0);
	close(ret);
	o->sites.list = &o->list;
	ret = cocci_emit(o->path, &o->sites, &co, err, sizeof(err));
	assert_true(ret >= 0);
	fp = fopen(o->path, "r");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	o->out = xcalloc(n + 1, 1);
	assert_int_equal(fread(o->out, 1, n, fp), n);
	fclose(fp);
	unlink(o->path);
	return ret;
}

static void done(struct one *o)
{
	findings_free(&o->list);
	fix_sites_free(&o->sites);
	free(o->out);
}

/* What --emit-cocci said of @f: why it left its fix out, or NULL. */
static const char *fix_note(const struct one *o, const struct finding *f)
{
	const struct finding_note *n = finding_note_of(&o->list, f);

	return n ? n->fix_note : NULL;
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want))
		print_error("missing:\n%s\nin:\n%s\n", want, text);
	assert_non_null(strstr(text, want));
}

static void lacks(const char *text, const char *bad)
{
	if (strstr(text, bad))
		print_error("unexpected:\n%s\nin:\n%s\n", bad, text);
	assert_null(strstr(text, bad));
}

static const char hw_af[] =
	"static inline bool cpu_has_hw_af(void)\n"	/* 1 */
	"{\n"
	"\tu64 mmfr1;\n"
	"\n"
	"\t/* read it */\n"				/* 5 */
	"\tmmfr1 = read_cpuid(ID_AA64MMFR1_EL1); // raw\n"
	"\treturn mmfr1 & 1;\n"
	"}\n";

static void test_statement(void **state)
{
	const char *new[] = {
		"\t/*", "\t * cached", "\t */",
		"\tmmfr1 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);", NULL,
	};
	struct one o = { 0 };
	struct finding f;

	init_finding(&f, "arch/arm64/include/asm/cpufeature.h",
		     "cpu_has_hw_af", 1, 6, "read_cpuid");
	add_site(&o, &f, hw_af, 6, 6, new);
	assert_int_equal(emit(&o), 1);
	has(o.out, "@fix1 depends on patch@\n"
		   "position tc_fn : script:python() { trapcheck_in(tc_fn, "
		   "\"arch/arm64/include/asm/cpufeature.h\") };\n"
		   "type tc_T;\nsymbol mmfr1;\n@@\n\n"
		   "tc_T cpu_has_hw_af@tc_fn(...)\n{\n<...\n"
		   "-\tmmfr1 = read_cpuid(ID_AA64MMFR1_EL1);\n"
		   "+\t/*\n+\t * cached\n+\t */\n"
		   "+\tmmfr1 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);\n"
		   "...>\n}\n");
	has(o.out, "*\tmmfr1 = read_cpuid@tc_sink(ID_AA64MMFR1_EL1);\n");
	has(o.out, "p << find1.tc_sink;");
	has(o.out, "// Options: --no-includes --include-headers\n");
	has(o.out, "/// - fix cpu_has_hw_af()\n");
	has(o.out, "from the analysis of linux.");
	lacks(o.out, "// raw");
	assert_null(fix_note(&o, &f));
	done(&o);
}

static const char cast[] =
	"static void variant_extract(u32 *state)\n"	/* 1 */
	"{\n"
	"\tstate[3] = (u32)read_sysreg_s(SYS_ID_AA64ISAR0_EL1);\n"
	"}\n";

/*
 * A cast to a kernel type: u32 declared as a typedef, and drop_cast off
 * (spatch warned "pure metavariable T is matched against ... u32").
 */
static void test_cast(void **state)
{
	const char *new[] = {
		"\tstate[3] = (u32)read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);",
		NULL,
	};
	struct one o = { 0 };
	struct finding f;

	init_finding(&f, "drivers/char/rng_variants.c", "variant_extract", 1,
		     3, "read_sysreg_s");
	add_site(&o, &f, cast, 3, 3, new);
	assert_int_equal(emit(&o), 1);
	has(o.out, "@fix1 depends on patch disable drop_cast@\n");
	has(o.out, "@find1 depends on !patch disable drop_cast@\n");
	has(o.out, "typedef u32;\nsymbol state;\n@@\n");
	done(&o);
}

static const char crng[] =
	"static void _extract_crng(u8 *out)\n"		/* 1 */
	"{\n"
	"\tunsigned long v;\n"
	"\n"
	"\tif (arch_get_random_long(&v))\n"		/* 5 */
	"\t\tout[0] ^= v;\n"
	"}\n";

static void test_header(void **state)
{
	const char *new[] = {
		"\tif (unlikely(!crng_ready()) && arch_get_random_long(&v))",
		NULL };
	struct one o = { 0 };
	struct finding f;

	init_finding(&f, "drivers/char/random.c", "_extract_crng", 1, 5,
		     "arch_get_random_long");
	add_site(&o, &f, crng, 5, 5, new);
	assert_int_equal(emit(&o), 1);
	has(o.out, "statement tc_S1, tc_S2;\nsymbol v;\n");
	has(o.out, "(\n-\tif (arch_get_random_long(&v))\n"
		   "+\tif (unlikely(!crng_ready()) && "
		   "arch_get_random_long(&v))\n\ttc_S1 else tc_S2\n|\n"
		   "-\tif (arch_get_random_long(&v))\n"
		   "+\tif (unlikely(!crng_ready()) && "
		   "arch_get_random_long(&v))\n\ttc_S1\n)\n");
	/* Only .c files: no --include-headers. */
	has(o.out, "// Options: --no-includes\n");
	done(&o);
}

static const char rng[] =
	"static __always_inline bool __cpu_has_rng(void)\n"	/* 1 */
	"{\n"
	"\tif (unlikely(!system_capabilities_finalized() && !preemptible()))\n"
	"\t\treturn this_cpu_has_cap(ARM64_HAS_RNG);\n"
	"\treturn alternative_has_cap_unlikely(ARM64_HAS_RNG);\n" /* 5 */
	"}\n";

static const char *rng_new[] = {
	"\tif (unlikely(!system_capabilities_finalized() && !preemptible())) {",
	"\t\tu64 isar0 = read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);",
	"",
	"\t\treturn isar0 != 0;",
	"\t}",
	"",
	NULL,
};

/*
 * The blank line at the end takes the next statement in; the two calls
 * without arguments of the if line come from metavariables.
 */
static void test_blank_and_zero_calls(void **state)
{
	struct one o = { 0 };
	struct finding f;

	init_finding(&f, "arch/arm64/include/asm/archrandom.h",
		     "__cpu_has_rng", 1, 4, "this_cpu_has_cap");
	add_site(&o, &f, rng, 3, 4, rng_new);
	assert_int_equal(emit(&o), 1);
	has(o.out, "type tc_T;\nexpression tc_E0, tc_E1;\ntypedef u64;\n"
		   "symbol isar0;\n@@\n");
	has(o.out, "-\tif (unlikely(!\\(tc_E0 \\& "
		   "system_capabilities_finalized(...)\\) && "
		   "!\\(tc_E1 \\& preemptible(...)\\)))\n"
		   "-\t\treturn this_cpu_has_cap(ARM64_HAS_RNG);\n"
		   "-\treturn alternative_has_cap_unlikely(ARM64_HAS_RNG);\n"
		   "+\tif (unlikely(!tc_E0 && !tc_E1)) {\n");
	has(o.out, "+\t}\n+\n"
		   "+\treturn alternative_has_cap_unlikely(ARM64_HAS_RNG);\n"
		   "...>\n");
	/* The context form marks the site only, not the next statement. */
	has(o.out, "*\tif (unlikely(!system_capabilities_finalized(...) && "
		   "!preemptible(...)))\n"
		   "*\t\treturn this_cpu_has_cap@tc_sink(ARM64_HAS_RNG);\n...>\n");
	done(&o);
}

/* No fix: still a semantic patch spatch runs (it refuses one without code). */
static void test_nothing(void **state)
{
	struct one o = { 0 };

	assert_int_equal(emit(&o), 0);
	has(o.out, "/// (none)\n");
	has(o.out, "@nothing@\n@@\n\n- trapcheck_found_nothing_to_fix();\n");
	lacks(o.out, "@fix");
	has(o.out, "// Options: --no-includes\n");
	done(&o);
}

static void check_left_out(const char *text, unsigned int func_line,
			   unsigned int first, unsigned int last,
			   const char **new, const char *why)
{
	struct one o = { 0 };
	struct finding f;

	init_finding(&f, "a/b.c", "fn", func_line, first, "read_cpuid");
	add_site(&o, &f, text, first, last, new);
	assert_int_equal(emit(&o), 0);
	lacks(o.out, "@fix1");
	has(o.out, "//# Left out: a/b.c:");
	assert_non_null(fix_note(&o, &f));
	if (strncmp(fix_note(&o, &f), "fix not in ", 11) ||
	    !strstr(fix_note(&o, &f), why))
		print_error("fix_note: %s\nwant: %s\n", fix_note(&o, &f),
			    why);
	assert_non_null(strstr(fix_note(&o, &f), why));
	done(&o);
}

static void test_left_out(void **state)
{
	const char *one[] = { "\tx = read_sanitised_ftr_reg(SYS_X);", NULL };
	const char *blank[] = { "\tx = read_sanitised_ftr_reg(SYS_X);", "",
				NULL };
	const char *two[] = {
		"\tif (a() && b())", NULL };

	check_left_out("int fn(void)\n{\n\treturn g(a,\n\t\tread_cpuid(X));\n}\n",
		       1, 4, 4, one, "the old lines are not whole statements");
	check_left_out("int fn(void)\n{\n\tx = a +\n\t\tread_cpuid(X);\n}\n",
		       1, 4, 4, one, "do not start a statement (the line "
		       "before ends with '+')");
	check_left_out("int fn(void)\n{\n\tx = read_cpuid(X);\n}\n", 1, 3, 3,
		       blank, "ends with a blank line and no statement follows");
	check_left_out("DEFINE_THING(fn)\n{\n\tx = read_cpuid(X);\n}\n", 1, 3,
		       3, one, "a macro defines it");
	check_left_out("int fn(void)\n{\n#ifdef A\n\tx = read_cpuid(X);\n"
		       "#endif\n}\n", 1, 3, 5, one, "preprocessor directive");
	check_left_out("int fn(void)\n{\n\tif (read_cpuid(X))\n\t\tg();\n}\n",
		       1, 3, 3, two, "cannot parse that line");
}

static void test_overlap(void **state)
{
	const char *new[] = { "\tmmfr1 = 0;", NULL };
	struct one o = { 0 };
	struct finding f, g;

	init_finding(&f, "arch/arm64/include/asm/cpufeature.h",
		     "cpu_has_hw_af", 1, 6, "read_cpuid");
	init_finding(&g, "arch/arm64/include/asm/cpufeature.h",
		     "cpu_has_hw_af", 1, 6, "read_cpuid");
	/* The second site of the same read in that function. */
	((struct gsink *)g.site)->ordinal = 2;
	add_site(&o, &f, hw_af, 6, 6, new);
	add_site(&o, &g, hw_af, 6, 7, new);
	assert_int_equal(emit(&o), 1);
	assert_null(fix_note(&o, &f));
	assert_non_null(fix_note(&o, &g));
	assert_non_null(strstr(fix_note(&o, &g), "overlap the fix of"));
	done(&o);
}

/* scripts/coccicheck greps the whole file for "Options:". */
static void test_comment_text(void **state)
{
	const char *new[] = { "\tmmfr1 = 0;", NULL };
	struct one o = { 0 };
	struct finding f;

	init_finding(&f, "arch/arm64/include/asm/cpufeature.h",
		     "cpu_has_hw_af", 1, 6, "read_cpuid");
	f.message = "see Options: and Requires: and \"quotes\" and it's";
	add_site(&o, &f, hw_af, 6, 6, new);
	assert_int_equal(emit(&o), 1);
	assert_ptr_equal(strstr(o.out, "Options:"),
			 strstr(o.out, "// Options: --no-includes") + 3);
	assert_ptr_equal(strstr(o.out, "Requires:"),
			 strstr(o.out, "// Requires: 1.1.1") + 3);
	has(o.out, "\"WARNING: see Options\\x3a and Requires\\x3a and "
		   "\\\"quotes\\\" and it\\x27s [trapping-idreg-read]\"");
	done(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statement),
		cmocka_unit_test(test_cast),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_blank_and_zero_calls),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_left_out),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_comment_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
