// SPDX-License-Identifier: GPL-2.0
/* Fixture of semantic-patches/hot_idreg_read.cocci (built-in hot list:
 * the shipped root sets) */

/*
 * "arm64: Avoid repeated AA64MMFR1_EL1 register read on pagefault path"
 * reverted (Linux 6.12 with the old cpu_has_hw_af()). Not a root: the
 * built-in list does not name it; trapcheck's chain does (tests/e2e/cocci.t
 * passes it with -D hot_functions=).
 */
static inline bool cpu_has_hw_af(void)
{
	u64 mmfr1;

	if (!IS_ENABLED(CONFIG_ARM64_HW_AFDBM))
		return false;

	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);
	return cpuid_feature_extract_unsigned_field(mmfr1,
						ID_AA64MMFR1_EL1_HAFDBS_SHIFT);
}

/* A hot function with the other two spellings and registers that do not
 * trap (MIDR_EL1) or are not ID registers (TPIDR_EL1). */
static int __kprobes do_page_fault(unsigned long far, unsigned long esr,
				   struct pt_regs *regs)
{
	u64 pfr1 = read_sysreg_s(SYS_ID_AA64PFR1_EL1);
	u64 mmfr0 = read_sysreg(id_aa64mmfr0_el1);
	u64 midr = read_cpuid(MIDR_EL1);
	u64 tp = read_sysreg(tpidr_el1);

	return pfr1 + mmfr0 + midr + tp;
}

/* A register without a sanitised copy: reported, not rewritten. */
void __switch_to(struct task_struct *prev, struct task_struct *next)
{
	if (read_cpuid(ID_AA64AFR0_EL1))
		isb();
}

/* Not hot: the rule does not look here. */
static void __init cpu_probe_af(void)
{
	if (cpuid_feature_extract_unsigned_field(read_cpuid(ID_AA64MMFR1_EL1),
						 ID_AA64MMFR1_EL1_HAFDBS_SHIFT))
		pr_info("hardware AF\n");
}
