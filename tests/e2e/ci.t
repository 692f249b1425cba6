#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The CI matrices of contrib/ci/ (docs/ci.md): each parses as YAML, has N
# shard jobs and one join job that needs them, and its trapcheck steps,
# run as the CI system would (each shard job in a checkout of its own at
# another path, the databases handed over as artifacts), give the join
# the findings of a single run over the fixture tree.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1
PATH="$(dirname "$TRAPCHECK"):$PATH"
export PATH

checkout() {
	rm -rf "$1" && mkdir -p "$(dirname "$1")" && cp -a "$FX" "$1"
}
checkout ref/tree
(cd ref/tree && trapcheck -p . -q --format=sarif -o ../single.sarif)
[ $? -eq 1 ]
check "the single run finds something (exit 1)" [ $? -eq 0 ]

# sarif_keys FILE: one line per result: rule, file, line, fingerprint.
sarif_keys() {
	python3 - "$1" <<'PY'
import json, sys
for run in json.load(open(sys.argv[1]))['runs']:
    for r in run['results']:
        loc = r['locations'][0]['physicalLocation']
        print(r['ruleId'], loc['artifactLocation']['uri'],
              loc['region']['startLine'],
              sorted(r.get('partialFingerprints', {}).items()))
PY
}
sarif_keys ref/single.sarif | sort > single.keys
check "... $(wc -l < single.keys) SARIF results to compare with" \
	[ "$(wc -l < single.keys)" -gt 5 ]

# steps FILE KIND: the shard count, then each shard's and the join's
# shell, as files shard.sh and join.sh; fails on a wrong structure.
steps() {
	python3 - "$1" "$2" <<'PY'
import sys, yaml
path, kind = sys.argv[1:]
y = yaml.safe_load(open(path))
if kind == 'github':
    shard, join = y['jobs']['shard'], y['jobs']['join']
    n = len(shard['strategy']['matrix']['shard'])
    assert shard['strategy']['matrix']['shard'] == list(range(1, n + 1))
    assert int(y['env']['SHARDS']) == n, 'SHARDS is not the matrix size'
    assert shard['env']['SHARD'] == '${{ matrix.shard }}'
    assert join['needs'] == 'shard', join['needs']
    run = [s['run'] for s in shard['steps'] if s.get('name') ==
           'trapcheck shard'][0]
    up = [s for s in shard['steps']
          if s.get('uses', '').startswith('actions/upload-artifact')][0]
    down = [s for s in join['steps']
            if s.get('uses', '').startswith('actions/download-artifact')][0]
    assert up['with']['path'] == 'shard-${{ matrix.shard }}.db'
    pre = down['with']['pattern'].rstrip('*')
    assert up['with']['name'].startswith(pre), (up['with'], pre)
    assert down['with']['merge-multiple'] is True
    out = down['with']['path']
    jrun = [s['run'] for s in join['steps'] if s.get('name') ==
            'trapcheck join'][0]
    open('shard.sh', 'w').write('SHARDS=%d\n' % n + run)
    open('join.sh', 'w').write(jrun)
    print(n, out)
else:
    shard, join = y['trapcheck-shard'], y['trapcheck-join']
    n = int(shard['parallel'])
    assert join['needs'] == ['trapcheck-shard'], join['needs']
    assert y['stages'].index(shard['stage']) < y['stages'].index(join['stage'])
    assert 'shard-*.db' in shard['artifacts']['paths']
    open('shard.sh', 'w').write('CI_NODE_TOTAL=%d\n' % n +
                                '\n'.join(shard['script']) + '\n')
    open('join.sh', 'w').write('\n'.join(join['script']) + '\n')
    print(n, '.')
PY
}

for kind in github gitlab; do
	rm -rf "$kind" && mkdir "$kind"
	set -- $(cd "$kind" && steps "$TOP/contrib/ci/$kind-shards.yml" $kind)
	check "$kind: YAML with shard jobs and a join job that needs them" \
		[ -n "${1:-}" ]
	n=${1:-0} out=${2:-.}
	[ "$n" -gt 1 ] || { fail "$kind: fewer than 2 shards"; continue; }
	ok=0
	k=1
	while [ "$k" -le "$n" ]; do
		# Each shard job: its own runner, a checkout at its own path.
		checkout "$kind/runner$k/work/linux"
		(cd "$kind/runner$k/work/linux" &&
		 SHARD=$k CI_NODE_INDEX=$k bash -e "$SCRATCH/$kind/shard.sh") \
			> "$kind/shard$k.out" 2>&1 || ok=1
		k=$((k + 1))
	done
	check "$kind: each of the $n shard jobs succeeds (exit 0)" [ $ok -eq 0 ]
	checkout "$kind/join/linux"
	mkdir -p "$kind/join/linux/$out"
	cp "$kind"/runner*/work/linux/shard-*.db "$kind/join/linux/$out/"
	check "$kind: the artifacts are $n databases" \
		[ "$(ls "$kind/join/linux/$out"/shard-*.db | wc -l)" -eq "$n" ]
	(cd "$kind/join/linux" && bash -e "$SCRATCH/$kind/join.sh") \
		> "$kind/join.out" 2>&1
	rc=$?
	sarif=$(ls "$kind"/join/linux/*.sarif 2> /dev/null | head -n 1)
	check "$kind: the join job writes SARIF (trapcheck exit 1: findings)" \
		sh -c "[ $rc -eq 1 ] && [ -s '$sarif' ]"
	sarif_keys "$sarif" | sort > "$kind.keys"
	check "$kind: joined, the single run's results (rule, file, line, fingerprint)" \
		cmp -s "$kind.keys" single.keys
done

done_testing
