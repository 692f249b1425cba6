#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lint replayed on real Linux 6.12: each pre-submit patch of
# bench/lib.sh (a line in a header function body, a macro one TU
# expands, one a few hundred expand, a new macro nothing names, a .c body
# line, a new file) linted on the tree's warm database gives the findings
# of the same --diff with no database, where every TU of the tree and of
# the patched tree is parsed: the difference of the two cold runs, byte
# for byte (check-full: each replay pays a cold run of the tree and of
# the patched tree). make check lints the macro a single TU expands on
# the focus tree and checks how little it parses (tests/e2e/lintmacro.t
# replays every kind of macro change on the fixture).
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$(ktree 6.12)
kdb "$tree" k.db || exit 1
out=$SCRATCH
. "$TOP/bench/lib.sh"
lint_patches "$tree" || exit 1
if [ "$KPROFILE" = full ]; then
	names=$lint_names
else
	names=macro-rare
fi
includers() {
	python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(DISTINCT tu) FROM include WHERE file = ?', (sys.argv[2],)).fetchone()[0])" k.db "$1"
}
# same A B: the findings and notes of two JSON answers, byte for byte
same() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ('findings', 'low_confidence'):
    x, y = (json.dumps(d[k], sort_keys=True) for d in (a, b))
    assert x == y, (k, x[:2000], y[:2000])
PY
}
for n in $names; do
	start=$(date +%s)
	TRAPCHECK_BODYSKIP_STATS=1 \
	"$TRAPCHECK" -p "$tree" --db k.db -j"$(nproc)" --no-progress \
		--diff "lint-$n.patch" --format=json -o "$n.json" 2> "$n.err"
	rc=$?
	secs=$(( $(date +%s) - start ))
	parsed=$(sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' "$n.err")
	if [ "$KPROFILE" != full ]; then
		check_that "lint-$n: $parsed TUs parsed in $secs s, exit $rc" \
			'[ -n "$parsed" ] && [ "$rc" -le 1 ]'
		continue
	fi
	h=$(patch_key "lint-$n.patch")
	konce "$tree" "lintreplay-$n-$h" "$n.cold.json" \
		"$TRAPCHECK" -p "$tree" -j"$(nproc)" --no-progress \
		--diff "lint-$n.patch" --format=json -o "$n.cold.json"
	check_that "lint-$n: $parsed TUs parsed in $secs s, exit $rc: the findings of the same --diff with every TU parsed (exit $rc)" \
		'[ -n "$parsed" ] && [ "$rc" -le 1 ] && same "$n.json" "$n.cold.json"'
done
cf=arch/arm64/include/asm/cpufeature.h
m=$(includers $cf)
dep=$(grep -c "^macros: .* parsed again: depends on a changed macro$" macro-rare.err)
asm=$(grep -c "^macros: .* parsed again: no macro set stored$" macro-rare.err)
check_that "lint-macro-rare (FTR_STRICT): $dep of cpufeature.h's $m includers parsed again for their macros (at most 10%), $asm assembly TUs (no macro set), the note says how many" \
	'grep -q "^trapcheck: a change to macros only (FTR_STRICT): $((dep + asm)) of the [0-9]* TUs that include it parsed again$" macro-rare.err &&
	 [ "$dep" -ge 1 ] && [ "$dep" -le $((m / 10)) ] &&
	 ! grep "^macros: " macro-rare.err | grep -v "\.S\(@[0-9a-f]*\)\?\( \|$\)" | grep -q "no macro set"'

done_testing
