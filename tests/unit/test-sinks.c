// SPDX-License-Identifier: GPL-2.0
/*
 * The register and sink tables: every spelling of a register read maps
 * to the same register, and each register has its trap class; which
 * architecture a compile command builds for (arch.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/clang/tables.h"
#include "trapcheck/graph/graph.h"

/* arm64's row kinds, to make its tables as a TU's facts would. */
#include "arch/arm64/arm64.h"

#define arch_arm64 (*arch_find("arm64"))
#define arch_x86 (*arch_find("x86"))

static const struct reg_def *via(enum sink_how how, const char *name,
				 const char *arg)
{
	int k = sink_lookup(how, name);

	assert_true(k >= 0);
	return reg_lookup_arg(sink_at(k), arg);
}

static const struct arch *arch_of(const char *cmd)
{
	char buf[512], *argv[32], *p;
	int argc = 0;

	strcpy(buf, cmd);
	for (p = strtok(buf, " "); p && argc < 32; p = strtok(NULL, " "))
		argv[argc++] = p;
	return arch_of_argv(argv, argc);
}

static void test_arch_of_command(void **state)
{
	/* kbuild's include of the architecture, joined or apart. */
	assert_ptr_equal(arch_of("gcc -nostdinc -I./arch/arm64/include "
				 "-c mm/memory.c"), &arch_arm64);
	assert_ptr_equal(arch_of("gcc -I /s/linux/arch/arm64/include/uapi "
				 "-c x.c"), &arch_arm64);
	/* The compiler's target prefix, --target. */
	assert_ptr_equal(arch_of("/usr/bin/aarch64-linux-gnu-gcc -c x.c"),
			 &arch_arm64);
	assert_ptr_equal(arch_of("clang --target=aarch64-linux-gnu -c x.c"),
			 &arch_arm64);
	/* x86: kbuild's include, an x86_64 prefix. */
	assert_ptr_equal(arch_of("gcc -I./arch/x86/include -c x.c"),
			 &arch_x86);
	assert_ptr_equal(arch_of("x86_64-linux-gnu-gcc -c x.c"), &arch_x86);
	/* Nothing said, an architecture without tables, a look-alike. */
	assert_null(arch_of("gcc -O2 -c x.c"));
	assert_null(arch_of("gcc -I./arch/sparc/include -c x.c"));
	assert_null(arch_of("gcc -I/src/myarch/arm64/include -c x.c"));
	assert_null(arch_of("gcc -I./arch/arm64/includes -c x.c"));
	assert_ptr_equal(arch_find("arm64"), &arch_arm64);
	assert_ptr_equal(arch_find("x86"), &arch_x86);
	assert_null(arch_find("sparc"));
	assert_ptr_equal(arch_current(), &arch_arm64);
}

static void test_patch_areas(void **state)
{
	const char *want[][2] = {
		{ "arch/arm64/include/asm/archrandom.h", "arm64: archrandom" },
		{ "arch/arm64/kvm/debug.c", "KVM: arm64" },
		{ "arch/arm64/mm/fault.c", "arm64: mm" },
		{ "drivers/char/random.c", "random" },
		{ "mm/memory.c", "mm" },
		{ "lib/foo.c", "foo" },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *a = fix_area(want[i][0]);

		assert_string_equal(a, want[i][1]);
		free(a);
	}
}

static void test_spellings_map_to_one_register(void **state)
{
	const struct reg_def *r = reg_lookup("ID_AA64MMFR1_EL1");

	assert_non_null(r);
	assert_ptr_equal(via(SINK_MACRO, "read_cpuid", "ID_AA64MMFR1_EL1"), r);
	assert_ptr_equal(via(SINK_MACRO, "read_sysreg_s",
			     "SYS_ID_AA64MMFR1_EL1"), r);
	assert_ptr_equal(via(SINK_MACRO, "read_sysreg", "id_aa64mmfr1_el1"),
			 r);
	assert_ptr_equal(via(SINK_CALL, "__read_sysreg_by_encoding",
			     "SYS_ID_AA64MMFR1_EL1"), r);
}

static void test_wrong_spelling_is_no_register(void **state)
{
	/* read_sysreg_s() takes an encoding name: SYS_ is required. */
	assert_null(via(SINK_MACRO, "read_sysreg_s", "ID_AA64MMFR1_EL1"));
	assert_null(via(SINK_MACRO, "read_cpuid", "SYS_ID_AA64MMFR1_EL1"));
	assert_null(via(SINK_MACRO, "read_sysreg", "cntvct_el0"));
	assert_null(via(SINK_CALL, "__read_sysreg_by_encoding", NULL));
}

static void test_trap_classes(void **state)
{
	static const char tid1[] = "HCR_EL2.TID1", tid2[] = "HCR_EL2.TID2";
	static const char tid3[] = "HCR_EL2.TID3", none[] = "none";
	static const struct {
		const char *reg;
		const char *trap;	/* as the architecture names it */
	} want[] = {
		{ "ID_AA64PFR0_EL1", tid3 }, { "ID_AA64PFR2_EL1", tid3 },
		{ "ID_AA64DFR1_EL1", tid3 }, { "ID_AA64ISAR3_EL1", tid3 },
		{ "ID_AA64MMFR4_EL1", tid3 }, { "ID_AA64ZFR0_EL1", tid3 },
		{ "ID_AA64SMFR0_EL1", tid3 }, { "ID_AA64FPFR0_EL1", tid3 },
		{ "ID_PFR0_EL1", tid3 }, { "ID_DFR1_EL1", tid3 },
		{ "ID_ISAR6_EL1", tid3 }, { "ID_MMFR5_EL1", tid3 },
		{ "MVFR2_EL1", tid3 },
		{ "AIDR_EL1", tid1 }, { "REVIDR_EL1", tid1 },
		{ "CTR_EL0", tid2 }, { "CCSIDR_EL1", tid2 },
		{ "CLIDR_EL1", tid2 }, { "CSSELR_EL1", tid2 },
		{ "MIDR_EL1", none }, { "MPIDR_EL1", none },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct reg_def *r = reg_lookup(want[i].reg);

		assert_non_null(r);
		assert_string_equal(reg_trap_name(r->trap), want[i].trap);
	}
	assert_string_equal(reg_trap_name(TRAP_NONE), none);
	assert_null(reg_lookup("CNTVCT_EL0"));
	/* Not in the table: spelled as an ID register, it traps as one. */
	assert_null(reg_lookup("ID_AA64XYZ9_EL1"));
	assert_string_equal(reg_trap_name(reg_idreg_trap("ID_AA64XYZ9_EL1")),
			    tid3);
	assert_int_equal(reg_idreg_trap("CNTVCT_EL0"), TRAP_NONE);
}

/*
 * The tables read from the tree and the trap of an unlisted ID register
 * are the architecture's: an architecture without them has none.
 */
static void test_arch_tables(void **state)
{
	struct arch bare = { .name = "bare" };

	assert_int_equal(tables_find("arm64_ftr_regs")->kind,
			 ARCH_ROW_FTR_REGS);
	assert_int_equal(tables_find("arm64_errata")->kind, ARCH_ROW_CAPS);
	assert_int_equal(tables_find("id_aa64pfr0_el1_sys_val")->how,
			 TABLE_NAMES);
	assert_null(tables_find("arm64_ftr_bits"));
	arch_set(&bare);
	assert_null(tables_find("arm64_ftr_regs"));
	assert_int_equal(reg_idreg_trap("ID_AA64PFR0_EL1"), TRAP_NONE);
	arch_set(&arch_arm64);
}

/* A graph with arm64's rows @r, its tables loaded as graph_finish() does. */
static void arm64_graph(struct graph *g, const struct grow *r, size_t n)
{
	size_t i;

	graph_init(g);
	g->tables_seen = 1u << ARCH_ROW_FTR_REGS;
	for (i = 0; i < n; i++)
		graph_add_row(g, &r[i]);
	g->arch_tables = arch_current()->tables_load(g);
}

/*
 * What a function tests of a value: the fields of the register its tokens
 * name from the read on, as shift macros (facts "fields").
 */
static void test_value_fields(void **state)
{
	char *const tok[] = {
		"dfr0", "=", "read_sysreg", "(", "id_aa64dfr0_el1", ")", ";",
		"if", "(", "cpuid_feature_extract_unsigned_field", "(", "dfr0",
		",", "ID_AA64DFR0_EL1_PMSVer_SHIFT", ")", "&&",
		"SYS_FIELD_GET", "(", "ID_AA64DFR0_EL1", ",", "TraceBuffer",
		",", "dfr0", ")", "&&", "(", "dfr0", "&",
		"ID_AA64DFR0_EL1_PMSVer_MASK", ")", "&&",
		"ID_AA64DFR0_DoubleLock_SHIFT", "&&", "ID_AA64DFR0_EL1_IMP",
		"&&", "ID_AA64PFR0_EL1_AMU_SHIFT", ")",
	};
	char *f;

	assert_non_null(arch_arm64.value_fields);
	f = arch_arm64.value_fields(tok, ARRAY_SIZE(tok), "ID_AA64DFR0_EL1");
	assert_non_null(f);
	assert_string_equal(f, "ID_AA64DFR0_EL1_PMSVer_SHIFT,"
			    "ID_AA64DFR0_EL1_TraceBuffer_SHIFT,"
			    "ID_AA64DFR0_DoubleLock_SHIFT");
	free(f);
	assert_null(arch_arm64.value_fields(tok, 7, "ID_AA64DFR0_EL1"));
}

/* The advice for a read of @reg in @file by fn() testing @fields. */
static char *ask(const struct graph *g, const char *reg, const char *fields,
		 const char *file, int *san)
{
	return advice_read(g, &(struct read_ask){ .reg = reg,
		.fields = fields, .fn = "fn", .file = file }, san);
}

/*
 * trapping-idreg-read's advice and rewrite are the architecture's:
 * arm64's names its sanitised copy when it answers the fields the code
 * tests; one without them, a cached value and no rewrite.
 */
static void test_arch_advice(void **state)
{
	struct arch bare = { .name = "bare" };
	const struct grow rows[] = {
		{ .kind = ARCH_ROW_FTR_REGS, .table = "arm64_ftr_regs",
		  .key = "ID_AA64MMFR1_EL1" },
		/* Its array: complete, HAFDBS strict, PAN non-strict. */
		{ .kind = ARCH_ROW_FTR_BITS, .table = "ftr_id_aa64mmfr1",
		  .key = "ID_AA64MMFR1_EL1" },
		{ .kind = ARCH_ROW_FTR_BITS, .table = "ftr_id_aa64mmfr1",
		  .key = "ID_AA64MMFR1_EL1",
		  .v = { "ID_AA64MMFR1_EL1_HAFDBS_SHIFT", "S" } },
		{ .kind = ARCH_ROW_FTR_BITS, .table = "ftr_id_aa64mmfr1",
		  .key = "ID_AA64MMFR1_EL1",
		  .v = { "ID_AA64MMFR1_EL1_PAN_SHIFT", "N" } },
		{ .kind = ARCH_ROW_HYP_COPY, .table = "id_aa64mmfr1_el1_sys_val",
		  .key = "id_aa64mmfr1_el1_sys_val" },
	};
	struct fix_edit e = { 0 };
	struct graph g;
	char *a, *why = NULL;
	int san = 7;

	arm64_graph(&g, rows, 4);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL, NULL, &san);
	assert_int_equal(san, 1);
	assert_non_null(strstr(a, "read_sanitised_ftr_reg(SYS_"
				  "ID_AA64MMFR1_EL1)"));
	free(a);
	a = ask(&g, "ID_AA64PFR0_EL1", NULL, NULL, &san);
	assert_int_equal(san, 0);
	free(a);
	assert_non_null(strstr(advice_any_read(), "read_sanitised_ftr_reg"));

	/* Field by field: strict, non-strict, not described. */
	a = ask(&g, "ID_AA64MMFR1_EL1", "ID_AA64MMFR1_EL1_HAFDBS_SHIFT",
		"mm/memory.c", &san);
	assert_non_null(strstr(a, "the sanitised copy is "));
	free(a);
	a = ask(&g, "ID_AA64MMFR1_EL1", "ID_AA64MMFR1_EL1_HAFDBS_SHIFT,"
		"ID_AA64MMFR1_EL1_PAN_SHIFT", "mm/memory.c", &san);
	assert_int_equal(san, 1);
	assert_string_equal(a, "fn() tests PAN, a FTR_NONSTRICT field of "
			    "ID_AA64MMFR1_EL1: CPUs may differ there, and the "
			    "sanitised copy holds the system-wide safe value, "
			    "not this CPU's; read this CPU's value once at CPU "
			    "bring-up into per-CPU data and use that");
	free(a);
	a = ask(&g, "ID_AA64MMFR1_EL1", "ID_AA64MMFR1_EL1_XNX_SHIFT",
		"mm/memory.c", &san);
	assert_non_null(strstr(a, "fn() tests XNX, a field the tree's "
				  "arm64_ftr_bits of ID_AA64MMFR1_EL1 do not "
				  "describe"));
	assert_null(strstr(a, "the sanitised copy is"));
	free(a);
	graph_free(&g);

	/* In hyp code: no copy; the copy, nVHE alone; host data else. */
	arm64_graph(&g, rows, 4);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL,
		"arch/arm64/kvm/hyp/nvhe/switch.c", &san);
	assert_int_equal(san, 1);
	assert_null(strstr(a, "read the sanitised"));
	assert_non_null(strstr(a, "keeps no copy of ID_AA64MMFR1_EL1"));
	free(a);
	graph_free(&g);
	arm64_graph(&g, rows, 5);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL,
		"arch/arm64/kvm/hyp/nvhe/switch.c", &san);
	assert_non_null(strstr(a, "kvm_nvhe_sym(id_aa64mmfr1_el1_sys_val)"));
	free(a);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL,
		"arch/arm64/kvm/hyp/vhe/switch.c", &san);
	assert_non_null(strstr(a, "serves no VHE host"));
	free(a);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL,
		"arch/arm64/kvm/hyp/include/hyp/switch.h", &san);
	assert_non_null(strstr(a, "serves no VHE host"));
	assert_non_null(strstr(a, "per-CPU host data (host_data_ptr())"));
	free(a);
	a = ask(&g, "ID_AA64MMFR1_EL1", "ID_AA64MMFR1_EL1_PAN_SHIFT",
		"arch/arm64/kvm/hyp/nvhe/switch.c", &san);
	assert_non_null(strstr(a, "FTR_NONSTRICT"));
	assert_null(strstr(a, "kvm_nvhe_sym"));
	free(a);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL, "mm/memory.c", &san);
	assert_non_null(strstr(a, "read_sanitised_ftr_reg(SYS_"));
	free(a);
	graph_free(&g);

	arm64_graph(&g, rows, 1);
	arch_set(&bare);
	a = ask(&g, "ID_AA64MMFR1_EL1", NULL, NULL, &san);
	assert_int_equal(san, -1);
	assert_null(strstr(a, "read_sanitised_ftr_reg"));
	assert_non_null(strstr(a, "cache the value of ID_AA64MMFR1_EL1"));
	free(a);
	assert_null(strstr(advice_any_read(), "read_sanitised_ftr_reg"));
	assert_false(advice_fix_read(NULL, &e, &why));
	assert_string_equal(why, "no rewrite of this read for bare");
	free(why);
	arch_set(&arch_arm64);
	graph_free(&g);
}

/* A CPU_OFFER's offer functions: space-separated fnmatch(3) patterns. */
static void test_fn_matches(void **state)
{
	const char *two = "*_set_cpu_caps __do_cpuid_func";

	assert_true(arch_fn_matches(two, "vmx_set_cpu_caps"));
	assert_true(arch_fn_matches(two, "__do_cpuid_func"));
	assert_false(arch_fn_matches(two, "__do_cpuid_func2"));
	assert_false(arch_fn_matches(two, "kvm_set_cpu_caps_x"));
	assert_true(arch_fn_matches("vmx_get_perf_capabilities",
				    "vmx_get_perf_capabilities"));
	/* Doubled and trailing spaces match nothing of their own. */
	assert_false(arch_fn_matches("a  b ", ""));
	assert_true(arch_fn_matches("a  b ", "b"));
	assert_false(arch_fn_matches("", "a"));
}

/* The bit a mask written next to a CPUID wrapper tests. */
static void test_mask_bit(void **state)
{
	assert_int_equal(arch_mask_bit("(1u<<20)"), 20);
	assert_int_equal(arch_mask_bit("(1 << 8)"), 8);
	assert_int_equal(arch_mask_bit("(1UL<<0x1f)"), 31);
	assert_int_equal(arch_mask_bit("BIT(5)"), 5);
	assert_int_equal(arch_mask_bit("BIT_ULL(40)"), 40);
	assert_int_equal(arch_mask_bit("0x100000"), 20);
	assert_int_equal(arch_mask_bit("((1))"), 0);
	/* Not one bit: a field, two bits, a shifted two, a name. */
	assert_int_equal(arch_mask_bit("0xff"), -1);
	assert_int_equal(arch_mask_bit("(3<<4)"), -1);
	assert_int_equal(arch_mask_bit("(2<<4)"), -1);
	assert_int_equal(arch_mask_bit("X86_BIT"), -1);
	assert_int_equal(arch_mask_bit("0"), -1);
	assert_int_equal(arch_mask_bit(NULL), -1);
}

/*
 * x86's word of a CPUID test: the enum constant of its leaf, sub-leaf 0
 * and register, spelled as the tree spells them.
 */
static void test_x86_feature_word(void **state)
{
	const struct arch_enum words[] = {
		{ "CPUID_1_EDX", 0 }, { "CPUID_8000_0001_ECX", 6 },
		{ "CPUID_7_0_EBX", 9 }, { "CPUID_7_ECX", 16 },
	};
	unsigned int word = 99, bit = 99;
	bool (*fb)(const char *, const char *, const char *,
		   const struct arch_enum *, size_t, unsigned int *,
		   unsigned int *) = arch_x86.feature_bit;

	assert_true(fb("cpuid_ebx", "0x7", "(1u<<20)", words, 4, &word,
		       &bit));
	assert_int_equal(word, 9);
	assert_int_equal(bit, 20);
	assert_true(fb("cpuid_ecx", "0x80000001", "BIT(5)", words, 4, &word,
		       &bit));
	assert_int_equal(word, 6);
	assert_true(fb("cpuid_ecx", "7", "BIT(5)", words, 4, &word, &bit));
	assert_int_equal(word, 16);
	assert_true(fb("cpuid_edx", "1", "0x1", words, 4, &word, &bit));
	assert_int_equal(word, 0);
	assert_int_equal(bit, 0);
	/* No such word, no register, not a constant leaf, not one bit. */
	assert_false(fb("cpuid_eax", "0x7", "BIT(1)", words, 4, &word, &bit));
	assert_false(fb("cpuid", "0x7", "BIT(1)", words, 4, &word, &bit));
	assert_false(fb("cpuid_ebx", "leaf", "BIT(1)", words, 4, &word,
			&bit));
	assert_false(fb("cpuid_ebx", "0x7", "0xff", words, 4, &word, &bit));
	assert_null(arch_arm64.feature_bit);
}

/* x86's MSRs whose value the hardware changes: by pattern. */
static void test_live_regs(void **state)
{
	arch_set(&arch_x86);
	assert_string_equal(arch_live_reg("MSR_IA32_APERF"), "a counter");
	assert_non_null(arch_live_reg("MSR_IA32_MC0_STATUS"));
	assert_non_null(arch_live_reg("MSR_IA32_MC3_ADDR"));
	assert_non_null(arch_live_reg("MSR_ARCH_PERFMON_PERFCTR0"));
	assert_null(arch_live_reg("MSR_IA32_SPEC_CTRL"));
	assert_null(arch_live_reg("MSR_IA32_MCU_OPT_CTRL"));
	/* What the hardware reports or samples into; IBS's control is not. */
	assert_non_null(arch_live_reg("MSR_IA32_XFD_ERR"));
	assert_null(arch_live_reg("MSR_IA32_XFD"));
	assert_non_null(arch_live_reg("MSR_CORE_C6_RESIDENCY"));
	assert_non_null(arch_live_reg("MSR_PKG_C2_RESIDENCY"));
	assert_non_null(arch_live_reg("MSR_CORE_C1_RES"));
	assert_non_null(arch_live_reg("MSR_MODULE_C6_RES_MS"));
	assert_non_null(arch_live_reg("MSR_AMD64_IBSOPDATA2"));
	assert_non_null(arch_live_reg("MSR_AMD64_IBSFETCHLINAD"));
	assert_null(arch_live_reg("MSR_AMD64_IBSCTL"));
	assert_null(arch_live_reg(NULL));
	arch_set(&arch_arm64);
	assert_null(arch_live_reg("MSR_IA32_APERF"));
}

static void test_opaque_sinks(void **state)
{
	assert_true(sink_is_opaque("this_cpu_has_cap"));
	assert_true(sink_is_opaque("__read_sysreg_by_encoding"));
	/* The walk goes on into arch_get_random_*() (__cpu_has_rng). */
	assert_false(sink_is_opaque("arch_get_random_seed_longs"));
	assert_false(sink_is_opaque("cpu_has_hw_af"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arch_of_command),
		cmocka_unit_test(test_patch_areas),
		cmocka_unit_test(test_spellings_map_to_one_register),
		cmocka_unit_test(test_wrong_spelling_is_no_register),
		cmocka_unit_test(test_trap_classes),
		cmocka_unit_test(test_arch_tables),
		cmocka_unit_test(test_value_fields),
		cmocka_unit_test(test_arch_advice),
		cmocka_unit_test(test_opaque_sinks),
		cmocka_unit_test(test_fn_matches),
		cmocka_unit_test(test_mask_bit),
		cmocka_unit_test(test_live_regs),
		cmocka_unit_test(test_x86_feature_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
