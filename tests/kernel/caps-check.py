#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check trapcheck --list-caps against the tree's source, read here by a
different route (regular expressions over the text of cpufeature.c and
cpu_errata.c), for a dozen capabilities.

Usage: caps-check.py TREE LIST-CAPS-OUTPUT
"""
import re
import sys

# Present in both 6.1 and 6.12, each with a plain register field entry.
FIELD_CAPS = ['ARM64_HAS_RNG', 'ARM64_HAS_PAN', 'ARM64_HAS_LSE_ATOMICS',
              'ARM64_SVE', 'ARM64_SSBS', 'ARM64_BTI', 'ARM64_HAS_CRC32',
              'ARM64_HAS_CNP', 'ARM64_HAS_ECV', 'ARM64_HAS_TLB_RANGE',
              'ARM64_HAS_SB', 'ARM64_HAS_E0PD']
MIDR_CAPS = ['ARM64_WORKAROUND_1463225', 'ARM64_WORKAROUND_1418040']


def entries(text):
    """capability -> the text of its entry, from '{' to the closing '}'."""
    out = {}
    for m in re.finditer(r'\.capability\s*=\s*(\w+)', text):
        start = text.rfind('{', 0, m.start())
        depth, i = 0, start
        while i < len(text):
            if text[i] == '{':
                depth += 1
            elif text[i] == '}':
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.setdefault(m.group(1), text[start:i + 1])
    return out


def field_of(entry):
    m = re.search(r'ARM64_CPUID_FIELDS\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)',
                  entry)
    if m:
        return m.group(1), m.group(2)
    reg = re.search(r'\.sys_reg\s*=\s*SYS_(\w+)', entry)
    pos = re.search(r'\.field_pos\s*=\s*(\w+)_SHIFT', entry)
    if reg and pos and pos.group(1).startswith(reg.group(1) + '_'):
        return reg.group(1), pos.group(1)[len(reg.group(1)) + 1:]
    return None


def main():
    tree, listing = sys.argv[1], sys.argv[2]
    src = open(tree + '/arch/arm64/kernel/cpufeature.c').read()
    table = {}
    for line in open(listing):
        if line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        table.setdefault(f[0], f)
    bad = 0
    ents = entries(src)
    for cap in FIELD_CAPS:
        want = field_of(ents.get(cap, ''))
        got = table.get(cap)
        if not want or not got or (got[3], got[4]) != want or \
                got[6] != 'HCR_EL2.TID3' or got[8] != 'sys_reg':
            print('# %s: source says %s, trapcheck says %s' %
                  (cap, want, got))
            bad += 1
        else:
            print('# %s: %s.%s' % (cap, want[0], want[1]))
    for cap in MIDR_CAPS:
        got = table.get(cap)
        if not got or got[3] != 'MIDR_EL1' or got[6] != 'none':
            print('# %s: want MIDR_EL1, no trap; got %s' % (cap, got))
            bad += 1
        else:
            print('# %s: MIDR_EL1 (%s)' % (cap, got[2]))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
