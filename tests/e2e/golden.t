#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Behaviour unchanged: trapcheck's JSON and semantic patch of the fixture
# tree are those recorded next to it (expected.json, expected.cocci;
# the fix patches are fix.t's). A change of output is made on purpose,
# by tests/regen-expected.sh, and reviewed in the diff.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" -q --roots "$FX/variants.roots" --format=json -o out.json
check "the fixture's findings (exit 1)" [ $? -eq 1 ]
"$TOP/tests/golden.py" compare "$FX/expected.json" out.json > json.diff
rc=$?
sed 's/^/# /' json.diff | head -n 40
check "the JSON is the recorded one (tests/regen-expected.sh)" [ $rc -eq 0 ]

# The year in its Copyright line is SOURCE_DATE_EPOCH's.
SOURCE_DATE_EPOCH=0 "$TRAPCHECK" -p "$FX" -q --roots "$FX/variants.roots" \
	--emit-cocci out.cocci > /dev/null
check "--emit-cocci: exit 1 (findings)" [ $? -eq 1 ]
diff -u "$FX/expected.cocci" out.cocci > cocci.diff
rc=$?
sed 's/^/# /' cocci.diff | head -n 40
check "the semantic patch is the recorded one" [ $rc -eq 0 ]

# The comparison itself can fail: a changed line is a difference.
sed 's/"line": \([0-9]*\)/"line": 1\1/' out.json > moved.json
"$TOP/tests/golden.py" compare "$FX/expected.json" moved.json > /dev/null
check "a moved finding is a difference (exit 1)" [ $? -eq 1 ]
"$TOP/tests/golden.py" compare "$FX/expected.json" out.json \
	--package 6.12.1-1 > /dev/null
check "a record of another tree is not compared (exit 2)" [ $? -eq 2 ]

done_testing
