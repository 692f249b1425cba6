// SPDX-License-Identifier: GPL-2.0
/* Fixture of semantic-patches/crng_arch_random_ungated.cocci: CRNG code, it
 * defines crng_ready() (as drivers/char/random.c of Linux 5.17 does). */

#define crng_ready() (likely(crng_init > 1))

/* Before the RDRAND patch: RDRAND on every extraction. */
static void _extract_crng(struct crng_state *crng,
			  __u8 out[CHACHA_BLOCK_SIZE])
{
	unsigned long v, flags;

	if (crng_ready() &&
	    (time_after(crng_global_init_time, crng->init_time) ||
	     time_after(jiffies, crng->init_time + CRNG_RESEED_INTERVAL)))
		crng_reseed(crng, crng == &primary_crng ?
				    &input_pool : NULL);
	spin_lock_irqsave(&crng->lock, flags);
	if (arch_get_random_long(&v))
		crng->state[14] ^= v;
	chacha20_block(&crng->state[0], out);
	if (crng->state[12] == 0)
		crng->state[13]++;
	spin_unlock_irqrestore(&crng->lock, flags);
}

/* The RDSEED variants, with an else branch. */
static void mix_seed(struct crng_state *crng)
{
	unsigned int i;
	unsigned long seed;

	if (arch_get_random_seed_long(&seed))
		crng->state[4] ^= seed;
	else
		crng->state[4] ^= random_get_entropy();
	if (arch_get_random_seed_longs(&seed, 1))
		crng->state[5] ^= seed;
	if (arch_get_random_int(&i))
		crng->state[6] ^= i;
	if (arch_get_random_seed_int(&i))
		crng->state[7] ^= i;
}

/* Already gated: in the condition, or by an enclosing if. */
static void gated(struct crng_state *crng)
{
	unsigned long v;

	if (unlikely(!crng_ready()) && arch_get_random_long(&v))
		crng->state[14] ^= v;
	if (!crng_ready() && arch_get_random_longs(&v, 1))
		crng->state[13] ^= v;
	if (!crng_ready()) {
		if (arch_get_random_seed_long(&v))
			crng->state[12] ^= v;
	}
}

/* Part of a larger condition: reported, left to a human. */
static void compound(struct crng_state *crng, bool want)
{
	unsigned long v;

	if (want && arch_get_random_long(&v))
		crng->state[14] ^= v;
	else if (arch_get_random_longs(&v, 1) == 1)
		crng->state[13] ^= v;
}

/* Not an if condition (Linux 6.12's extract_entropy() loop): not this rule. */
static void fill(unsigned long *block, size_t n)
{
	size_t i, longs;

	for (i = 0; i < n;) {
		longs = arch_get_random_seed_longs(&block[i], n - i);
		if (longs) {
			i += longs;
			continue;
		}
		break;
	}
}
