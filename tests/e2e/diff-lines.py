#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare what two unified diffs change, ignoring their headers.

Usage: diff-lines.py A.diff B.diff

Each diff becomes, per file (the name after ---, a/ and b/ or ./ dropped),
its runs of changed lines: where the run starts in the old file, the lines
it removes and the lines it adds. The changed lines of spatch's diff and of
trapcheck --fix's must be the same, file for file, whatever the order of
the files and of - and + within a run, the hunk headers, the context and
the diff headers (spatch prints "diff -u -p", trapcheck "diff --git").
Exit 0 when they are the same; otherwise print the difference as TAP
comments and exit 1.

Usage: diff-lines.py --files DIFF
Print the files DIFF changes.
"""
import difflib
import re
import sys


def name_of(line):
    name = line[4:].split('\t')[0].split(' ')[0]
    for prefix in ('a/', 'b/', './'):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def changes(path):
    """{file: [(old line, removed lines, added lines)]}: one entry per run
    of changed lines, whatever the order of - and + within it."""
    files, cur, old, block = {}, None, 0, None
    for l in open(path).read().split('\n') + ['']:
        changed = cur is not None and l[:1] in ('-', '+') and \
            not l.startswith('--- ') and not l.startswith('+++ ')
        if block and not changed:
            cur.append(block)
            block = None
        if l.startswith('--- '):
            cur = files.setdefault(name_of(l), [])
            continue
        if l.startswith('+++ ') or l.startswith('diff '):
            continue
        m = re.match(r'^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@', l)
        if m:
            old = int(m.group(1))
            continue
        if changed:
            if not block:
                block = (old, [], [])
            if l[0] == '-':
                block[1].append(l[1:])
                old += 1
            else:
                block[2].append(l[1:])
        elif l.startswith(' '):
            old += 1
    return {f: sorted(c) for f, c in files.items() if c}


def lines(blocks):
    out = []
    for old, rm, add in blocks:
        out += ['@%d' % old] + ['-' + x for x in rm] + ['+' + x for x in add]
    return out


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    if argv[0] == '--files':
        for f in sorted(changes(argv[1])):
            print(f)
        return 0
    a, b = changes(argv[0]), changes(argv[1])
    if a == b:
        return 0
    for f in sorted(set(a) | set(b)):
        if a.get(f) == b.get(f):
            continue
        print('# %s:' % f)
        for l in difflib.unified_diff(lines(a.get(f, [])),
                                      lines(b.get(f, [])),
                                      argv[0], argv[1], lineterm='', n=1):
            print('#   ' + l)
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
