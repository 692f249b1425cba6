#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The CPU features an arm64 oracle machine had, as trapcheck's --features
list: the capabilities its kernel said it detected and those it did not.

  features.py TREE CONSOLE [CONSOLE...]

TREE is the kernel source the machine booted, each CONSOLE the serial
console of one boot (\\r allowed); with several (the KVM oracle's VHE and
nVHE boots), a capability they disagree on is left out.

Each capability of arm64_features[] and the errata lists
(arch/arm64/kernel/cpufeature.c, cpu_errata.c) with a .desc is logged at
boot when the system has it: "CPU features: detected: <desc>" (or
"... <desc> on CPU<list>" for one with a CPU mask;
update_cpu_capabilities() and setup_system_features()). A capability
whose every entry's description is missing from the console is absent
(!NAME), one with a description there is present (NAME); capabilities
without a description are left out (trapcheck leaves their tests alone).
Prints the list, comma-separated, sorted; exits 1 when a console says
nothing was detected (not a boot log).
"""
import os
import re
import sys

ENTRY = re.compile(r'\{([^{}]*)\}', re.S)
DESC = re.compile(r'\.desc\s*=\s*"([^"]*)"')
CAP = re.compile(r'\.capability\s*=\s*(ARM64_\w+)')


def descriptions(tree):
    """Capability -> the descriptions of its entries."""
    caps = {}
    for name in ('cpufeature.c', 'cpu_errata.c'):
        path = os.path.join(tree, 'arch/arm64/kernel', name)
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for m in ENTRY.finditer(text):
            d, c = DESC.search(m.group(1)), CAP.search(m.group(1))
            if d and c:
                caps.setdefault(c.group(1), set()).add(d.group(1))
    return caps


def detected(console):
    with open(console, encoding='utf-8', errors='replace') as f:
        lines = f.read().replace('\r', '').splitlines()
    out = set()
    for line in lines:
        m = re.search(r'CPU features: detected: (.*)$', line)
        if m:
            out.add(re.sub(r' on CPU[0-9,-]+$', '', m.group(1)))
    return out


def features(tree, consoles):
    """The --features list of the boots of TREE with these CONSOLES."""
    boots = []
    for console in consoles:
        boots.append(detected(console))
        if not boots[-1]:
            sys.exit('%s: no "CPU features: detected:" line' % console)
    items = []
    for cap, descs in sorted(descriptions(tree).items()):
        has = {bool(descs & seen) for seen in boots}
        if len(has) == 1:
            items.append(cap if has.pop() else '!' + cap)
    return ','.join(items)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    print(features(sys.argv[1], sys.argv[2:]))


if __name__ == '__main__':
    main()
