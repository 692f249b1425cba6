#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Root sets built only by some configurations: a roots file's "config:"
# line names the options that build its entry points, and --list-roots
# says "unbuilt" (not "missing", and no exit 1) for such a set when the
# tree's .config sets none of them; when one is set, or the tree has no
# .config, an absent entry point is "missing" again. A "config:" word
# that is no CONFIG_ symbol is a one-line error naming the file and line.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1
cp -r "$TOP/tests/fixtures/x86" tree
mkdir roots
cat > roots/fault.roots <<'R'
weight: 100000
exc_page_fault
R
cat > roots/squash.roots <<'R'
weight: 10000
config: CONFIG_DEMO_FS CONFIG_DEMO_BLK
demo_uncompress # not in the fixture
R

list() {
	"$TRAPCHECK" --roots-dir roots -p tree -q --list-roots > "$1" 2> "$1.err"
	echo $? > "$1.rc"
}

printf '# CONFIG_DEMO_FS is not set\nCONFIG_OTHER=y\n' > tree/.config
list off.txt
check_that "neither option set: unbuilt, exit 0" \
	'[ "$(cat off.txt.rc)" = 0 ] && grep -q "^squash	10000	demo_uncompress	not in the fixture	unbuilt$" off.txt && grep -q "^fault	100000	exc_page_fault		present$" off.txt'

printf 'CONFIG_DEMO_BLK=m\n' > tree/.config
list on.txt
check_that "one option set (=m): missing, exit 1" \
	'[ "$(cat on.txt.rc)" = 1 ] && grep -q "	demo_uncompress	not in the fixture	missing$" on.txt'

rm tree/.config
list none.txt
check_that "no .config: missing, exit 1" \
	'[ "$(cat none.txt.rc)" = 1 ] && grep -q "	demo_uncompress	not in the fixture	missing$" none.txt'

printf 'config: CONFIG_DEMO_FS ZRAM\n' > roots/bad.roots
list bad.txt
check_that "a config: word that is no CONFIG_ symbol: exit 2, one line naming file and line" \
	'[ "$(cat bad.txt.rc)" = 2 ] && [ "$(wc -l < bad.txt.err)" -eq 1 ] && grep -q "roots/bad.roots:1: not a CONFIG_ symbol: .ZRAM.$" bad.txt.err'

# "user:" names entry points of the set: a typo or an empty line is an
# error naming the file.
rm roots/bad.roots
printf 'exc_page_fault\nuser: exc_page_falt\n' > roots/bad.roots
list user.txt
check_that "a user: name the set does not list: exit 2, one line naming it" \
	'[ "$(cat user.txt.rc)" = 2 ] && [ "$(wc -l < user.txt.err)" -eq 1 ] && grep -q "roots/bad.roots: user: exc_page_falt is not an entry point the set lists$" user.txt.err'
printf 'exc_page_fault\nuser:\n' > roots/bad.roots
list user0.txt
check_that "a user: line naming nothing: exit 2, one line naming file and line" \
	'[ "$(cat user0.txt.rc)" = 2 ] && grep -q "roots/bad.roots:2: user: names no entry point (FUNC ... or all)$" user0.txt.err'
printf 'exc_page_fault\nuser: all\n' > roots/bad.roots
list userall.txt
check_that "user: all is accepted (exit 1: squash's entry is missing)" \
	'[ "$(cat userall.txt.rc)" = 1 ] && ! [ -s userall.txt.err ]'

# The shipped compress set says which options build it.
check "the shipped compress set names its options" \
	grep -q '^config: CONFIG_ZRAM CONFIG_ZSWAP ' "$TOP/roots/compress.roots"
done_testing
