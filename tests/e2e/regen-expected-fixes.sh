#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate the expected fix patches of the fixture tree
# (tests/fixtures/kernel/expected-fixes/), after reading the diff.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out="$top/tests/fixtures/kernel/expected-fixes"
rm -rf "$out"
SOURCE_DATE_EPOCH=0 GIT_AUTHOR_NAME="Fixture Author" \
GIT_AUTHOR_EMAIL="author@example.org" \
	"$top/trapcheck" -p "$top/tests/fixtures/kernel" -q \
	--roots "$top/tests/fixtures/kernel/variants.roots" \
	--fix-dir "$out" > /dev/null || [ $? -eq 1 ]
ls "$out"
