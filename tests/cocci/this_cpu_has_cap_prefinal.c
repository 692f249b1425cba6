// SPDX-License-Identifier: GPL-2.0
/* Fixture of semantic-patches/this_cpu_has_cap_prefinal.cocci */

/* __cpu_has_rng() fixed, as in Linux 6.12: the reviewed SYS_FIELD_GET() form. */
static __always_inline bool __cpu_has_rng(void)
{
	if (unlikely(!system_capabilities_finalized() && !preemptible()))
		return this_cpu_has_cap(ARM64_HAS_RNG);
	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
}

/* The tests swapped, no unlikely(), no return right after: same block. */
static bool early_has_pan(void)
{
	if (!preemptible() && !system_capabilities_finalized())
		return this_cpu_has_cap(ARM64_HAS_PAN);
	WARN_ON_ONCE(!system_capabilities_finalized());
	return cpus_have_final_cap(ARM64_HAS_PAN);
}

/* A capability the rule has no register for: reported, not rewritten. */
static bool early_has_foo(void)
{
	if (unlikely(!system_capabilities_finalized() && !preemptible()))
		return this_cpu_has_cap(ARM64_HAS_FOO);
	return cpus_have_final_cap(ARM64_HAS_FOO);
}

/* A capability in a variable: reported, not rewritten. */
static bool early_has(unsigned int cap)
{
	if (likely(!system_capabilities_finalized() && !preemptible()))
		return this_cpu_has_cap(cap);
	return cpus_have_cap(cap);
}

/* No !preemptible(): not this shape (this_cpu_has_cap() WARNs there). */
static bool unguarded(void)
{
	if (!system_capabilities_finalized())
		return this_cpu_has_cap(ARM64_HAS_RNG);
	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
}

/* After finalization: nothing to say. */
static bool final(void)
{
	if (system_capabilities_finalized() && !preemptible())
		return this_cpu_has_cap(ARM64_HAS_RNG);
	return false;
}

/* Already the reviewed form: nothing to do. */
static __always_inline bool __cpu_has_rng_fixed(void)
{
	if (unlikely(!system_capabilities_finalized() && !preemptible())) {
		u64 isar0 = read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);
		u64 rndr = SYS_FIELD_GET(ID_AA64ISAR0_EL1, RNDR, isar0);

		return rndr >= ID_AA64ISAR0_EL1_RNDR_IMP;
	}

	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
}
