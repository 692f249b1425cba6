// SPDX-License-Identifier: GPL-2.0
/*
 * arch/arm64.c - arm64: its sinks (arm64/sinks.def), its system
 * registers and the HCR_EL2 trap controls that make a read exit to the
 * hypervisor (arm64/registers.def), the tables it reads from the tree
 * (arm64/tables.def), the code no rewrite may touch, the
 * subject prefixes of its patches, its guard atoms (arm64/phases.def) and
 * where its KVM host code lives (arm64/context.def).
 */
#include "trapcheck/arch.h"
#include "trapcheck/tables.h"
#include "trapcheck/util.h"

#define MACRO SINK_MACRO
#define CALL SINK_CALL
#define IDREG SINK_IDREG
#define LOCAL_CAP SINK_LOCAL_CAP
#define ENTROPY SINK_ENTROPY
#define SANITISED SINK_SANITISED
#define REG_BARE SINK_ARG_REG_BARE
#define REG_SYS SINK_ARG_REG_SYS
#define REG_LOWER SINK_ARG_REG_LOWER
#define CAP SINK_ARG_CAP
#define NONE SINK_ARG_NONE
static const struct sink_def sinks[] = {
#define SINK(how, name, class, arg, opaque) \
	{ how, name, class, arg, opaque, NULL },
#include "arm64/sinks.def"
#undef SINK
};
#undef NONE

/* The HCR_EL2 controls that make a read of an ID register exit. */
enum { A64_NONE = TRAP_NONE, A64_TID1, A64_TID2, A64_TID5, A64_TID3 };

static const struct reg_def regs[] = {
#define REG(name, trap) { #name, A64_ ## trap },
#include "arm64/registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[A64_NONE] = "none", [A64_TID1] = "HCR_EL2.TID1",
	[A64_TID2] = "HCR_EL2.TID2", [A64_TID5] = "HCR_EL2.TID5",
	[A64_TID3] = "HCR_EL2.TID3",
};

#define FTR_REGS TABLE_FTR_REGS
#define CAPS TABLE_CAPS
static const struct arch_table tables[] = {
#define TABLE(g, k) { g, k },
#include "arm64/tables.def"
#undef TABLE
};
#undef FTR_REGS
#undef CAPS

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
#define BOOT GUARD_BOOT
#define CAPS_UNFINALIZED GUARD_CAPS_UNFINALIZED
#define GUARD(a, k) { a, k },
#include "arm64/phases.def"
#undef GUARD
#undef BOOT
#undef CAPS_UNFINALIZED
};

static const char *const host_paths[] = {
#define NESTED_PATH(prefix) prefix,
#include "arm64/context.def"
#undef NESTED_PATH
};

const struct arch arch_arm64 = {
	.name = "arm64",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
	.idreg_prefix = "ID_", .idreg_trap = A64_TID3,
	ARCH_TABLE(tables),
	ARCH_TABLE(no_rewrite),
	ARCH_TABLE(areas),
	ARCH_TABLE(guards),
	ARCH_TABLE(host_paths),
	.rules = &arm64_rules,
};
