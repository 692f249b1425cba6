#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --fix-dir's patches as git writes them, in a git repository made of the
# fixture tree: the author and Signed-off-by from git's configuration,
# blob ids on the index line (git hash-object's), git format-patch's file
# name, a Fixes: tag naming the commit that last changed the line (none
# for a line not committed, none outside a repository), and git am -3
# applying a patch after its context changed, which it cannot do without
# the index line.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
CF=arch/arm64/include/asm/cpufeature.h
cd "$SCRATCH" || exit 1
# No user's configuration: only the repository's.
HOME=$SCRATCH
GIT_CONFIG_NOSYSTEM=1
export HOME GIT_CONFIG_NOSYSTEM
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
# git am in the clones commits: a committer (trapcheck never reads it).
GIT_COMMITTER_NAME=Committer
GIT_COMMITTER_EMAIL=committer@example.org
export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

cp -a "$FX" tree
(cd tree && git init -q && git config user.name "Kernel Dev" &&
 git config user.email dev@example.org && git add -A &&
 git commit -qm "arm64: the fixture's first commit")
base=$(git -C tree rev-parse HEAD)
"$TRAPCHECK" -p tree --fix-dir out -q > /dev/null 2>&1
p=$(ls out/0001-*.patch)
check_that "the first patch: author and Signed-off-by from the repository's git configuration" \
	'grep -q "^From: Kernel Dev <dev@example.org>$" "$p" &&
	 grep -q "^Signed-off-by: Kernel Dev <dev@example.org>$" "$p"'
old=$(git -C tree hash-object "$CF" | cut -c1-12)
git -C tree show HEAD:"$CF" > /dev/null
(cd tree && git apply --cached "../$p" && git diff --cached --stat > /dev/null)
new=$(git -C tree ls-files -s "$CF" | cut -d' ' -f2 | cut -c1-12)
git -C tree reset -q
check_that "the index line: the old and new blob ids git computes, and the mode" \
	'[ "$old" != "$new" ] && grep -q "^index $old\.\.$new 100644$" "$p"'
short=$(git -C tree rev-parse --short=12 "$base")
check "a Fixes: tag naming the commit that last changed the line" \
	grep -q "^Fixes: $short (\"arm64: the fixture's first commit\")$" "$p"

# git format-patch names the same commit the same way.
git clone -q tree am
(cd am && git am -q "../$p" && git format-patch -q -1 -o ../fp)
check_that "the file name is git format-patch's (64 characters at most)" \
	'[ "$(ls fp)" = "$(basename "$p")" ] && [ "$(basename "$p" | wc -c)" -le 65 ]'

# The context changes upstream; git am -3 merges with the blob ids.
(cd tree && sed -i 's/^\t\treturn false;$/\t\treturn false; \/* not yet *\//' "$CF" &&
 sed -i '1i /* moved */\n/* moved */\n/* moved */' "$CF" &&
 git commit -qam "arm64: context moves")
git clone -q tree am3
(cd am3 && git am -q -3 "../$p") > am3.out 2>&1
rc=$?
check_that "git am -3 applies the patch after its context changed" \
	'[ $rc -eq 0 ] && grep -q "read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1)" "am3/$CF" &&
	 grep -q "return false; /\* not yet \*/" "am3/$CF"'
grep -v '^index ' "$p" > noindex.patch
git clone -q tree am0
(cd am0 && git am -q -3 ../noindex.patch) > am0.out 2>&1
check "... which it cannot without the index line" [ $? -ne 0 ]

# Lines moved by a later commit and by uncommitted lines above it: the
# line is still the first commit's.
sed -i '1i /* uncommitted */\n/* uncommitted */' "tree/$CF"
"$TRAPCHECK" -p tree --fix-dir out1 -q > /dev/null 2>&1
check_that "the line moved by a commit and by uncommitted lines: Fixes: still names the commit that wrote it" \
	'grep -q "^Fixes: $short (" out1/0001-*.patch'
git -C tree checkout -q -- "$CF"

# A line not committed: no Fixes: tag.
sed -i 's/mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/mmfr1 = read_cpuid(ID_AA64MMFR1_EL1); \/* edited *\//' "tree/$CF"
"$TRAPCHECK" -p tree --fix-dir out2 -q > /dev/null 2>&1
p2=$(ls out2/0001-*.patch)
check_that "the site's line edited, not committed: a patch, no Fixes: tag" \
	'[ -f "$p2" ] && ! grep -q "^Fixes:" "$p2" && grep -q "^Signed-off-by: Kernel Dev" "$p2"'

# Not a repository, nobody configured: trapcheck as the author, no tags.
cp -a "$FX" plain
"$TRAPCHECK" -p plain --fix-dir out3 -q > /dev/null 2>&1
p3=$(ls out3/0001-*.patch)
check_that "outside a repository, no identity: trapcheck as the author, no Signed-off-by, no Fixes:" \
	'grep -q "^From: trapcheck <trapcheck@localhost>$" "$p3" &&
	 ! grep -q "^Signed-off-by:\|^Fixes:" "$p3" && grep -q "^index " "$p3"'
GIT_AUTHOR_NAME="Env Dev" GIT_AUTHOR_EMAIL=env@example.org \
	"$TRAPCHECK" -p plain --fix-dir out4 -q > /dev/null 2>&1
check "... GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL name the author and sign off" \
	grep -q "^Signed-off-by: Env Dev <env@example.org>$" out4/0001-*.patch
done_testing
