// SPDX-License-Identifier: GPL-2.0
/*
 * arch/x86-rules.c - x86's part of the trapping-idreg-read rule: the
 * answers the kernel keeps of CPUID (boot_cpu_data and cpu_data(cpu),
 * their x86_capability[] feature words, filled at boot and CPU
 * bring-up by arch/x86/kernel/cpu/common.c) as advice. No rewrite yet:
 * which X86_FEATURE_* a leaf, register and bit are needs the tree's
 * cpufeatures.h.
 */
#include "trapcheck/arch.h"
#include "trapcheck/rules.h"
#include "trapcheck/util.h"

static char *read_advice(const struct cap_table *t, const char *reg,
			 const char *field, int *sanitised)
{
	(void)t;
	(void)field;
	*sanitised = -1;
	return xasprintf("the kernel keeps %s's answers in boot_cpu_data "
			 "and cpu_data(cpu): test the feature with "
			 "boot_cpu_has() or cpu_feature_enabled(), or cache "
			 "the leaf at boot", reg);
}

const struct arch_rules x86_rules = {
	.read_advice = read_advice,
	.any_read_advice = "cache the value at boot",
	/*
	 * SERIALIZE (X86_FEATURE_SERIALIZE) does not exit; sync_core()
	 * uses it where the CPU has it (arch/x86/include/asm/sync_core.h).
	 */
	.serialize_advice = "no cached answer replaces it: serialize with "
			    "SERIALIZE where the CPU has it "
			    "(X86_FEATURE_SERIALIZE, as sync_core() does), or "
			    "use the operation's own command where there is "
			    "one",
};
