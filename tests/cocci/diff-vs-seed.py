#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the changed lines of a spatch diff with a seed's diff.

Usage: diff-vs-seed.py [--file PATH] [--code-only] DIFF SEED (reviewed | first)
  reviewed     the diff after the reviewer's "--->8" (seed 000's review)
  first        the quoted ("> ") diff of the seed's first message (seed 004)
  --file PATH  only the hunks of DIFF for PATH (make coccicheck prints one
               diff per file: "diff -u -p a/PATH b/PATH" or "--- PATH")
  --code-only  drop comment lines on both sides
Whitespace is ignored (the mailing list turned tabs into spaces); blank
added lines count. Exit 0 when equal, 1 otherwise (both sides printed as
TAP comments).
"""
import re
import sys

COMMENT = re.compile(r'^\s*(/\*|\*|//)')


def changed(lines, code_only):
    out = []
    for l in lines:
        if l.startswith(('+++', '---')):
            continue
        if not l.startswith(('+', '-')):
            continue
        if code_only and COMMENT.match(l[1:]):
            continue
        out.append(l[0] + re.sub(r'\s+', '', l[1:]))
    return out


def file_hunks(lines, path):
    """The lines of the per-file diffs whose file name ends with PATH."""
    out, keep, prev = [], path is None, ''
    for l in lines:
        name = None
        if l.startswith('diff '):
            name = l.split()[-1]
        elif l.startswith('--- ') and not prev.startswith('diff '):
            name = l[4:].split()[0]
        if name is not None:
            keep = path is None or name.endswith(path)
        if keep:
            out.append(l)
        prev = l
    return out


def seed_lines(text, which):
    lines = text.split('\n')
    if which == 'reviewed':
        start = lines.index('--->8') + 1
        end = next((i for i in range(start, len(lines))
                    if lines[i].startswith('Re: ')), len(lines))
        return lines[start:end]
    body = []
    for l in lines:
        if l.startswith('> diff --git'):
            body = [l[2:]]
        elif body and (l.startswith('> ') or l == '>'):
            body.append(l[2:])
        elif body:
            break
    return body


def main(argv):
    path, code_only = None, False
    while argv and argv[0].startswith('--'):
        opt = argv.pop(0)
        if opt == '--file':
            path = argv.pop(0)
        elif opt == '--code-only':
            code_only = True
        else:
            sys.exit('diff-vs-seed.py: unknown option ' + opt)
    diff, seed, which = argv
    got = changed(file_hunks(open(diff).read().split('\n'), path), code_only)
    want = changed(seed_lines(open(seed).read(), which), code_only)
    if not want:
        print('# no diff found in the seed')
        return 1
    if got != want:
        print('# generated:')
        for l in got:
            print('#   ' + l)
        print('# seed:')
        for l in want:
            print('#   ' + l)
        return 1
    print('# %d changed lines, as in the seed' % len(got))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
