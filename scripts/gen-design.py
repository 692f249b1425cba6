#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The generated parts of docs/design.md, from the tree itself: the table
of layers from checker/LAYERS, and the table of interfaces from each
header's opening comment (the public headers of include/trapcheck/<layer>/,
the one internal header a family of files may share, each architecture's
own), with the modules that implement it (the objects that define what it
declares: nm of the built objects, so run after make).

  gen-design.py write   rewrite docs/design.md's generated blocks
  gen-design.py check   exit 1 (and a diff) when they are not the tree's
"""
import difflib
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGN = os.path.join(TOP, 'docs/design.md')


def layers():
    out = []
    for line in open(os.path.join(TOP, 'checker/LAYERS')):
        if not line.strip() or line.startswith('#'):
            continue
        name, lib, what = line.rstrip('\n').split('\t', 2)[0], \
            line.split()[1], line.rstrip('\n').split('\t')[-1]
        out.append((name, lib == 'clang', what.strip()))
    return out


def modules_of(layer):
    if layer == 'arch':
        top = sorted(os.path.basename(f)
                     for f in glob.glob(os.path.join(TOP, 'checker/arch/*.c')))
        dirs = []
        for d in sorted(glob.glob(os.path.join(TOP, 'checker/arch/*/'))):
            name = os.path.basename(d.rstrip('/'))
            srcs = sorted(os.path.basename(f)
                          for f in glob.glob(os.path.join(d, '*.c')))
            dirs.append('%s/ (%s)' % (name, ', '.join(srcs)))
        return top + dirs
    files = sorted(os.path.basename(f) for f in
                   glob.glob(os.path.join(TOP, 'checker', layer, '*.c')))
    rules = [f for f in files if f.startswith('rule-')]
    files = [f for f in files if not f.startswith('rule-')]
    if rules:
        files.append('rule-*.c (%d)' % len(rules))
    return files


def layer_table():
    rows = ['| layer | folder | libclang | what it holds | modules |',
            '|---|---|---|---|---|']
    for name, clang, what in layers():
        folder = '`checker/arch/`, `checker/arch/<name>/`' \
            if name == 'arch' else '`checker/%s/`' % name
        rows.append('| `%s` | %s | %s | %s | %s |' % (
            name, folder, 'yes' if clang else '', what,
            ', '.join('`%s`' % m for m in modules_of(name))))
    return '\n'.join(rows) + '\n'


def opening_comment(path):
    """The header's opening comment, its first paragraph, as one line."""
    text = open(path).read()
    m = re.search(r'/\*(?! SPDX)(.*?)\*/', text, re.S)
    if not m:
        return ''
    lines = [re.sub(r'^\s*\* ?', '', l) for l in m.group(1).split('\n')]
    para, started = [], False
    for l in lines:
        if not l.strip():
            if started:
                break
            continue
        started = True
        para.append(l.strip())
    s = ' '.join(para)
    # "name.h - what": the file's own name is the table's first column.
    s = re.sub(r'^[\w./-]+\.[ch] - ', '', s)
    return s.replace('|', '\\|')


def declared(path):
    """Function names a header declares (prototypes at column 0)."""
    names = set()
    text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
    text = re.sub(r'\\\n', ' ', text)
    for m in re.finditer(r'^(?!#|static|typedef|struct \w+ \{|enum|\s)'
                         r'[\w \*]*?\b(\w+)\s*\([^;{]*\)\s*(?:__attribute__'
                         r'\(\([^;]*\)\))?\s*;', text, re.M | re.S):
        names.add(m.group(1))
    return names


def defined_by():
    """Symbol -> the source file (relative) whose object defines it."""
    defs = {}
    for o in sorted(glob.glob(os.path.join(TOP, 'checker/*/*.o')) +
                    glob.glob(os.path.join(TOP, 'checker/arch/*/*.o')) +
                    glob.glob(os.path.join(TOP, 'checker/arch/*.o'))):
        out = subprocess.run(['nm', '--defined-only', o], capture_output=True,
                             text=True).stdout
        for line in out.split('\n'):
            p = line.split()
            if len(p) == 3 and p[1] in 'TDRB':
                defs[p[2]] = os.path.relpath(o, TOP)[:-2] + '.c'
    return defs


def headers():
    """(header shown as, path, layer) of every interface, in layer order."""
    order = [l[0] for l in layers()]
    out = []
    for layer in order:
        if layer == 'arch':
            for d in sorted(glob.glob(os.path.join(TOP, 'checker/arch/*/'))):
                name = os.path.basename(d.rstrip('/'))
                h = os.path.join(d, name + '.h')
                if not os.path.exists(h):	# no shared header: its .c
                    h = os.path.join(d, name + '.c')
                out.append(('arch/%s/%s' % (name, os.path.basename(h)),
                            h, layer))
            continue
        for h in sorted(glob.glob(os.path.join(TOP, 'include/trapcheck',
                                               layer, '*.h'))):
            out.append(('%s/%s' % (layer, os.path.basename(h)), h, layer))
        for h in sorted(glob.glob(os.path.join(TOP, 'checker', layer,
                                               '*.h'))):
            out.append(('%s/%s (internal)' % (layer, os.path.basename(h)),
                        h, layer))
    return out


def interface_table():
    defs = defined_by()
    rows = ['| interface | modules | what it offers |', '|---|---|---|']
    for shown, path, layer in headers():
        mods = sorted(set(defs[n] for n in declared(path) if n in defs))
        if layer == 'arch':
            d = os.path.dirname(path)
            mods = sorted(os.path.relpath(f, TOP)
                          for f in glob.glob(os.path.join(d, '*.c')))
        mods = [m.replace('checker/', '', 1) for m in mods]
        rows.append('| `%s` | %s | %s |' % (
            shown, ', '.join('`%s`' % m for m in mods) or '(types only)',
            opening_comment(path)))
    return '\n'.join(rows) + '\n'


def generate(text):
    for mark, body in (('LAYERS', layer_table()),
                       ('INTERFACES', interface_table())):
        b, e = '<!-- BEGIN %s -->\n' % mark, '<!-- END %s -->' % mark
        if b not in text or e not in text:
            sys.exit('docs/design.md has no %s block' % mark)
        i, j = text.index(b) + len(b), text.index(e)
        text = text[:i] + body + text[j:]
    return text


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ('write', 'check'):
        sys.exit(__doc__)
    old = open(DESIGN).read()
    new = generate(old)
    if sys.argv[1] == 'write':
        if new != old:
            open(DESIGN + '.tmp', 'w').write(new)
            os.rename(DESIGN + '.tmp', DESIGN)
        return 0
    diff = list(difflib.unified_diff(old.splitlines(True),
                                     new.splitlines(True),
                                     'docs/design.md', 'generated'))
    sys.stdout.writelines(diff[:80])
    return 1 if diff else 0


if __name__ == '__main__':
    sys.exit(main())
