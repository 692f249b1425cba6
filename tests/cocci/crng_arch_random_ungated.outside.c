// SPDX-License-Identifier: GPL-2.0
/* Fixture of semantic-patches/crng_arch_random_ungated.cocci: not CRNG code
 * (no crng_ready() definition, not drivers/char/random.c): out of scope. */

static u64 kaslr_seed(void)
{
	unsigned long v;

	if (arch_get_random_long(&v))
		return v;
	return 0;
}
