#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give an in-tree compile database the shape of a make O= build.

    tests/outoftree.py SRC BUILD [--no-link]

SRC is a tree built in place (its compile_commands.json, kbuild's "."
paths); BUILD gets the database kbuild writes under make O=BUILD: every
"directory" is BUILD, every "file" is SRC/..., "-I./X" becomes
"-I./X -ISRC/X" (kbuild's objtree and srctree include paths), and
"-include ./X" becomes "-include SRC/X" (scripts/Makefile.lib, the
"building_out_of_srctree" branch of the top Makefile). BUILD/source links
to SRC, as kbuild's outputmakefile does, unless --no-link.
"""
import json
import os
import shlex
import sys


def convert(args, src):
    out = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == '-include' and i + 1 < len(args):
            p = args[i + 1]
            out += ['-include', os.path.join(src, os.path.normpath(p))]
            i += 2
            continue
        if a.startswith('-I./') or a == '-I.':
            rel = os.path.normpath(a[2:])
            out += [a, '-I' + os.path.join(src, rel)]
        elif not a.startswith('-') and a.endswith('.c'):
            out.append(os.path.join(src, os.path.normpath(a)))
        else:
            out.append(a)
        i += 1
    return out


def main():
    src = os.path.realpath(sys.argv[1])
    build = os.path.realpath(sys.argv[2])
    link = '--no-link' not in sys.argv[3:]
    os.makedirs(build, exist_ok=True)
    db = json.load(open(os.path.join(src, 'compile_commands.json')))
    new = []
    for e in db:
        args = e['arguments'] if 'arguments' in e else \
            shlex.split(e['command'])
        f = os.path.normpath(os.path.join(src, e['file']))
        new.append({'command': shlex.join(convert(args, src)),
                    'directory': build, 'file': f})
    with open(os.path.join(build, 'compile_commands.json'), 'w') as fp:
        json.dump(new, fp, indent=1)
    if link:
        dst = os.path.join(build, 'source')
        if os.path.lexists(dst):
            os.remove(dst)
        os.symlink(src, dst)


main()
