#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Coccinelle rules of semantic-patches/ under the kernel's own
# `make coccicheck` on the real trees (Debian's linux-source-6.12 and 6.1,
# arm64, from scripts/kernel-tree.sh): every rule in every mode it declares
# on arch/arm64, J=2 (on 6.1, make check runs report mode only and make
# check-full every mode). With --jobs, spatch makes a scratch directory in
# the tree it runs in, so each run goes to a `cp -a` copy under $SCRATCH, never
# the cached tree: a copy of what `make coccicheck M=arch/arm64` reads (the
# top-level files, scripts/, include/, arch/arm64/: ~125 MB, seconds; the
# whole 1.8 GB tree took 10-45 s to copy and up to 5 minutes to remove).
# The upstream-patch variants of 6.12 (tests/kernel/tree-variant.py) and drivers/char
# are only read, by spatch run from $SCRATCH on one file.
. "$(dirname "$0")/../tap.sh"
SP="$TOP/semantic-patches"
FX="$TOP/tests/cocci"
HELP="$FX/cocci-check.py"
. "$TOP/tests/kernel/lib.sh"
UP=$TOP/tests/fixtures/upstream
BASELINE="$FX/baseline_read_cpuid.cocci"
KMAKE="make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
cd "$SCRATCH" || exit 1
t_start=$(date +%s)

. "$TOP/tests/kernel/cocci-lib.sh"

# coccicheck TREE RULE MODE [DIR]: out.<rule>.<mode>, rc and time
coccicheck() {
	_t=$(now)
	$KMAKE -C "$1" coccicheck MODE="$3" COCCI="$2" M="${4:-arch/arm64}" J=2 \
		> "out.$(basename "$2" .cocci).$3" 2>&1
	cc_rc=$?
	cc_time=$(since "$_t")
	cc_match=$(grep -o '^[0-9]* files match' "out.$(basename "$2" .cocci).$3")
}

# spatch_file RULE MODE TREE FILE [SPATCH OPTIONS]: spatch on one file of a
# tree, run from $SCRATCH (without --jobs spatch writes nothing next to the
# file); file names in one.MODE are relative to TREE
spatch_file() {
	_rule=$1 _mode=$2 _tree=$3 _file=$4
	shift 4
	_flags="--very-quiet"
	case $_mode in report|org) _flags="--no-show-diff $_flags" ;; esac
	# shellcheck disable=SC2046
	spatch --sp-file "$_rule" -D "$_mode" $_flags \
		$(grep "Options:" "$_rule" | cut -d: -f2) "$@" \
		--patch "$_tree" "$_tree/$_file" 2> "one.$_mode.err" |
		sed "s|$_tree/||" > "one.$_mode"
}

for ver in 6.12 6.1; do
	tree=$(ktree "$ver")
	check "$ver: kernel tree prepared" [ -f "$tree/.config" ]
	t=$(now)
	copy="$SCRATCH/linux-$ver"
	copy_tree "$tree" "$copy"
	echo "# $ver: cp -a of the tree's top level, scripts/, include/, arch/arm64/ in $(since "$t") s"
	check_that "$ver: the copy has every source file of arch/arm64" \
		'[ "$(cd "$tree" && find arch/arm64 -name "*.[ch]" | sort | md5sum)" = \
		   "$(cd "$copy" && find arch/arm64 -name "*.[ch]" | sort | md5sum)" ]'
	# 6.1 in make check: report mode only, which parses what the other
	# modes parse; every mode in make check-full.
	report_only=
	[ "$ver" = 6.1 ] && [ "$KPROFILE" != full ] && report_only=1

	for rule in "$BASELINE" "$SP"/*.cocci; do
		r=$(basename "$rule" .cocci)
		modes=$(python3 "$HELP" modes "$rule")
		if [ -n "$report_only" ]; then
			case " $modes " in
			*" report "*) modes=report ;;
			esac
		fi
		for mode in $modes; do
			coccicheck "$copy" "$rule" "$mode"
			echo "# $ver $r MODE=$mode: ${cc_time} s, exit $cc_rc, $cc_match"
			out="out.$r.$mode"
			check_that "$ver $r MODE=$mode: exit 0, no spatch error" \
				'[ $cc_rc -eq 0 ] && clean_output "$out"'
			check_that "$ver $r MODE=$mode: the token prefilter ran" \
				'[ -n "$cc_match" ]'
			grep ': WARNING: \|TODO' "$out" | sed 's/^/#   /' | cut -c1-160
			cp "$out" "$ver.$out"
		done
		case " $modes " in *" report "*" org "*|*" org "*" report "*)
			python3 "$HELP" report "out.$r.report" > rep
			python3 "$HELP" org "out.$r.org" > org
			python3 "$HELP" context "out.$r.context" > ctx
			cut -d: -f1,2 rep | sort -u > rep.lines
			check_that "$ver $r: report, org and context modes agree" \
				'cmp -s rep org && cmp -s rep.lines ctx'
			;;
		esac
		case " $modes " in
		*" patch "*) ;;
		*)
			[ "$rule" = "$BASELINE" ] || [ -n "$report_only" ] && continue
			coccicheck "$copy" "$rule" patch
			check_that "$ver $r: no patch mode: make coccicheck MODE=patch refuses it" \
				'grep -q "virtual rule patch not supported" "out.$r.patch"'
			;;
		esac
	done
	if [ "$ver" = 6.12 ]; then
		rng_copy=$copy
	else
		t=$(now)
		rm -rf "$copy"
		echo "# $ver: copy removed in $(since "$t") s"
	fi
	echo "# $ver: done at $(( $(date +%s) - t_start )) s"
done

# --- Linux 6.12: the __cpu_has_rng() patch -------------------------------------------------
P=this_cpu_has_cap_prefinal
rng_line=$(grep -n 'return this_cpu_has_cap(ARM64_HAS_RNG);' \
	"$rng_copy/arch/arm64/include/asm/archrandom.h" | cut -d: -f1)
check "6.12: archrandom.h:65 is the __cpu_has_rng() patch's this_cpu_has_cap(ARM64_HAS_RNG)" \
	[ "$rng_line" = 65 ]
check_that "6.12 $P: reports arch/arm64/include/asm/archrandom.h:65, and only it" \
	'[ "$(grep ": WARNING: " 6.12.out.$P.report | cut -d: -f1,2)" = "arch/arm64/include/asm/archrandom.h:65" ]'
check "6.12 $P: MODE=patch gives the reviewed diff of the __cpu_has_rng() patch (after --->8)" \
	python3 "$TOP/tests/upstream-diff.py" --file arch/arm64/include/asm/archrandom.h \
	"6.12.out.$P.patch" "$UP/cpu_has_rng-review.txt" reviewed
check_that "6.12 $P: the patch touches archrandom.h only" \
	'[ "$(grep -c "^+++ " 6.12.out.$P.patch)" = 1 ]'
base=$(ktree 6.12)
fix000=$(kvariant "$base" fix-000)
sed -n '/^diff -u -p /,$p' "6.12.out.$P.patch" > rng.patch
check_that "6.12 $P: the patch applies, and gives the reviewed archrandom.h byte for byte" \
	'(cd "$rng_copy" && patch -s -p1 < "$SCRATCH/rng.patch") &&
	 cmp -s "$rng_copy/arch/arm64/include/asm/archrandom.h" "$fix000/arch/arm64/include/asm/archrandom.h"'
coccicheck "$rng_copy" "$SP/sanitised_no_preempt_guard.cocci" report
check_that "6.12 $P: the rewrite keeps the guard (sanitised_no_preempt_guard: nothing)" \
	'[ $cc_rc -eq 0 ] && ! grep -q ": WARNING: " out.sanitised_no_preempt_guard.report'
coccicheck "$rng_copy" "$SP/$P.cocci" patch
check_that "6.12 $P: on the patched tree MODE=patch has nothing left to do" \
	'[ $cc_rc -eq 0 ] && ! grep -q "^+++ " out.$P.patch'
t=$(now)
rm -rf "$rng_copy"
echo "# 6.12: copy removed in $(since "$t") s; __cpu_has_rng() checks done at $(( $(date +%s) - t_start )) s"

# --- the upstream-patch variants of 6.12, one header each --------------------
nopre=$(kvariant "$base" fix-000-nopreempt)
spatch_file "$SP/sanitised_no_preempt_guard.cocci" report "$nopre" arch/arm64/include/asm/archrandom.h
sed 's/^/#   /' one.report | cut -c1-160
check_that "fix-000-nopreempt: sanitised_no_preempt_guard reports archrandom.h:69" \
	'[ "$(cut -d: -f1,2 one.report)" = "arch/arm64/include/asm/archrandom.h:69" ] && [ ! -s one.report.err ]'
spatch_file "$SP/sanitised_no_preempt_guard.cocci" report "$fix000" arch/arm64/include/asm/archrandom.h
check_that "fix-000 (guard kept): sanitised_no_preempt_guard reports nothing" \
	'[ ! -s one.report ] && [ ! -s one.report.err ]'

H=hot_idreg_read
rev=$(kvariant "$base" revert-004)
spatch_file "$SP/$H.cocci" report "$rev" arch/arm64/include/asm/cpufeature.h
check_that "revert-004: $H's built-in list (the root sets) does not name cpu_has_hw_af()" \
	'! grep -q "in hot function cpu_has_hw_af()" one.report && [ ! -s one.report.err ]'
# The hot functions are what trapcheck's page-fault chains to the read
# pass through (its database of the reverted tree: tests/kernel/lib.sh).
kdb "$rev" rev.db "$base"
"$TRAPCHECK" -p "$rev" --db rev.db -q --root-set page-fault --format=json \
	-o rev.json
hot=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
print(','.join(sorted({s['function'] for f in d['findings']
     if f['register'] == 'ID_AA64MMFR1_EL1' and f['sink'] == 'read_cpuid'
     for c in [f['chain']] + f['other_chains'] for s in c})))" rev.json)
echo "# hot functions from trapcheck's chains: $hot" | cut -c1-200
spatch_file "$SP/$H.cocci" report "$rev" arch/arm64/include/asm/cpufeature.h \
	-D hot_functions="$hot"
sed 's/^/#   /' one.report | cut -c1-160
check_that "revert-004: given trapcheck's chain, $H reports cpu_has_hw_af()'s read_cpuid at cpufeature.h:877" \
	'[ "$(cut -d: -f1,2 one.report)" = "arch/arm64/include/asm/cpufeature.h:877" ] &&
	 grep -q "in hot function cpu_has_hw_af()" one.report && [ ! -s one.report.err ]'
spatch_file "$SP/$H.cocci" patch "$rev" arch/arm64/include/asm/cpufeature.h \
	-D hot_functions="$hot"
check "revert-004: $H's patch is a89c6bcdac22's code change (its comment aside)" \
	python3 "$TOP/tests/upstream-diff.py" --code-only one.patch "$UP/a89c6bcdac22-v2.txt" first
mkdir -p r004/arch/arm64/include/asm
cp "$rev/arch/arm64/include/asm/cpufeature.h" r004/arch/arm64/include/asm/
check_that "revert-004: the patch restores Linux 6.12's cpufeature.h byte for byte" \
	'(cd r004 && patch -s -p1 < ../one.patch) &&
	 cmp -s r004/arch/arm64/include/asm/cpufeature.h "$base/arch/arm64/include/asm/cpufeature.h"'

# --- drivers/char: the CRNG rule where the CRNG is ------------------------
C=crng_arch_random_ungated
for ver in 6.12 6.1; do
	tree=$(ktree "$ver")
	spatch_file "$SP/$C.cocci" report "$tree" drivers/char/random.c
	check_that "$ver drivers/char/random.c: $C runs clean, nothing ungated (the RDRAND patch is in)" \
		'[ ! -s one.report ] && [ ! -s one.report.err ]'
done

echo "# coccicheck.t: $(( $(date +%s) - t_start )) s"
done_testing
