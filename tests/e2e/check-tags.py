#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare trapcheck's JSON findings with the expectation tags that sit in
the analysed sources (clang FileCheck style, next to the code they check):

  // CHECK: <rule> <root-set> [<phase>]: <f1> -> ... -> <function with sink>
  // CHECK-NOT: <rule>
  // CHECK-FILE-NONE
  // CHECK-COND: <rule> <root-set>: <kind> <text>
  // CHECK-COND-NOT: <rule> <root-set>: <kind>
  // CHECK-NOTE: <rule> <root-set>: <rare | argument | inferred | outer |
  //             phase | machine | kvm | condition | exit>
  // CHECK-RATE: <rule> <root-set>: per <operation> [mode <mode>]

CHECK-COND says the first chain of that root set's finding of the site
has a condition of that kind (docs/diagnostics.md, "When it runs") and
text; CHECK-COND-NOT that it has none of that kind; CHECK-NOTE that the
site is a note of low confidence (not a warning), for that reason;
CHECK-RATE what its rate is per, and its mode.

A CHECK or CHECK-NOT line (several may stack, with plain comments among
them) applies to the next line that is not a comment. Every finding must
be expected and every expectation found: same file, line, rule, root set
and chain (the shortest one), and the phase (boot or steady) where the
tag gives one. Prints TAP-friendly lines; exits 1 on a mismatch.

Usage: check-tags.py TREE FINDINGS.json
"""
import json
import os
import re
import sys

TAG = re.compile(r'//\s*(CHECK(?:-NOT|-FILE-NONE|-COND-NOT|-COND|-NOTE|-RATE)?)\b:?\s*(.*)$')


phases = {}
# (file, line, rule, root) -> [(tag, rest)] of CHECK-COND, -NOTE, -RATE
extra = {}


def expectations(tree):
    want, never, none_files = set(), set(), set()
    for dirpath, _, files in os.walk(tree):
        for name in sorted(files):
            if not name.endswith(('.c', '.h', '.S')):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, tree)
            pending = []
            with open(path, encoding='utf-8') as f:
                for lineno, line in enumerate(f, 1):
                    m = TAG.search(line)
                    stripped = line.strip()
                    if m:
                        kind, rest = m.groups()
                        if kind == 'CHECK-FILE-NONE':
                            none_files.add(rel)
                        else:
                            pending.append((kind, rest.strip()))
                        continue
                    if stripped.startswith(('//', '/*', '*')) or \
                            not stripped:
                        continue
                    for kind, rest in pending:
                        if kind == 'CHECK':
                            head, chain = rest.split(':', 1)
                            words = head.split()
                            rule, root = words[0], words[1]
                            if len(words) > 2:
                                phases[(rel, lineno, rule, root)] = \
                                    words[2].strip('[]')
                            want.add((rel, lineno, rule, root,
                                      tuple(c.strip() for c in
                                            chain.split('->'))))
                        elif kind == 'CHECK-NOT':
                            never.add((rel, lineno, rest.split()[0]))
                        else:
                            head, what = rest.split(':', 1)
                            rule, root = head.split()
                            extra.setdefault((rel, lineno, rule, root),
                                             []).append((kind,
                                                         what.strip()))
                    pending = []
    return want, never, none_files


def reaches(data, key):
    """The finding (or a root set's reach of it) at @key, and its list."""
    rel, line, rule, root = key
    for where in ('findings', 'low_confidence'):
        for fd in data.get(where, []):
            if (fd['file'], fd['line'], fd['rule']) != (rel, line, rule):
                continue
            for r in [fd] + fd.get('also_reached', []):
                if (r['root'] or '-') == root:
                    return r, fd, where
    return None, None, None


def check_extra(data):
    bad = 0
    for key, tags in sorted(extra.items()):
        r, fd, where = reaches(data, key)
        at = '%s:%d: %s %s' % key
        if not r:
            print('# missing for CHECK-COND/-NOTE/-RATE: ' + at)
            bad += 1
            continue
        conds = r.get('conditions') or []
        for kind, what in tags:
            words = what.split()
            if kind == 'CHECK-COND':
                ok = any(c['kind'] == words[0] and
                         c['text'] == ' '.join(words[1:]) for c in conds)
            elif kind == 'CHECK-COND-NOT':
                ok = not any(c['kind'] == words[0] for c in conds)
            elif kind == 'CHECK-NOTE':
                reason = {'rare': fd.get('rate', {}).get('rare'),
                          'argument': fd.get('only_when'),
                          'inferred': fd.get('inferred_calls', 0) > 1,
                          'outer': fd.get('not_offered'),
                          'phase': fd.get('not_then'),
                          'machine': fd.get('no_device'),
                          'kvm': fd.get('not_in_kvm'),
                          'condition': fd.get('machine_doubt'),
                          'exit': fd.get('may_not_exit')}
                ok = where == 'low_confidence' and bool(reason.get(words[0]))
            else:
                rate = r.get('rate') or {}
                want_per = what.split(' mode ')[0][len('per '):]
                want_mode = what.split(' mode ')[1] if ' mode ' in what \
                    else None
                ok = rate.get('per') == want_per and \
                    fd.get('mode') == want_mode
            if not ok:
                print('# %s not met: %s: %s (conditions %s, rate %s, '
                      'mode %s, in %s)' % (kind, at, what,
                                           [(c['kind'], c['text'])
                                            for c in conds],
                                           r.get('rate'), fd.get('mode'),
                                           where))
                bad += 1
    return bad


def main():
    tree, findings = sys.argv[1], sys.argv[2]
    with open(findings, encoding='utf-8') as f:
        data = json.load(f)
    got, got_phase = set(), {}
    for fd in data['findings']:
        # One finding per site: the other root sets that reach it ride
        # along in also_reached, each with its own chain and phase.
        for r in [fd] + fd.get('also_reached', []):
            root = r['root'] or '-'
            got.add((fd['file'], fd['line'], fd['rule'], root,
                     tuple(s['function'] for s in r['chain'])))
            got_phase[(fd['file'], fd['line'], fd['rule'], root)] = \
                r['phase']
    want, never, none_files = expectations(tree)
    bad = 0
    for w in sorted(want - got):
        print('# missing: %s:%d: %s %s: %s' % (w[0], w[1], w[2], w[3],
                                              ' -> '.join(w[4])))
        bad += 1
    for g in sorted(got - want):
        print('# unexpected: %s:%d: %s %s: %s' % (g[0], g[1], g[2], g[3],
                                                 ' -> '.join(g[4])))
        bad += 1
    for key, phase in sorted(phases.items()):
        if key in got_phase and got_phase[key] != phase:
            print('# phase: %s:%d: %s %s: want %s, got %s' %
                  (key + (phase, got_phase[key])))
            bad += 1
    for g in got:
        if (g[0], g[1], g[2]) in never:
            print('# CHECK-NOT violated: %s:%d: %s' % g[:3])
            bad += 1
        if g[0] in none_files:
            print('# CHECK-FILE-NONE violated: %s:%d: %s' % g[:3])
            bad += 1
    bad += check_extra(data)
    print('# %d expected (%d with a phase), %d reported, %d CHECK-NOT, %d '
          'files without findings, %d sites with CHECK-COND, -NOTE or '
          '-RATE' % (len(want), len(phases), len(got), len(never),
                     len(none_files), len(extra)))
    return 1 if bad or not want else 0


if __name__ == '__main__':
    sys.exit(main())
