#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Behaviour unchanged on the real trees (Linux 6.12 and 6.1, arm64
# defconfig, the profile's tree): the JSON of each tree's shared cold run
# (tests/kernel/lib.sh), and on 6.12 the unverified --fix diff and
# --emit-cocci semantic patch, are those recorded in tests/kernel/expected/
# by tests/regen-expected.sh --kernel. A record made from another Debian
# package version of the source is a different tree: that comparison is
# skipped, visibly, and the suite says to regenerate.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
EXP="$TOP/tests/kernel/expected"
cd "$SCRATCH" || exit 1

# compare DESC EXPECTED GOT PKG
compare() {
	if [ ! -f "$2" ]; then
		fail "$1: no record $2 (tests/regen-expected.sh --kernel)"
		return
	fi
	"$TOP/tests/golden.py" compare "$2" "$3" --package "$4" > cmp.out
	case $? in
	0) ok "$1" ;;
	2) echo "ok $((tap_n += 1)) # skip $1: $(cat cmp.out)" ;;
	*) sed 's/^/# /' cmp.out | head -n 60; fail "$1" ;;
	esac
}

for v in 6.12 6.1; do
	tree=$(ktree "$v")
	d=$(kcold "$tree")
	pkg=$(sed -n 's/.* package=\([^ ]*\) .*/\1/p' "$tree/.trapcheck-key")
	echo "# $v: linux-source $pkg, $KPROFILE profile"
	# Exit 1 when it warns, 0 when every site is a note (6.1's focus
	# tree since the SError reads are rare notes).
	want=$(python3 -c 'import json, sys
print(1 if json.load(open(sys.argv[1]))["findings"] else 0)' "$d/cold.json")
	check "$v: the shared cold run's exit says whether it warned ($want)" \
		[ "$(cat "$d/cold.rc")" -eq "$want" ]
	compare "$v: the JSON is the recorded one" \
		"$EXP/linux-$v-$KPROFILE.json" "$d/cold.json" "$pkg"
done

# 6.12: what --fix and --emit-cocci write, unverified (fix.t and
# emitcocci.t verify), from a copy of the shared database: seconds.
tree=$(ktree 6.12)
pkg=$(sed -n 's/.* package=\([^ ]*\) .*/\1/p' "$tree/.trapcheck-key")
kdb "$tree" t.db
SOURCE_DATE_EPOCH=0 "$TRAPCHECK" -p "$tree" --db t.db --no-verify --fix \
	--emit-cocci fix.cocci > fix.diff 2> fix.err
check "6.12: --fix --emit-cocci: exit 1, a diff and a semantic patch" \
	[ $? -eq 1 -a -s fix.diff -a -s fix.cocci ]
python3 - fix.diff fix.cocci "$pkg" > fix.json <<'PY'
import json, sys
print(json.dumps({'fix': open(sys.argv[1]).read().split('\n'),
                  'cocci': open(sys.argv[2]).read().split('\n')}))
PY
compare "6.12: the --fix diff and the semantic patch are the recorded ones" \
	"$EXP/linux-6.12-$KPROFILE.fix.json" fix.json "$pkg"

done_testing
