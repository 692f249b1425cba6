#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How many TUs any choice of "only the TUs that matter" must still parse
(docs/performance.md, "Below the floor").

    bench/tu-bound.py FACTS.db [ROOTS_DIR]

From a facts database of a full run (trapcheck --db): the functions on
some path from a root (ROOTS_DIR/*.roots, default roots/) to a sink,
following direct calls and, through struct members, every function stored
in a member of that name (coarser than trapcheck's dispatch, so the count
is an upper bound of what trapcheck itself follows). Prints how many TUs
define one of them (a header function counts for the TU that owns its
body in the database): a run that parsed only those TUs would still parse
that share.
"""
import collections
import glob
import os
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
rdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'roots')
roots = set()
for f in glob.glob(os.path.join(rdir, '*.roots')):
    for line in open(f):
        line = line.split('#')[0].strip()
        if line and ':' not in line:
            roots.add(line.split()[0])

fn_of_tu = collections.defaultdict(list)    # a TU's functions, in order
name_of = {}
for tu, key, name in db.execute('select tu, key, name from func '
                                'order by tu, rowid'):
    fn_of_tu[tu].append(key)
    name_of[key] = name

succ = collections.defaultdict(set)
for tu, caller, callee in db.execute('select tu, caller, callee_key '
                                     'from call'):
    if caller is not None and 0 <= caller < len(fn_of_tu[tu]):
        succ[fn_of_tu[tu][caller]].add(callee)
stored = collections.defaultdict(set)
for member, fn in db.execute('select member, fn_key from assign'):
    stored[member].add(fn)
for tu, caller, member in db.execute('select tu, caller, member '
                                     'from icall'):
    if caller is not None and 0 <= caller < len(fn_of_tu[tu]):
        succ[fn_of_tu[tu][caller]] |= stored.get(member, set())
sinks = set()
for tu, func in db.execute('select tu, func from sink'):
    if func is not None and 0 <= func < len(fn_of_tu[tu]):
        sinks.add(fn_of_tu[tu][func])
pred = collections.defaultdict(set)
for a, bs in succ.items():
    for b in bs:
        pred[b].add(a)


def closure(start, edges):
    seen, todo = set(start), list(start)
    while todo:
        for y in edges.get(todo.pop(), ()):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


fw = closure({k for k, n in name_of.items() if n in roots}, succ)
bw = closure(sinks, pred)
on_path = fw & bw
nr_tus = db.execute('select count(*) from tu').fetchone()[0]
need = {tu for tu, keys in fn_of_tu.items() if any(k in on_path
                                                   for k in keys)}
print('functions %d, reachable from a root %d, reaching a sink %d, '
      'on a root-to-sink path %d' % (len(name_of), len(fw), len(bw),
                                      len(on_path)))
print('TUs %d, holding a function on such a path %d (%.0f%%)' %
      (nr_tus, len(need), 100.0 * len(need) / max(nr_tus, 1)))
