#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""facts-set.py FACTS.db FINDINGS.json: what a run found, as text that
does not depend on which TU extracted a header function.

Two runs of one tree that differ only in how they parse (header bodies
blanked or not, the TUs shared out among other parser processes) must
print the same text:
  - the findings JSON with the summary's function, edge and dispatch
    counts left out: they count a header function once per parser
    process that extracted it;
  - every table of the facts database but the TUs' macro sets as a set
    of rows, the TU column named by its path where the row is the TU's
    own (includes, the TU
    record) and left out where a header function's body may have been
    extracted by any TU (functions, calls, sinks, indirect calls,
    assignments), a function's index in its TU replaced by its key.
Two things are numbered by the compiler, not the source, and are made
equal: __COUNTER__ names (compiletime_assert()'s __compiletime_assert_N,
one per BUILD_BUG_ON expansion the TU made, in order) and the place of
the first use of a __builtin_* (clang's implicit declaration).
"""
import json
import re
import sqlite3
import sys

COUNTER = re.compile(r'(__compiletime_assert_)\d+')
OWN_TU = {'include', 'tu', 'cap', 'ftr', 'ftr_bits', 'msr_list'}
# Columns holding a function's index in its TU's func rows.
FUNC_INDEX = {('call', 'caller'), ('sink', 'func'), ('icall', 'caller')}


def norm(v):
    return COUNTER.sub(r'\1N', v) if isinstance(v, str) else v


def main():
    db = sqlite3.connect(sys.argv[1])
    paths = dict(db.execute('select id, path from tu'))
    keys = {}
    for tu, key in db.execute('select tu, key from func order by rowid'):
        keys.setdefault(tu, []).append(key)
    out = []
    tables = [r[0] for r in db.execute(
        "select name from sqlite_master where type = 'table' order by name")]
    for t in tables:
        # meta, file hashes, and the stored link (the merged graph
        # of the TUs above, a cache kept for warm runs) are not facts;
        # nor is a TU's macro set (model/macroset.h): the macros it
        # expanded, in the header bodies it parsed too, which blanking
        # decides (what the lint asks of it, not what the graph holds).
        if t in ('meta', 'file', 'link', 'macro'):
            continue
        cols = [r[1] for r in db.execute('pragma table_info("%s")' % t)]
        rows = set()
        for r in db.execute('select * from "%s"' % t):
            d = dict(zip(cols, r))
            tu = d.pop('tu', None)
            if t == 'tu':
                d.pop('id')
                d.pop('key')
            elif t in OWN_TU:
                d['tu'] = paths.get(tu)
            for (tt, c) in FUNC_INDEX:
                if tt == t and d.get(c) is not None and d[c] >= 0:
                    d[c] = keys[tu][d[c]]
            if t == 'call' and str(d.get('callee_name', '')).startswith(
                    '__builtin_'):
                d['callee_file'] = d['callee_line'] = None
            rows.add(json.dumps({k: norm(v) for k, v in d.items()},
                                sort_keys=True))
        out.append('== %s: %d rows' % (t, len(rows)))
        out.extend(sorted(rows))
    j = json.load(open(sys.argv[2]))
    for k in ('functions', 'edges', 'dispatch'):
        j['summary'].pop(k, None)
    out.insert(0, json.dumps(j, indent=1, sort_keys=True))
    print('\n'.join(out))


main()
