#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helpers of tests/e2e/cocci.t and tests/kernel/coccicheck.t.

  cocci-check.py header RULE.cocci
      The kernel's scripts/coccinelle conventions: SPDX first line, a ///
      description, // Confidence:, // Copyright:, // Options:, virtual
      report, context and org, report and org through coccilib with messages
      that begin with WARNING:, at most 5 matching rules (six or more
      disable spatch's token prefilter, Coccinelle PR #420).
  cocci-check.py modes RULE.cocci
      The modes the rule declares (virtual patch/context/org/report).
  cocci-check.py context DIFF
      file:line of every line a context-mode diff marks (-), sorted.
  cocci-check.py org ORG
      file:line: message of every org-mode TODO, sorted.
  cocci-check.py report REPORT
      file:line: message of every report line, sorted.
"""
import re
import sys

MODES = ('patch', 'context', 'org', 'report')


def modes(text):
    return [m for m in MODES
            if re.search(r'^virtual\s+%s\s*$' % m, text, re.M)]


def matching_rules(lines):
    """Headers of the rules that match code (not script rules)."""
    rules, in_meta = [], False
    for l in lines:
        l = l.rstrip()
        if in_meta:
            if l == '@@':
                in_meta = False
            continue
        if not l.startswith('@'):
            continue
        if l == '@@ @@':            # an anonymous rule without metavariables
            rules.append(l)
            continue
        in_meta = True
        if not re.match(r'^@\s*(script|initialize|finalize)\s*:', l):
            rules.append(l)
    return rules


def header(path):
    text = open(path).read()
    lines = text.split('\n')
    bad = []
    if not lines[0].startswith('// SPDX-License-Identifier: '):
        bad.append('first line is not an SPDX tag')
    if not any(l.startswith('/// ') for l in lines):
        bad.append('no /// description')
    for tag in ('Confidence', 'Copyright', 'Options'):
        if not re.search(r'^// %s: \S' % tag, text, re.M):
            bad.append('no // %s:' % tag)
    m = modes(text)
    for want in ('context', 'org', 'report'):
        if want not in m:
            bad.append('no virtual ' + want)
    if 'coccilib.report.print_report' not in text:
        bad.append('report mode does not use coccilib.report.print_report')
    if 'coccilib.org.print_todo' not in text:
        bad.append('org mode does not use coccilib.org.print_todo')
    if re.search(r'"(?!WARNING: )[A-Z][A-Za-z ]*: ', text):
        bad.append('a message that does not begin with WARNING:')
    if 'WARNING: ' not in text:
        bad.append('no WARNING: message')
    rules = matching_rules(lines)
    if len(rules) > 5:
        bad.append('%d matching rules (at most 5: token prefilter)' %
                   len(rules))
    for b in bad:
        print('# %s: %s' % (path, b))
    print('# %s: %d matching rules, modes %s' %
          (path.split('/')[-1], len(rules), ' '.join(m)))
    return 1 if bad else 0


def context(path):
    out, name, old = set(), None, 0
    for l in open(path).read().split('\n'):
        if l.startswith('--- '):
            name = l[4:].split()[0]
            if name.startswith('a/'):
                name = name[2:]
            continue
        if l.startswith('+++ ') or l.startswith('diff '):
            continue
        m = re.match(r'^@@ -(\d+)', l)
        if m:
            old = int(m.group(1))
            continue
        if l.startswith('-'):
            out.add('%s:%d' % (name, old))
            old += 1
        elif l.startswith(' '):
            old += 1
    for x in sorted(out, key=lambda s: (s.rsplit(':', 1)[0],
                                        int(s.rsplit(':', 1)[1]))):
        print(x)
    return 0


def org(path):
    out = []
    for l in open(path).read().split('\n'):
        m = re.match(r'^\* TODO \[\[view:([^:]+)::face=[^:]*::linb=(\d+)'
                     r'::colb=\d+::cole=\d+\]\[(.*)\]\]$', l)
        if m:
            out.append((m.group(1), int(m.group(2)), m.group(3)))
    for f, n, msg in sorted(out):
        print('%s:%d: %s' % (f, n, msg))
    return 0


def report(path):
    out = []
    for l in open(path).read().split('\n'):
        m = re.match(r'^([^:]+):(\d+):\d+-\d+: (.*)$', l)
        if m:
            out.append((m.group(1), int(m.group(2)), m.group(3)))
    for f, n, msg in sorted(out):
        print('%s:%d: %s' % (f, n, msg))
    return 0


def main(argv):
    cmd, path = argv
    if cmd == 'header':
        return header(path)
    if cmd == 'modes':
        print(' '.join(modes(open(path).read())))
        return 0
    return {'context': context, 'org': org, 'report': report}[cmd](path)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
