#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""diag-doc.py TOP: every message the programs and the library print
through diag_error(), diag_warning(), diag_status(), diag_at() and
prog_fail() with a format of their own is in docs/diagnostics.md: the
longest literal piece of the format (10 characters or more, between
conversions) must appear there, backticks and line breaks aside. Prints
the ones missing (file:line: piece) and exits 1 when there are any."""
import re, glob, sys
top = sys.argv[1]
doc = open(top + '/docs/diagnostics.md').read()
# normalise doc: drop backticks
docn = re.sub(r'\s+', ' ', doc.replace('`', ''))
miss = []
for path in sorted(glob.glob(top + '/checker/**/*.c', recursive=True)):
    src = open(path).read()
    for m in re.finditer(r'\b(diag_error|diag_warning|diag_status|diag_at|prog_fail)\s*\(((?:[^;])*?)\);', src, re.S):
        args = m.group(2)
        if m.group(1) == 'diag_at':
            args = args.split(',', 2)[2] if args.count(',') >= 2 else ''
        g = re.search(r'"(?:[^"\\]|\\.)*"(?:\s*"(?:[^"\\]|\\.)*")*', args)
        fmt = ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', g.group(0))) if g else ''
        if not fmt or fmt in ('%s',):
            continue
        frags = [f.strip() for f in re.split(r'%[-0-9.]*(?:z|l|ll|h)?[sdufgxcp%]', fmt)]
        frags = [f for f in frags if len(f) >= 10]
        if not frags:
            continue
        best = max(frags, key=len)
        if re.sub(r'\s+', ' ', best) not in docn:
            miss.append('%s:%d: %s' % (path[len(top)+1:], src[:m.start()].count('\n') + 1, best))
if miss:
    print('\n'.join(miss))
sys.exit(1 if miss else 0)
