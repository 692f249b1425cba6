#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the changed lines of a generated diff (trapcheck's format-patch
file, spatch's output, make coccicheck's) with the diff of an upstream
patch as posted (tests/fixtures/upstream/: the diffs of the patch mails and
their review, each file citing its mail).

Usage: upstream-diff.py [--file PATH] [--code-only] DIFF MAIL (reviewed | first)
  reviewed     the diff after the reviewer's "--->8" ("arm64: archrandom:
               avoid trapping ID register read in __cpu_has_rng()", as
               reviewed: the SYS_FIELD_GET() form)
  first        the quoted ("> ") diff of the mail's first message ("arm64:
               Avoid repeated AA64MMFR1_EL1 register read on pagefault
               path")
  --file PATH  only the per-file diffs of DIFF for PATH (make coccicheck
               prints "diff -u -p a/PATH b/PATH" or "--- PATH")
  --code-only  drop comment lines on both sides
Whitespace is ignored (the mailing list turned tabs into spaces); a
format-patch signature ("-- ") ends the diff. Exit 0 when equal, 1
otherwise (both sides printed as TAP comments).
"""
import re
import sys

COMMENT = re.compile(r'^\s*(/\*|\*|//)')


def changed(lines, code_only):
    out = []
    for l in lines:
        if l == '-- ':
            break		# git format-patch's signature separator
        if l.startswith(('+++', '---')) or not l.startswith(('+', '-')):
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


def mail_lines(text, which):
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
            sys.exit('upstream-diff.py: unknown option ' + opt)
    diff, mail, which = argv
    lines = open(diff).read().split('\n')
    # A format-patch file: the diff starts at "diff --git".
    start = next((i for i, l in enumerate(lines)
                  if l.startswith('diff --git')), 0)
    got = changed(file_hunks(lines[start:], path), code_only)
    want = changed(mail_lines(open(mail).read(), which), code_only)
    if not want:
        print('# no diff found in the mail')
        return 1
    if got != want:
        print('# generated:')
        for l in got:
            print('#   ' + l)
        print('# upstream:')
        for l in want:
            print('#   ' + l)
        return 1
    print('# %d changed lines, as upstream' % len(got))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
