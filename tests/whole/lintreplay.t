#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lint replayed on the whole kernel (make check-full, make
# check-whole): every C file of Linux 6.12's arm64 defconfig build
# (scripts/kernel-tree.sh 6.12 all, as tests/whole/whole.t). Two patches
# of bench/lib.sh, a line in a function body of asm/cpufeature.h (every TU
# includes it) and a macro fewer than 1% of the TUs expand (FTR_STRICT),
# each linted on the warm database of the shared cold run, give the
# findings of the same --diff with no database, where every TU of the
# build and of the patched build is parsed: the difference of the two
# cold runs, byte for byte (tests/kernel/lintreplay.t does every kind of
# patch on the full tree). Each replay pays two cold runs; konce keeps
# its answer per trapcheck binary.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$("$TOP/scripts/kernel-tree.sh" 6.12 all | tail -n 1)
d=$(kcold "$tree") || exit 1
na=$(sed -n 's/^trapcheck: \([0-9]*\) TUs analysed.*/\1/p' "$d/cold.err")
check_that "the shared cold run: $na TUs analysed, exit $(cat "$d/cold.rc")" \
	'[ -n "$na" ] && [ "$(cat "$d/cold.rc")" -le 1 ]'
[ -n "$na" ] || na=0

out=$SCRATCH
. "$TOP/bench/lib.sh"
lint_patches "$tree" || exit 1
for n in macro-rare body; do
	kdb "$tree" l.db || exit 1
	start=$(date +%s)
	"$TRAPCHECK" -p "$tree" --db l.db -j"$(nproc)" --no-progress \
		--diff "lint-$n.patch" --format=json -o "$n.json" 2> "$n.err"
	rc=$?
	secs=$(( $(date +%s) - start ))
	parsed=$(sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' "$n.err")
	h=$(patch_key "lint-$n.patch")
	konce "$tree" "lintreplay-$n-$h" "$n.cold.json" \
		"$TRAPCHECK" -p "$tree" -j"$(nproc)" --no-progress \
		--diff "lint-$n.patch" --format=json -o "$n.cold.json"
	check_that "lint-$n: $parsed of $na TUs parsed in $secs s (at most 1%), exit $rc: the findings of the same --diff with every TU parsed" \
		'[ -n "$parsed" ] && [ "$rc" -le 1 ] &&
		 [ $((parsed * 100)) -le "$na" ] &&
		 python3 "$TOP/tests/whole/same.py" "$n.json" "$n.cold.json"'
done

done_testing
