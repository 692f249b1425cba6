// SPDX-License-Identifier: GPL-2.0
/* Fixture of semantic-patches/crng_arch_random_ungated.cocci: crng_ready()
 * defined as a function makes the file CRNG code. */

static bool crng_ready(void)
{
	return static_branch_likely(&crng_is_ready) || crng_init >= CRNG_READY;
}

static void crng_mix(u32 *state)
{
	unsigned long v;

	if (arch_get_random_long(&v))
		state[14] ^= v;
}
