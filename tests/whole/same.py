#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""same.py A B: two JSON answers of trapcheck give the same findings and
notes, byte for byte once sorted (the replay check of tests/whole/whole.t;
tests/kernel/lintreplay.t compares the same keys). Prints the first
difference and exits 1 when they differ."""
import json
import sys


def main():
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    for k in ('findings', 'low_confidence'):
        x, y = (json.dumps(d.get(k), sort_keys=True) for d in (a, b))
        if x != y:
            print('# %s differ:\n# %s\n# %s' % (k, x[:2000], y[:2000]))
            return 1
    print('# %d findings, %d notes, the same in both' %
          (len(a.get('findings') or []), len(a.get('low_confidence') or [])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
