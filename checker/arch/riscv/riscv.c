// SPDX-License-Identifier: GPL-2.0
/*
 * arch/riscv/riscv.c - a skeleton of a third architecture, to show what
 * adding one takes: this folder and one line of checker/arch/arches.def
 * (docs/design.md, "An architecture"). One sink (riscv/sinks.def):
 * sbi_get_mvendorid(), an SBI call, which a guest makes with ecall, so
 * that it always exits to the hypervisor (the RISC-V SBI specification;
 * KVM answers it in arch/riscv/kvm/vcpu_sbi_base.c), where
 * riscv_cached_mvendorid() gives the value cached at CPU bring-up. No
 * tables from the tree, no rules of its own (the generic advice: cache
 * the value), no KVM host paths; tested on a fixture only
 * (tests/fixtures/riscv, tests/e2e/arch.t).
 */
#include "trapcheck/model/arch.h"
#include "trapcheck/base/util.h"

static const struct sink_def sinks[] = {
#define SINK ARCH_SINK
#include "sinks.def"
#undef SINK
};

/* What makes an identification read exit. */
enum { ARCH_TRAP_NONE = TRAP_NONE, ARCH_TRAP_ECALL };

static const struct reg_def regs[] = {
#define REG ARCH_REG
#include "registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[ARCH_TRAP_NONE] = "none",
	[ARCH_TRAP_ECALL] = "SBI ecall",
};

static const char *const triples[] = { "riscv64-", "riscv32-" };

const struct arch arch_riscv = {
	.name = "riscv",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
};
