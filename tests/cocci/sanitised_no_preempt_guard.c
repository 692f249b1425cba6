// SPDX-License-Identifier: GPL-2.0
/* Fixture of semantic-patches/sanitised_no_preempt_guard.cocci */

/* The __cpu_has_rng() fix with the guard dropped (the review's question). */
static __always_inline bool __cpu_has_rng(void)
{
	if (unlikely(!system_capabilities_finalized())) {
		u64 isar0 = read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);
		u64 rndr = SYS_FIELD_GET(ID_AA64ISAR0_EL1, RNDR, isar0);

		return rndr >= ID_AA64ISAR0_EL1_RNDR_IMP;
	}

	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
}

/* The reviewed fix, guard kept: fine. */
static __always_inline bool __cpu_has_rng_guarded(void)
{
	if (unlikely(!system_capabilities_finalized() && !preemptible())) {
		u64 isar0 = read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);
		u64 rndr = SYS_FIELD_GET(ID_AA64ISAR0_EL1, RNDR, isar0);

		return rndr >= ID_AA64ISAR0_EL1_RNDR_IMP;
	}

	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
}

/* The tests swapped: still guarded. */
static bool guarded_swapped(void)
{
	if (!preemptible() && !system_capabilities_finalized())
		return cpuid_feature_extract_unsigned_field(read_sanitised_ftr_reg(SYS_ID_AA64PFR0_EL1),
							    ID_AA64PFR0_EL1_RAS_SHIFT);
	return cpus_have_final_cap(ARM64_HAS_RAS_EXTN);
}

/* Inside cpuid_feature_extract_*(), with an else branch. */
static bool early_ras(void)
{
	if (!system_capabilities_finalized())
		return cpuid_feature_extract_unsigned_field(read_sanitised_ftr_reg(SYS_ID_AA64PFR0_EL1),
							    ID_AA64PFR0_EL1_RAS_SHIFT);
	else
		return cpus_have_final_cap(ARM64_HAS_RAS_EXTN);
}

/* Nested deeper in the branch, inside SYS_FIELD_GET(). */
static bool early_rndr(bool want)
{
	u64 rndr = 0;

	if (!system_capabilities_finalized()) {
		if (want)
			rndr = SYS_FIELD_GET(ID_AA64ISAR0_EL1, RNDR,
					     read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1));
	}
	return rndr;
}

/* In the else branch: after finalization, fine. */
static bool late(void)
{
	if (!system_capabilities_finalized())
		return false;
	else
		return read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1) != 0;
}

/* Not under the finalization test at all: fine. */
static u64 plain(void)
{
	return read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);
}
