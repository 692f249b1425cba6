#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# README.md shows what the program prints: each example block marked
# "<!-- example: 6.12 [VARIANT] -->" is compared, line for line, with the
# text trapcheck prints on that tree of the focus profile (lib.sh; a variant is
# tests/kernel/tree-variant.py's copy, revert-004: a89c6bcdac22
# reverted). Every indented line of the block but "    ..." must be a
# line of the output, so an example the binary no longer prints fails.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1
# The examples are the focus profile's output (README says so), under
# make check-full too.
KPROFILE=focus

python3 - "$TOP/README.md" > blocks.txt <<'PY'
import re, sys
text = open(sys.argv[1]).read().split('\n')
i = 0
while i < len(text):
    m = re.match(r'<!-- example: (\S+)(?: (\S+))? -->$', text[i])
    i += 1
    if not m:
        continue
    while i < len(text) and not text[i].startswith('    '):
        i += 1
    while i < len(text) and text[i].startswith('    '):
        if text[i] != '    ...':
            print('%s\t%s\t%s' % (m.group(1), m.group(2) or '-',
                                  text[i][4:]))
        i += 1
PY
n=$(cut -f1,2 blocks.txt | sort -u | wc -l)
check "README.md has example blocks ($n, $(wc -l < blocks.txt) lines)" \
	[ "$n" -ge 2 ]

cut -f1,2 blocks.txt | sort -u > keys.txt
while IFS='	' read -r v variant; do
	tree=$(ktree "$v")
	name=$v
	if [ "$variant" != - ]; then
		tree=$(kvariant "$tree" "$variant")
		name="$v $variant"
		kdb "$tree" "t-$v-$variant.db" "$(ktree "$v")"
	else
		kdb "$tree" "t-$v-$variant.db"
	fi
	"$TRAPCHECK" -p "$tree" --db "t-$v-$variant.db" > "out-$v-$variant.txt" \
		2>&1
	awk -F'\t' -v v="$v" -v w="$variant" '$1 == v && $2 == w' blocks.txt |
		cut -f3 > "want-$v-$variant.txt"
	missing=$(grep -vxFf "out-$v-$variant.txt" "want-$v-$variant.txt")
	[ -z "$missing" ] || printf '%s\n' "$missing" | sed 's/^/# not printed: /' | cut -c1-300
	check "README's $name example is what trapcheck prints on that tree" \
		[ -z "$missing" ]
done < keys.txt
done_testing
