#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate what the tests compare trapcheck's output with, after reading
# the diff (git diff tests/): a change of behaviour is reviewed there.
#
#   tests/regen-expected.sh           the fixture tree: its fix patches
#                                     (expected-fixes/), its JSON
#                                     (expected.json) and its semantic
#                                     patch (expected.cocci)
#   tests/regen-expected.sh --kernel  also the real trees of the current
#                                     profile (tests/kernel/expected/,
#                                     from each tree's shared cold run,
#                                     made when missing: tests/kernel/lib.sh)
#   tests/regen-expected.sh --whole   also the whole 6.12 build's record
#                                     (tests/whole/whole.t; its cold run
#                                     takes half an hour at -j2)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
fx="$top/tests/fixtures/kernel"
tc="$top/trapcheck"

rm -rf "$fx/expected-fixes"
SOURCE_DATE_EPOCH=0 GIT_AUTHOR_NAME="Fixture Author" \
GIT_AUTHOR_EMAIL="author@example.org" \
	"$tc" -p "$fx" -q --roots "$fx/variants.roots" \
	--fix-dir "$fx/expected-fixes" > /dev/null || [ $? -eq 1 ]
ls "$fx/expected-fixes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tc" -p "$fx" -q --roots "$fx/variants.roots" --format=json \
	-o "$tmp/out.json" || [ $? -eq 1 ]
"$top/tests/golden.py" record "$tmp/out.json" "$fx/expected.json"
SOURCE_DATE_EPOCH=0 "$tc" -p "$fx" -q --roots "$fx/variants.roots" \
	--emit-cocci "$fx/expected.cocci" > /dev/null || [ $? -eq 1 ]
echo "$fx/expected.json $fx/expected.cocci"

case ${1:-} in --kernel|--whole) ;; *) exit 0 ;; esac
TRAPCHECK=$tc
TOP=$top
. "$top/tests/kernel/lib.sh"
if [ "$1" = --whole ]; then
	tree=$("$top/scripts/kernel-tree.sh" 6.12 all | tail -n 1)
	d=$(kcold "$tree")
	pkg=$(sed -n 's/.* package=\([^ ]*\) .*/\1/p' "$tree/.trapcheck-key")
	out="$top/tests/kernel/expected/linux-6.12-all.json"
	"$top/tests/golden.py" record "$d/cold.json" "$out" --package "$pkg"
	echo "$out"
	exit 0
fi
for v in 6.12 6.1; do
	tree=$(ktree "$v")
	d=$(kcold "$tree")
	pkg=$(sed -n 's/.* package=\([^ ]*\) .*/\1/p' "$tree/.trapcheck-key")
	out="$top/tests/kernel/expected/linux-$v-$KPROFILE.json"
	"$top/tests/golden.py" record "$d/cold.json" "$out" --package "$pkg"
	echo "$out"
done
tree=$(ktree 6.12)
pkg=$(sed -n 's/.* package=\([^ ]*\) .*/\1/p' "$tree/.trapcheck-key")
kdb "$tree" "$tmp/t.db"
SOURCE_DATE_EPOCH=0 "$tc" -p "$tree" --db "$tmp/t.db" --no-verify --fix \
	--emit-cocci "$tmp/fix.cocci" > "$tmp/fix.diff" 2> /dev/null ||
	[ $? -eq 1 ]
python3 - "$tmp/fix.diff" "$tmp/fix.cocci" > "$tmp/fix.json" <<'PY'
import json, sys
print(json.dumps({'fix': open(sys.argv[1]).read().split('\n'),
                  'cocci': open(sys.argv[2]).read().split('\n')}))
PY
out="$top/tests/kernel/expected/linux-6.12-$KPROFILE.fix.json"
"$top/tests/golden.py" record "$tmp/fix.json" "$out" --package "$pkg"
echo "$out"
