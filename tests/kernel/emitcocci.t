#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --emit-cocci on the real trees: trapcheck writes its fixes of Linux 6.12
# (the __cpu_has_rng() fix in archrandom.h, and the other sites it has a rewrite for) and
# of 6.12 with a89c6bcdac22 reverted (also cpu_has_hw_af() in cpufeature.h) as
# a semantic patch, and the kernel's own `make coccicheck MODE=patch
# COCCI=<it> M=arch/arm64` prints a diff whose changed lines are those of
# trapcheck --fix, file for file; the patched files are the same.
#
# One trapcheck run per tree gives both the diff and the semantic patch,
# with --no-verify: on 6.12 verifying the fixes re-parses most TUs four
# times (two of the three rewrites fail it, so each is re-checked alone),
# 15 to 20 minutes on 2 cores, which kernel.t already spends; here the
# point is what Coccinelle makes of each rewrite, and unverified there are
# more of them (cputype.h, kvm/debug.c). The verified subset goes through
# the same emitter (tests/e2e/emitcocci.t runs it with verification);
# EMITCOCCI_VERIFY=1 adds the verified run on 6.12 (the __cpu_has_rng() fix only).
# The facts databases are copies of each tree's shared cold run
# (tests/kernel/lib.sh; the revert-004 one starts from 6.12's): trapcheck
# takes seconds here. make coccicheck runs in a cp -a copy of what it
# reads (spatch --jobs writes a scratch directory in the tree), as in
# coccicheck.t; the cached trees are only read.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
LINES="$TOP/tests/e2e/diff-lines.py"
KMAKE="make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
cd "$SCRATCH" || exit 1
t_start=$(date +%s)

. "$TOP/tests/kernel/cocci-lib.sh"

# coccicheck COPY COCCI MODE: out.MODE, cc_rc, cc_time, cc_match
coccicheck() {
	_t=$(now)
	$KMAKE -C "$1" coccicheck MODE="$3" COCCI="$2" M=arch/arm64 J=2 \
		> "out.$3" 2>&1
	cc_rc=$?
	cc_time=$(since "$_t")
	cc_match=$(grep -o '^[0-9]* files match' "out.$3")
}

base=$(ktree 6.12)
check "6.12: kernel tree prepared" [ -s "$base/compile_commands.json" ]
rev=$(kvariant "$base" revert-004)

# run_tree NAME TREE WANT NOT [--no-verify]: --emit-cocci and --fix on
# TREE, make coccicheck with the semantic patch on a copy; --fix must change
# file WANT and not NOT
run_tree() {
	name=$1 tree=$2 want=$3 not=$4 noverify=$5
	echo "# --- $name: $tree $noverify"

	[ "$tree" = "$base" ] && from= || from=$base
	kdb "$tree" "$name.db" $from
	t=$(now)
	"$TRAPCHECK" -p "$tree" -j2 --db "$name.db" \
		$noverify --fix --emit-cocci "$name.cocci" > "$name.fix" \
		2> "$name.err"
	rc=$?
	echo "# $name: trapcheck --fix --emit-cocci: exit $rc in $(since "$t") s"
	grep -v ': note: no fix: ' "$name.err" | sed 's/^/#   /' | cut -c1-160
	check_that "$name: exit 1, a diff and a semantic patch" \
		'[ $rc -eq 1 ] && [ -s "$name.fix" ] && [ -s "$name.cocci" ]'
	want_files=$(python3 "$LINES" --files "$name.fix")
	echo "# $name: --fix changes" $want_files
	check_that "$name: --fix changes $want, not $not" \
		'echo "$want_files" | grep -qx "$want" &&
		 ! echo "$want_files" | grep -qx "$not"'
	# A fix that edits beyond its site (the hyp code's group: a field,
	# its value at init) has no rule pinned to the site: left out, said.
	n_fix=$(sed -n 's/^trapcheck: \([0-9]*\) fix.* printed$/\1/p' "$name.err")
	n_rules=$(grep -c '^@fix[0-9]* depends on patch[ a-z_]*@' "$name.cocci")
	n_left=$(grep -c '^//# Left out' "$name.cocci")
	n_beyond=$(sed -e :a -e N -e '$!ba' -e 's|\n//#   | |g' "$name.cocci" |
		grep -c '^//# Left out: .*: its fix edits more than')
	check_that "$name: one rule per fix ($n_rules), the $n_left left out each a fix that edits beyond its site" \
		'[ -n "$n_fix" ] && [ $((n_rules + n_left)) -eq "$n_fix" ] &&
		 [ "$n_left" -eq "$n_beyond" ] && [ "$n_rules" -ge 1 ]'
	check "$name: // Options: --no-includes --include-headers (sites in headers)" \
		grep -q '^// Options: --no-includes --include-headers$' "$name.cocci"

	t=$(now)
	copy="$SCRATCH/linux-$name"
	copy_tree "$tree" "$copy"
	echo "# $name: cp -a of what make coccicheck reads in $(since "$t") s"

	coccicheck "$copy" "$SCRATCH/$name.cocci" patch
	echo "# $name: make coccicheck MODE=patch: ${cc_time} s, exit $cc_rc, $cc_match"
	cp out.patch "$name.cc.patch"
	check_that "$name: make coccicheck MODE=patch: exit 0, no spatch error" \
		'[ $cc_rc -eq 0 ] && clean_output "$name.cc.patch"'
	check_that "$name: the token prefilter ran" '[ -n "$cc_match" ]'
	sed -n '/^diff -u -p /,$p' "$name.cc.patch" > "$name.sp.diff"
	# --fix's diff of the files the rules change (not the left-out fixes').
	python3 - "$name.sp.diff" "$name.fix" > "$name.fix1" <<'PY'
import re, sys
files = set(re.findall(r'^\+\+\+ (?:b/)?(\S+)', open(sys.argv[1]).read(), re.M))
keep = False
for line in open(sys.argv[2]):
    m = re.match(r'diff --git a/(\S+) ', line)
    if m:
        keep = m.group(1) in files
    if keep:
        sys.stdout.write(line)
PY
	check "$name: its diff changes the lines trapcheck --fix changes, file for file" \
		python3 "$LINES" "$name.sp.diff" "$name.fix1"

	# Both diffs on copies of the changed files: the same files.
	mkdir "$name.a" "$name.b"
	for f in $(python3 "$LINES" --files "$name.fix1"); do
		mkdir -p "$name.a/$(dirname "$f")" "$name.b/$(dirname "$f")"
		cp "$tree/$f" "$name.a/$f"
		cp "$tree/$f" "$name.b/$f"
	done
	(cd "$name.a" && patch -s -p1 < "../$name.sp.diff") &&
		(cd "$name.b" && patch -s -p1 < "../$name.fix1")
	rc=$?
	check_that "$name: both diffs apply; the patched files are the same byte for byte" \
		'[ $rc -eq 0 ] && diff -r "$name.a" "$name.b" > /dev/null'

	coccicheck "$copy" "$SCRATCH/$name.cocci" report
	echo "# $name: make coccicheck MODE=report: ${cc_time} s, exit $cc_rc, $cc_match"
	sed 's/^/#   /' out.report | grep WARNING | cut -c1-160
	sed -n 's|^\(\./\)\{0,1\}\([^:]*:[0-9]*\):[0-9-]*: WARNING: .*|\2|p' \
		out.report | sort > "$name.rep"
	sed -n 's|^// fix[0-9]*: \([^:]*:[0-9]*\):.*|\1|p' "$name.cocci" |
		sort -u > "$name.want"
	check_that "$name: MODE=report: a WARNING at each fixed sink, nothing else" \
		'[ $cc_rc -eq 0 ] && [ -s "$name.rep" ] && cmp -s "$name.rep" "$name.want"'

	(cd "$copy" && patch -s -p1 < "$SCRATCH/$name.sp.diff")
	coccicheck "$copy" "$SCRATCH/$name.cocci" patch
	check_that "$name: on the patched copy MODE=patch has nothing left to do" \
		'[ $cc_rc -eq 0 ] && ! grep -q "^+++ " out.patch'
	t=$(now)
	rm -rf "$copy"
	echo "# $name: copy removed in $(since "$t") s; done at $(( $(date +%s) - t_start )) s"
}

CPUFEATURE=arch/arm64/include/asm/cpufeature.h
ARCHRANDOM=arch/arm64/include/asm/archrandom.h
run_tree 6.12 "$base" $ARCHRANDOM $CPUFEATURE --no-verify
run_tree revert-004 "$rev" $CPUFEATURE nothing --no-verify
check "revert-004: the __cpu_has_rng() rule is there too" \
	grep -q "^// fix[0-9]*: $ARCHRANDOM:" revert-004.cocci
if [ "${EMITCOCCI_VERIFY:-0}" = 1 ]; then
	run_tree 6.12-verified "$base" $ARCHRANDOM $CPUFEATURE
	check "6.12-verified: the __cpu_has_rng() fix is the one verified fix" \
		[ "$(python3 "$LINES" --files 6.12-verified.fix)" = $ARCHRANDOM ]
fi

echo "# emitcocci.t: $(( $(date +%s) - t_start )) s"
done_testing
