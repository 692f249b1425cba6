// SPDX-License-Identifier: GPL-2.0
/*
 * arch/arm64.c - arm64: its sinks (arm64/sinks.def), its system
 * registers and the HCR_EL2 trap controls that make a read exit to the
 * hypervisor (arm64/registers.def), the tables it reads from the tree
 * (arm64/tables.def), the code no rewrite may touch, the
 * subject prefixes of its patches, its guard atoms (arm64/phases.def) and
 * where its KVM host code lives (arm64/context.def).
 */
#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/base/util.h"

#include "arm64.h"

static const struct sink_def sinks[] = {
#define SINK ARCH_SINK
#include "sinks.def"
#undef SINK
};

/* The HCR_EL2 controls that make a read of an ID register exit. */
enum {
	ARCH_TRAP_NONE = TRAP_NONE, ARCH_TRAP_TID1, ARCH_TRAP_TID2,
	ARCH_TRAP_TID5, ARCH_TRAP_TID3,
};

static const struct reg_def regs[] = {
#define REG ARCH_REG
#include "registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[ARCH_TRAP_NONE] = "none", [ARCH_TRAP_TID1] = "HCR_EL2.TID1",
	[ARCH_TRAP_TID2] = "HCR_EL2.TID2", [ARCH_TRAP_TID5] = "HCR_EL2.TID5",
	[ARCH_TRAP_TID3] = "HCR_EL2.TID3",
};

static const struct arch_table tables[] = {
#define TABLE ARCH_TABLE_LINE
#include "tables.def"
#undef TABLE
};

static const char *const triples[] = { "aarch64-", "arm64-" };

/*
 * nVHE hyp code runs at EL2 linked on its own, where
 * read_sanitised_ftr_reg() and the kernel's data do not exist.
 */
static const struct arch_path no_rewrite[] = {
	{ "arch/arm64/kvm/hyp/", "hyp code (EL2, linked on its own) cannot "
	  "call read_sanitised_ftr_reg()" },
};

static const struct arch_path areas[] = {
	{ "arch/arm64/include/asm/", NULL },
	{ "arch/arm64/kernel/", NULL },
	{ "arch/arm64/mm/", "arm64: mm" },
	{ "arch/arm64/kvm/", "KVM: arm64" },
};

static const struct guard_def guards[] = {
#define GUARD ARCH_GUARD
#include "phases.def"
#undef GUARD
};

static const char *const host_paths[] = {
#define NESTED_PATH ARCH_NESTED_PATH
#include "context.def"
#undef NESTED_PATH
};

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

/* How its kernel spells the tables it reads (words.def). */
static const struct arch_word words[] = {
#define WORD ARCH_WORD
#include "words.def"
#undef WORD
};

const struct arch arch_arm64 = {
	.name = "arm64",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
	.idreg_prefix = "ID_", .idreg_trap = ARCH_TRAP_TID3,
	ARCH_TABLE(tables),
	ARCH_TABLE(no_rewrite),
	ARCH_TABLE(areas),
	ARCH_TABLE(guards),
	ARCH_TABLE(host_paths),
	.rules = &arm64_rules,
	ARCH_TABLE(conds),
	ARCH_TABLE(mode_paths),
	ARCH_TABLE(words),
};
