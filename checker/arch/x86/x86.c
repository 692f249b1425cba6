// SPDX-License-Identifier: GPL-2.0
/*
 * arch/x86.c - x86: its sinks (x86/sinks.def: the CPUID wrappers,
 * CPUID in inline assembly, the RDMSR wrappers), what they cost in a guest
 * (x86/registers.def), where its KVM host code lives (x86/context.def),
 * its patch subjects, the tables it reads from the tree (x86/tables.def:
 * the MSRs KVM may pass through), how a CPUID test names its feature
 * (X86_FEATURE_*), and its advice and rewrite (x86-rules.c). No guard
 * atoms of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/base/util.h"

#include "x86.h"

static const struct sink_def sinks[] = {
#define SINK ARCH_SINK
#include "sinks.def"
#undef SINK
};

/* What makes an identification read exit. */
enum { ARCH_TRAP_NONE = TRAP_NONE, ARCH_TRAP_CPUID, ARCH_TRAP_RDMSR };

static const struct reg_def regs[] = {
#define REG ARCH_REG
#include "registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[ARCH_TRAP_NONE] = "none",
	[ARCH_TRAP_CPUID] = "unconditional CPUID exit",
	[ARCH_TRAP_RDMSR] = "RDMSR exit unless passed through",
};

static const char *const triples[] = {
	"x86_64-", "i386-", "i486-", "i586-", "i686-",
};

static const struct arch_path areas[] = {
	{ "arch/x86/kvm/", "KVM: x86" },
	{ "arch/x86/", NULL },
};

static const char *const host_paths[] = {
#define NESTED_PATH ARCH_NESTED_PATH
#include "context.def"
#undef NESTED_PATH
};

/* The tables it reads from the tree (x86/tables.def). */
static const struct arch_table tables[] = {
#define TABLE ARCH_TABLE_LINE
#include "tables.def"
#undef TABLE
};

/* MSRs the hardware changes under the kernel: pattern and what. */
static const struct arch_path live_regs[] = {
#define LIVE_MSR ARCH_LIVE_MSR
#include "live-msrs.def"
#undef LIVE_MSR
};

/* The output register of a cpuid_e?x() sink: "cpuid_ebx" -> "EBX". */
static bool sink_reg(const char *name, char reg[4])
{
	size_t n = strlen(name);

	if (n < 4 || name[n - 4] != '_' || name[n - 3] != 'e' ||
	    name[n - 1] != 'x' || !strchr("abcd", name[n - 2]))
		return false;
	reg[0] = 'E';
	reg[1] = (char)(name[n - 2] - 'a' + 'A');
	reg[2] = 'X';
	reg[3] = '\0';
	return true;
}

/*
 * enum cpuid_leafs spells a leaf in upper-case hexadecimal, 8 digits in
 * two groups: 7 -> "7", 0x80000001 -> "8000_0001".
 */
static void leaf_name(unsigned int leaf, char *buf, size_t len)
{
	if (leaf > 0xffff)
		snprintf(buf, len, "%04X_%04X", leaf >> 16, leaf & 0xffff);
	else
		snprintf(buf, len, "%X", leaf);
}

/*
 * cpuid_ebx(7) & (1u << 20): cpuid_e?x() asks sub-leaf 0 (cpuid() clears
 * ECX), so the word is CPUID_7_0_EBX, or CPUID_1_ECX for a leaf with no
 * sub-leaves.
 */
static bool feature_bit(const char *name, const char *arg, const char *mask,
			const struct arch_enum *words, size_t nr_words,
			unsigned int *word, unsigned int *bit)
{
	char reg[4], leaf[24], with_sub[48], plain[48], *end;
	unsigned long l;
	size_t i;
	int b;

	if (!arg || !mask || !sink_reg(name, reg))
		return false;
	l = strtoul(arg, &end, 0);
	if (end == arg || *end || l > 0xffffffffUL)
		return false;
	b = mask_bit(mask);
	if (b < 0 || b > 31)
		return false;
	leaf_name((unsigned int)l, leaf, sizeof(leaf));
	snprintf(with_sub, sizeof(with_sub), "CPUID_%s_0_%s", leaf, reg);
	snprintf(plain, sizeof(plain), "CPUID_%s_%s", leaf, reg);
	for (i = 0; i < nr_words; i++) {
		if (strcmp(words[i].name, with_sub) &&
		    strcmp(words[i].name, plain))
			continue;
		if (words[i].value < 0)
			return false;
		*word = (unsigned int)words[i].value;
		*bit = (unsigned int)b;
		return true;
	}
	return false;
}

/* What its conditions say of when code runs (conditions.def). */
static const struct cond_def conds[] = {
#define COND ARCH_COND
#define MODE_PATH(prefix, mode)
#include "conditions.def"
#undef MODE_PATH
#undef COND
};

static const struct mode_path mode_paths[] = {
#define COND(kind, pattern, t, f)
#define MODE_PATH ARCH_MODE_PATH
#include "conditions.def"
#undef MODE_PATH
#undef COND
};

/* What its KVM host code needs of the outer hypervisor (outer.def). */
static const struct arch_outer outers[] = {
#define OUTER ARCH_OUTER
#include "outer.def"
#undef OUTER
};

/* The kvm_exit reasons its sinks cause (kvm-exits.def). */
static const struct trace_exit kvm_exits[] = {
#define KVM_EXIT ARCH_KVM_EXIT
#include "kvm-exits.def"
#undef KVM_EXIT
};

/* How its kernel spells the tables it reads (words.def). */
static const struct arch_word words[] = {
#define WORD ARCH_WORD
#include "words.def"
#undef WORD
};

const struct arch arch_x86 = {
	.name = "x86",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
	ARCH_TABLE(areas),
	ARCH_TABLE(host_paths),
	ARCH_TABLE(tables),
	ARCH_TABLE(live_regs),
	.rules = &x86_rules,
	ARCH_TABLE(conds),
	ARCH_TABLE(mode_paths),
	.feature_prefix = "X86_FEATURE_",
	.feature_enum = "cpuid_leafs",
	.feature_bit = feature_bit,
	.reg_macro_prefix = "MSR_",
	ARCH_TABLE(outers),
	ARCH_TABLE(kvm_exits),
	ARCH_TABLE(words),
};
