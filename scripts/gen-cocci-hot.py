#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the hot function list of semantic-patches/hot_idreg_read.cocci
from the shipped root sets (roots/*.roots), between its "BEGIN HOT" and
"END HOT" lines, so that the rule runs under make coccicheck with no
trapcheck installed and still knows only what the root sets say.

Usage: gen-cocci-hot.py ROOTS_DIR COCCI [OUT]
  Writes OUT (default: COCCI in place). make cocci-hot runs it; make
  check compares (tests/e2e/cocci.t).
"""
import glob
import os
import sys


def roots(d):
    sets = []
    for path in sorted(glob.glob(os.path.join(d, '*.roots'))):
        names = []
        for line in open(path, encoding='utf-8'):
            line = line.split('#', 1)[0].strip()
            if line and ':' not in line:
                names.append(line)
        sets.append((os.path.basename(path), names))
    return sets


def main():
    rdir, cocci = sys.argv[1], sys.argv[2]
    out = sys.argv[3] if len(sys.argv) > 3 else cocci
    text = open(cocci, encoding='utf-8').read().split('\n')
    begin = [i for i, l in enumerate(text) if l.strip().startswith('# BEGIN HOT')]
    end = [i for i, l in enumerate(text) if l.strip().startswith('# END HOT')]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        sys.exit('%s: needs one "# BEGIN HOT" and one "# END HOT" line'
                 % cocci)
    body = []
    for name, funcs in roots(rdir):
        body.append('\t# roots/%s' % name)
        line = '\t'
        for f in funcs:
            item = '"%s",' % f
            if len(line.expandtabs()) + len(item) + 1 > 79:
                body.append(line.rstrip())
                line = '\t'
            line += item + ' '
        body.append(line.rstrip())
    text = text[:begin[0] + 1] + body + text[end[0]:]
    tmp = out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write('\n'.join(text))
    os.replace(tmp, out)


if __name__ == '__main__':
    main()
