#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where libclang's time goes in kernel TUs, and what its parse options
# that skip function bodies save (docs/performance.md, "Below the floor").
#
#	bench/parse-modes.sh TREE [NR_TUS [ROUNDS]]
#
# TREE is a kernel tree with compile_commands.json (scripts/kernel-tree.sh
# makes one). NR_TUS TUs (40) are taken evenly from trapcheck's list of
# clang commands; each mode of bench/parse-modes parses all of them in one
# process, the modes alternating ROUNDS times (2). The table keeps each
# mode's fastest round, with its ratio to "full" (trapcheck's parse);
# bench-out/parse-modes/ keeps every round. One core is enough: the modes
# are compared with each other, not with the -jN floor of bench/run.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?usage: bench/parse-modes.sh TREE [NR_TUS [ROUNDS]]}
nr=${2:-40}
rounds=${3:-2}
out=$top/bench-out/parse-modes

make -C "$top" -s trapcheck bench/parse-modes
rm -rf "$out"
mkdir -p "$out/args"
"$top/trapcheck" -p "$tree" --print-clang-commands > "$out/commands"
python3 - "$out/commands" "$out/args" "$nr" <<'PY'
import shlex, sys
lines = open(sys.argv[1]).read().splitlines()
nr = min(int(sys.argv[3]), len(lines))
step = len(lines) / nr
for i in range(nr):
    argv = shlex.split(lines[int(i * step)])
    argv = [a for a in argv[1:] if a != '-fsyntax-only']
    with open('%s/%03d' % (sys.argv[2], i), 'w') as f:
        f.write('\0'.join([argv[-1]] + argv[:-1]))
PY
r=1
while [ "$r" -le "$rounds" ]; do
	for m in full nobodies preamble session; do
		(cd "$tree" && "$top/bench/parse-modes" $m "$out"/args/*) \
			> "$out/$m-$r.tsv"
	done
	r=$((r + 1))
done
python3 - "$out" "$rounds" <<'PY'
import sys
out, rounds = sys.argv[1], int(sys.argv[2])
modes = ['full', 'nobodies', 'preamble', 'session']
best, rows = {}, {}
for m in modes:
    for r in range(1, rounds + 1):
        lines = [l.split('\t') for l in open('%s/%s-%d.tsv' % (out, m, r))]
        total = float(lines[-1][2])
        if m not in best or total < best[m]:
            best[m], rows[m] = total, lines[:-1]
def defs(m, what):
    return sum(int(l[2 + what].split()[1]) for l in rows[m]
               if len(l) > 4)
print('| mode | seconds | ratio | main-file bodies | header bodies |')
print('|---|---:|---:|---:|---:|')
for m in modes:
    print('| %s | %.2f | %.2fx | %d | %d |' %
          (m, best[m], best[m] / best['full'], defs(m, 0), defs(m, 1)))
print('(%d TUs, fastest of %d rounds; bodies: function definitions '
      'the TU cursor visits)' % (len(rows['full']), rounds))
PY
