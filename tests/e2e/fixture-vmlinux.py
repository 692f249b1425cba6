#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Build a vmlinux-shaped ELF with DWARF from a fixture tree: each kernel
TU of its compile_commands.json compiled with its own command (the cross
compiler kbuild named, -g among its flags), host programs (scripts/) left
out, linked at fixed addresses with undefined symbols allowed, _text at
the image's start. What
`trapcheck trace --vmlinux` symbolizes guest PCs with in the tests.

Usage: fixture-vmlinux.py TREE OUT
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

# Flags of other gcc releases that this cross gcc rejects.
DROP = ('-Wp,', '--param=allow-store-data-races')


def main():
    tree, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    db = json.load(open(os.path.join(tree, 'compile_commands.json')))
    tmp = tempfile.mkdtemp()
    objs, cc = [], None
    for i, e in enumerate(db):
        if e['file'].startswith('scripts/') or e['file'].endswith('.S'):
            continue
        args = shlex.split(e['command']) if 'command' in e else \
            list(e['arguments'])
        args = [a for a in args if not a.startswith(DROP)]
        if '-o' in args:
            args[args.index('-o') + 1] = os.path.join(tmp, '%d.o' % i)
        if '-g' not in args:
            args.append('-g')
        cc = cc or args[0]
        subprocess.run(args, check=True, cwd=os.path.join(
            tree, e.get('directory', '.')))
        objs.append(os.path.join(tmp, '%d.o' % i))
    subprocess.run([cc, '-nostdlib', '-static',
                    '-Wl,--unresolved-symbols=ignore-all', '-Wl,-e,0',
                    # _text: where the image starts, as the kernel's
                    # linker script has it (trapcheck trace --guest-text).
                    '-Wl,--defsym=_text=__executable_start',
                    '-o', out] + objs, check=True)


if __name__ == '__main__':
    main()
