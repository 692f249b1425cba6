#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a precompiled header would take off libclang's parse, beside
# trapcheck's own cold run of the same TUs (docs/performance.md, "What a
# precompiled header could take off", "Through libclang").
#
#	bench/pch-trial.sh TREE [NR_TUS [ROUNDS [SEED]]]
#
# TREE is a kernel tree with compile_commands.json (scripts/kernel-tree.sh
# 6.12 all). The C files are grouped by their first line of code (an
# #include <...>) and their clang arguments less the per-file -DKBUILD_*
# and -D__KBUILD_MODNAME; NR_TUS (24) are drawn with SEED (3) from the
# largest group whose first line is #include <linux/module.h>. A PCH of
# that line is built once with the group's arguments (clang-14, the
# version of libclang), then bench/parse-modes runs the modes full and
# nobodies over the TUs with and without -include-pch, in turn, ROUNDS
# times (2), and trapcheck itself runs cold on them (-j1 --no-isolate).
# CPU seconds (user) from /usr/bin/time, so that a busy machine skews the
# ratios less; bench-out/pch-trial/ keeps every round and each TU's
# definition counts (in mode full, with and without the PCH they must be
# equal; in nobodies the PCH keeps the headers' bodies, which the TU's
# SkipFunctionBodies does not take away).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$(cd "${1:?usage: bench/pch-trial.sh TREE [NR_TUS [ROUNDS [SEED]]]}" && pwd)
nr=${2:-24}
rounds=${3:-2}
seed=${4:-3}
out=$top/bench-out/pch-trial
clang=$(llvm-config --bindir)/clang

make -C "$top" -s trapcheck bench/parse-modes
rm -rf "$out"
mkdir -p "$out/plain" "$out/pch"
"$top/trapcheck" -p "$tree" --print-clang-commands > "$out/commands"
python3 - "$out" "$tree" "$nr" "$seed" <<'PY'
import collections, json, os, random, re, shlex, sys
out, tree, nr, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def first_line(path):
    try:
        s = open(path, errors='replace').read()
    except OSError:
        return None
    s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
    for l in s.splitlines():
        l = l.strip()
        if l and not l.startswith('//'):
            return l
    return None

groups = collections.defaultdict(list)
for line in open(out + '/commands').read().splitlines():
    argv = shlex.split(line)
    f = argv[-1]
    if not f.endswith('.c') or f.endswith('.mod.c'):
        continue
    first = first_line(f)
    if first != '#include <linux/module.h>':
        continue
    key = tuple(a for a in argv[1:-1] if a != '-fsyntax-only' and
                not a.startswith('-DKBUILD_') and
                not a.startswith('-D__KBUILD_MODNAME'))
    groups[key].append(argv)
key, tus = max(groups.items(), key=lambda kv: len(kv[1]))
random.seed(seed)
random.shuffle(tus)
tus = tus[:nr]
print('group: %d files, %d drawn' % (len(groups[key]), len(tus)))
for i, argv in enumerate(tus):
    a = [x for x in argv[1:] if x != '-fsyntax-only']
    with open('%s/plain/%02d' % (out, i), 'w') as f:
        f.write('\0'.join([a[-1]] + a[:-1]))
    with open('%s/pch/%02d' % (out, i), 'w') as f:
        f.write('\0'.join([a[-1], '-include-pch', out + '/g.pch'] +
                          a[:-1]))
with open(out + '/g.h', 'w') as f:
    f.write('#include <linux/module.h>\n')
with open(out + '/pch-args', 'w') as f:
    f.write('\n'.join(key) + '\n')
files = set(os.path.realpath(a[-1]) for a in tus)
db = []
for e in json.load(open(tree + '/compile_commands.json')):
    d = os.path.join(tree, e['directory'])
    if os.path.realpath(os.path.join(d, e['file'])) in files:
        db.append(dict(e, directory=os.path.realpath(d)))
json.dump(db, open(out + '/compile_commands.json', 'w'), indent=1)
PY
tr '\n' '\0' < "$out/pch-args" |
	xargs -0 /usr/bin/time -f "%U" -o "$out/pch-build.time" \
		"$clang" -x c-header -w -o "$out/g.pch" "$out/g.h"
echo "PCH built: $(cat "$out/pch-build.time") s of CPU, $(stat -c %s "$out/g.pch") bytes"
r=1
while [ "$r" -le "$rounds" ]; do
	for m in full nobodies; do
		for v in plain pch; do
			/usr/bin/time -f "%U" -o "$out/$m-$v-$r.time" \
				"$top/bench/parse-modes" $m "$out/$v"/* \
				> "$out/$m-$v-$r.tsv"
		done
	done
	/usr/bin/time -f "%U" -o "$out/trapcheck-$r.time" \
		"$top/trapcheck" -p "$out/compile_commands.json" -j1 \
		--no-isolate --no-progress --format=json \
		-o "$out/trapcheck-$r.json" 2> "$out/trapcheck-$r.err" ||
		[ $? -eq 1 ]
	r=$((r + 1))
done
python3 - "$out" "$rounds" <<'PY'
import sys
out, rounds = sys.argv[1], int(sys.argv[2])
def t(name):
    return [float(open('%s/%s-%d.time' % (out, name, r)).read().split()[-1])
            for r in range(1, rounds + 1)]
def counts(m, v):
    return [l.split('\t')[2:] for l in open('%s/%s-%s-1.tsv' % (out, m, v))
            if not l.startswith('total')]
full = min(t('full-plain'))
print('%-44s %s' % ('CPU seconds (user), rounds', 'best / full'))
for name in ('full-plain', 'full-pch', 'nobodies-plain', 'nobodies-pch',
             'trapcheck'):
    v = t(name)
    print('%-44s %-20s %.2fx' % (name, ' '.join('%.2f' % x for x in v),
                                 min(v) / full))
# nobodies differs by design: the PCH was built with every header body,
# which SkipFunctionBodies of the TU's own parse does not take away.
same = counts('full', 'plain') == counts('full', 'pch')
print('full: the same definitions and errors per TU with the PCH: %s' %
      ('yes' if same else 'NO'))
if not same:
    sys.exit(1)
PY
