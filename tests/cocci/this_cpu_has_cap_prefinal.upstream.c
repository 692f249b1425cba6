// SPDX-License-Identifier: GPL-2.0-only
/* __cpu_has_rng() as Linux 6.12 has it (arch/arm64/include/asm/archrandom.h) */

static __always_inline bool __cpu_has_rng(void)
{
	if (unlikely(!system_capabilities_finalized() && !preemptible()))
		return this_cpu_has_cap(ARM64_HAS_RNG);
	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
}
