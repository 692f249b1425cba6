#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make a copy of a prepared kernel tree with one upstream change applied or
reverted. The copy is hard-linked (cp -al: seconds, no extra space); the
files that change, and compile_commands.json (its paths name the tree),
are written anew, so the original keeps its own. Idempotent.

Usage: tree-variant.py TREE COPY VARIANT
  revert-004         cpu_has_hw_af() reads read_cpuid(ID_AA64MMFR1_EL1)
                     again (a89c6bcdac22 undone)
  fix-000            the __cpu_has_rng() fix in the reviewed SYS_FIELD_GET() form,
                     !preemptible() kept
  fix-000-nopreempt  the same fix without the !preemptible() guard
  revert-rdrand      the CRNG's fast key erasure mixes an RDRAND (x86) or
                     RNDR (arm64) into every extraction again, as before
                     "random: avoid superfluous call to RDRAND in CRNG
                     extraction" (ported to 6.12's crng_fast_key_erasure())
  plain              no change (a copy the tests may edit: write edited
                     files anew, never in place)
"""
import os
import shutil
import subprocess
import sys

CPUFEATURE = 'arch/arm64/include/asm/cpufeature.h'
ARCHRANDOM = 'arch/arm64/include/asm/archrandom.h'

OLD_RNG = '''	if (unlikely(!system_capabilities_finalized() && !preemptible()))
		return this_cpu_has_cap(ARM64_HAS_RNG);
	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
'''

FIX_RNG = '''	if (unlikely(%s)) {
		/*
		 * Query the in-memory sanitised value to avoid a potential
		 * trap when accessing the ID register under a hypervisor.
		 */
		u64 isar0 = read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1);
		u64 rndr = SYS_FIELD_GET(ID_AA64ISAR0_EL1, RNDR, isar0);

		return rndr >= ID_AA64ISAR0_EL1_RNDR_IMP;
	}

	return alternative_has_cap_unlikely(ARM64_HAS_RNG);
'''

RANDOM = 'drivers/char/random.c'

OLD_ERASURE = '''	u8 first_block[CHACHA_BLOCK_SIZE];

	BUG_ON(random_data_len > 32);

	chacha_init_consts(chacha_state);
	memcpy(&chacha_state[4], key, CHACHA_KEY_SIZE);
	memset(&chacha_state[12], 0, sizeof(u32) * 4);
	chacha20_block(chacha_state, first_block);
'''

RDRAND_ERASURE = '''	u8 first_block[CHACHA_BLOCK_SIZE];
	unsigned long v;

	BUG_ON(random_data_len > 32);

	chacha_init_consts(chacha_state);
	memcpy(&chacha_state[4], key, CHACHA_KEY_SIZE);
	memset(&chacha_state[12], 0, sizeof(u32) * 4);
	if (arch_get_random_longs(&v, 1))
		chacha_state[14] ^= v;
	chacha20_block(chacha_state, first_block);
'''

VARIANTS = {
    'revert-004': (CPUFEATURE,
                   'mmfr1 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);',
                   'mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);'),
    'fix-000': (ARCHRANDOM, OLD_RNG,
                FIX_RNG % '!system_capabilities_finalized() && !preemptible()'),
    'fix-000-nopreempt': (ARCHRANDOM, OLD_RNG,
                          FIX_RNG % '!system_capabilities_finalized()'),
    'revert-rdrand': (RANDOM, OLD_ERASURE, RDRAND_ERASURE),
    'plain': None,
}


def rewrite(path, old, new, count=1):
    text = open(path).read()
    if old not in text:
        sys.exit('tree-variant: %s: the text to change is not there' % path)
    tmp = path + '.new'
    with open(tmp, 'w') as f:
        f.write(text.replace(old, new, count))
    os.replace(tmp, path)	# a new inode: the hard link is broken


def main():
    tree, copy, variant = sys.argv[1:4]
    change = VARIANTS[variant]
    stamp = os.path.join(copy, '.trapcheck-variant-' + variant)
    if not os.path.exists(stamp):
        tmp = copy + '.tmp'
        for d in (copy, tmp):
            if os.path.exists(d):
                shutil.rmtree(d)
        subprocess.run(['cp', '-al', tree, tmp], check=True)
        if change:
            rel, old, new = change
            rewrite(os.path.join(tmp, rel), old, new)
        rewrite(os.path.join(tmp, 'compile_commands.json'), tree, copy, -1)
        open(os.path.join(tmp, '.trapcheck-variant-' + variant), 'w').close()
        os.rename(tmp, copy)
    print(copy)


if __name__ == '__main__':
    main()
