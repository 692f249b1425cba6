#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The numbers of docs/measured.md, from one oracle run
(tests/oracle/run-qemu.sh) and trapcheck's runs on the same tree.

Usage: measure.py ORACLE-DIR STATIC.json BOOT.json WORKLOAD.json VMLINUX
                  TREE SUMMARY.json
  STATIC.json    trapcheck -p TREE --format=json
  BOOT.json      trapcheck trace ORACLE-DIR/boot.trace --format=json
  WORKLOAD.json  trapcheck trace ORACLE-DIR/workload.trace --format=json
Prints the tables in Markdown; writes the figures to SUMMARY.json.

A trapped line is a source line whose MRS executed (as trapcheck trace
placed it), or a line calling this_cpu_has_cap() (whose reads happen in
out-of-line code, where a host trace cannot tell which call made them):
addr2line places the call. Boot: the run whose init powers off at once;
workload: the other run minus the boot's counts.
"""
import collections
import json
import os
import subprocess
import sys

TRAPPING = ('trapping-idreg-read', 'local-cap-check')


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0 + 1
            i = j + 1
        return r
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) *
           sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else None


def call_lines(calls, vmlinux, tree):
    """{pc: (file, line, function)} of the call sites, innermost frame."""
    pcs = sorted(calls)
    if not pcs:
        return {}
    out = subprocess.run(['aarch64-linux-gnu-addr2line', '-f', '-e',
                          vmlinux] + ['0x' + p for p in pcs],
                         stdout=subprocess.PIPE, text=True,
                         check=True).stdout.split('\n')
    res = {}
    for i, pc in enumerate(pcs):
        fn, loc = out[2 * i], out[2 * i + 1]
        path, line = loc.rsplit(':', 1)
        path = os.path.relpath(os.path.realpath(path) if path.startswith('/')
                               else os.path.join(tree, path), tree)
        res[pc] = (path, int(line.split()[0]) if line[0].isdigit() else 0,
                   fn)
    return res


def main():
    odir, static, bootj, workj, vmlinux, tree, summ = sys.argv[1:8]
    tree = os.path.realpath(tree)
    st = json.load(open(static))
    boot, work = json.load(open(bootj)), json.load(open(workj))
    rows = {}

    def add(key, func, what, n_boot, n_all, status, why):
        r = rows.setdefault(key, {'function': func, 'what': what,
                                  'boot': 0, 'all': 0, 'status': status,
                                  'reason': why})
        r['boot'] += n_boot
        r['all'] += n_all

    bsites = collections.Counter()
    for s in boot['sites']:
        bsites[(s['file'], s['line'], s['what'])] += s['count']
    for s in work['sites']:
        add((s['file'], s['line']), s['function'], s['what'],
            bsites[(s['file'], s['line'], s['what'])], s['count'],
            s['status'], s['reason'])

    findings = {(f['file'], f['line']): f for f in st['findings']}
    low = {(f['file'], f['line']): f for f in st['low_confidence']}
    bcalls = json.load(open(os.path.join(odir, 'boot.calls.json')))
    wcalls = json.load(open(os.path.join(odir, 'workload.calls.json')))
    where = call_lines((set(bcalls) | set(wcalls)) - {'inside'}, vmlinux,
                       tree)
    # A call's traps are the MRS executions inside it (mrs-trace.py):
    # they move from the out-of-line function's lines to the call's.
    for calls, n_boot in ((bcalls, True), (wcalls, False)):
        for pc, c in calls.items():
            if pc == 'inside' or not c['traps']:
                continue
            f, l, fn = where[pc]
            key = (f, l)
            status = 'reported' if key in findings else \
                'note' if key in low else 'missed'
            add(key, fn, 'this_cpu_has_cap() call', c['traps'] if n_boot
                else 0, 0 if n_boot else c['traps'], status,
                None if status != 'missed' else 'no finding at this call')

    # The MRS executions inside those calls leave the lines they ran at.
    for calls, n_boot in ((bcalls, True), (wcalls, False)):
        inside = calls.get('inside', {})
        at = call_lines(set(inside), vmlinux, tree)
        for pc, n in inside.items():
            f, l, _ = at[pc]
            r = rows.get((f, l))
            if not r:
                continue
            r['all' if not n_boot else 'boot'] -= n
            r['moved'] = True
    for k, r in rows.items():
        if r.pop('moved', False) and r['reason']:
            r['reason'] += ' (its traps inside this_cpu_has_cap() calls ' \
                'are counted at the calls)'
    for k in [k for k, r in rows.items() if r['all'] <= 0]:
        del rows[k]
    for r in rows.values():
        r['workload'] = r['all'] - r['boot']

    steady = [k for k, r in rows.items() if r['workload'] > 0]
    rep = lambda ks: [k for k in ks if rows[k]['status'] != 'missed']
    trapping = [f for f in st['findings'] if f['rule'] in TRAPPING]
    executed = [f for f in trapping if (f['file'], f['line']) in rows]
    est, meas = [], []
    for f in trapping:
        e = f.get('estimate') or {}
        if e.get('unit') != 'reads_per_second':
            continue
        est.append(e['value'])
        meas.append(rows.get((f['file'], f['line']), {}).get('workload', 0))
    rho = spearman(est, meas)

    print('| line | function | read | boot | workload | trapcheck |')
    print('|---|---|---|---|---|---|')
    for k in sorted(rows, key=lambda k: (-rows[k]['all'], k)):
        r = rows[k]
        st_ = r['status'] + (': ' + r['reason'] if r['reason'] else '')
        print('| `%s:%d` | `%s()` | %s | %d | %d | %s |' % (
            k[0], k[1], r['function'], r['what'], r['boot'], r['workload'],
            st_))
    sm = {
        'traps_boot': sum(r['boot'] for r in rows.values()),
        'traps_workload': sum(r['workload'] for r in rows.values()),
        'lines': len(rows),
        'lines_reported': len(rep(rows)),
        'lines_steady': len(steady),
        'lines_steady_reported': len(rep(steady)),
        'recall_all': len(rep(rows)) / len(rows) if rows else None,
        'recall_steady': len(rep(steady)) / len(steady) if steady else None,
        'trapping_warnings': len(trapping),
        'trapping_warnings_executed': len(executed),
        'spearman_steady': rho,
        'spearman_n': len(est),
    }
    json.dump({'summary': sm, 'rows': [dict(r, file=k[0], line=k[1])
                                        for k, r in sorted(rows.items())]},
              open(summ, 'w'), indent=1)
    print()
    for k, v in sm.items():
        print('- %s: %s' % (k, '%.3f' % v if isinstance(v, float) else v))


if __name__ == '__main__':
    main()
