#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the changed lines of a generated patch with a seed's diff.

Usage: seed-diff.py PATCH SEED-FILE (reviewed | first)
  reviewed  the diff after the reviewer's "--->8" (seed 000's review)
  first     the first diff of the seed file (seed 004's change)
Whitespace is ignored (the mailing list turned tabs into spaces).
"""
import re
import sys


def changed(lines):
    out = []
    for l in lines:
        if l == '-- ':
            break		# git format-patch's signature separator
        if l.startswith(('+++', '---')):
            continue
        if l.startswith(('+', '-')):
            out.append(l[0] + re.sub(r'\s+', '', l[1:]))
    return out


def seed_lines(text, which):
    lines = text.split('\n')
    if which == 'reviewed':
        start = lines.index('--->8') + 1
        end = next(i for i in range(start, len(lines))
                   if lines[i].startswith('Re: '))
        body = lines[start:end]
    else:
        # The quoted patch ("> " prefixed) of the first message.
        body = []
        for l in lines:
            if l.startswith('> diff --git'):
                body = ['diff']
            elif body and l.startswith('> ') or body and l == '>':
                body.append(l[2:])
            elif body and not l.startswith('>'):
                if len(body) > 1 and l.strip() == '':
                    continue
                if len(body) > 1:
                    break
    return changed(body)


def main():
    patch = open(sys.argv[1]).read().split('\n')
    start = next(i for i, l in enumerate(patch) if l.startswith('diff --git'))
    got = changed(patch[start:])
    want = seed_lines(open(sys.argv[2]).read(), sys.argv[3])
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
    sys.exit(main())
