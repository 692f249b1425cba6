#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Coccinelle rules of semantic-patches/ on their fixtures (tests/cocci/):
# for every rule R and fixture R.c or R.<variant>.c, report mode prints
# exactly R[.<variant>].report, org and context modes flag the same lines,
# patch mode turns the fixture into R[.<variant>].res (the kernel's
# scripts/coccinelle convention: the expected transformed file), and spatch
# prints nothing on stderr. Then what the fixtures alone cannot show: the
# reviewed diff of the __cpu_has_rng() patch, idempotence, the scope of the CRNG rule, the hot
# function list of hot_idreg_read.
. "$(dirname "$0")/../tap.sh"
SP="$TOP/semantic-patches"
FX="$TOP/tests/cocci"
HELP="$FX/cocci-check.py"
UP=$TOP/tests/fixtures/upstream
cd "$SCRATCH" || exit 1
start=$(date +%s)

if ! command -v spatch > /dev/null; then
	fail "spatch (Coccinelle) is installed"
	done_testing
	exit 1
fi
echo "# $(spatch --version | head -n 1)"

# The options the rule's header asks for, as scripts/coccicheck reads them.
options() {
	grep "Options:" "$1" | cut -d: -f2
}

# run RULE MODE ARGS...: spatch as make coccicheck runs it (the rule's
# Options, --no-show-diff in report and org modes) on the files and options
# ARGS; stdout to out.MODE, stderr to err.MODE, exit status to rc.MODE
run() {
	_rule=$1 _mode=$2
	shift 2
	_flags="--very-quiet"
	case $_mode in report|org) _flags="--no-show-diff $_flags" ;; esac
	# shellcheck disable=SC2046
	spatch --sp-file "$_rule" -D "$_mode" $_flags $(options "$_rule") \
		"$@" > "out.$_mode" 2> "err.$_mode"
	_rc=$?
	echo $_rc > "rc.$_mode"
	return $_rc
}

nrules=0
for rule in "$SP"/*.cocci; do
	r=$(basename "$rule" .cocci)
	nrules=$((nrules + 1))
	check "$r: kernel header conventions, at most 5 matching rules" \
		python3 "$HELP" header "$rule"
	check "$r: spatch parses it" \
		sh -c "spatch --parse-cocci '$rule' -D report > /dev/null 2>&1"
	# A rule that gives spatch no token to look for parses every file of
	# the tree: an identifier list (f = {a, b}) gives none, nor does a
	# script rule that depends on nothing (hot_idreg_read took 284 s on
	# arch/arm64 that way, 3 s with the prefilter).
	spatch --parse-cocci "$rule" -D report 2>&1 |
		sed -n '/^Grep query/{n;p;}' > grep.query
	echo "# $r: grep query: $(cat grep.query)"
	check_that "$r: spatch's token prefilter has tokens to look for" \
		'[ -s grep.query ]'
	modes=$(python3 "$HELP" modes "$rule")
	check_that "$r: has a fixture with expected report lines" \
		'[ -f "$FX/$r.c" ] && [ -f "$FX/$r.report" ]'
	check_that "$r: the fixture has findings (the test can fail)" \
		'[ -s "$FX/$r.report" ]'
	case " $modes " in
	*" patch "*)
		check_that "$r: the expected patch output changes the fixture" \
			'[ -f "$FX/$r.res" ] && ! cmp -s "$FX/$r.c" "$FX/$r.res"'
		;;
	*)
		run "$rule" patch "$FX/$r.c"
		check_that "$r: no patch mode (not mechanically safe): spatch refuses it" \
			'grep -q "virtual rule patch not supported" err.patch'
		;;
	esac

	# One spatch run per mode over all of the rule's fixtures (spatch
	# starts in ~0.3 s; each file is still matched on its own).
	mkdir -p "$r" "$r/p" && cd "$r" || exit 1
	names=
	for fx in "$FX/$r".c "$FX/$r".*.c; do
		[ -f "$fx" ] || continue
		name=$(basename "$fx" .c)
		names="$names $name"
		cp "$fx" "$name.c"
		cp "$fx" "p/$name.c"
	done
	for mode in report org context; do
		# shellcheck disable=SC2046
		run "$rule" $mode $(for n in $names; do echo "$n.c"; done)
	done
	python3 "$HELP" report out.report > got.report
	python3 "$HELP" org out.org > got.org
	python3 "$HELP" context out.context > got.context
	check_that "$r: report, org and context modes: exit 0, nothing on stderr" \
		'[ "$(cat rc.report rc.org rc.context)" = "$(printf "0\n0\n0")" ] &&
		 [ ! -s err.report ] && [ ! -s err.org ] && [ ! -s err.context ]'
	check "$r: report lines are file:line:col-col: WARNING: ..." \
		python3 -c 'import re, sys
sys.exit(any(not re.match(r"^[^:]+:\d+:\d+-\d+: WARNING: ", l)
             for l in open(sys.argv[1]) if l.strip()))' out.report
	case " $modes " in *" patch "*)
		# shellcheck disable=SC2046
		(cd p && run "$rule" patch --in-place $(for n in $names; do echo "$n.c"; done))
		check_that "$r: patch mode: exit 0, nothing on stderr" \
			'[ "$(cat p/rc.patch)" = 0 ] && [ ! -s p/err.patch ]'
		# shellcheck disable=SC2046
		(cd p && run "$rule" patch $(for n in $names; do echo "$n.c"; done))
		check_that "$r: patch mode is idempotent (a second run changes nothing)" \
			'[ ! -s p/out.patch ] && [ ! -s p/err.patch ]'
		;;
	esac

	for name in $names; do
		grep "^$name\.c:" got.report > "$name.got.report"
		python3 "$HELP" report "$FX/$name.report" > "$name.want.report"
		if cmp -s "$name.got.report" "$name.want.report"; then
			ok "$name: report lines as expected"
		else
			fail "$name: report lines as expected"
			diff "$name.want.report" "$name.got.report" | sed 's/^/# /'
		fi
		grep "^$name\.c:" got.org > "$name.got.org"
		check "$name: org mode gives the report's lines and messages" \
			cmp -s "$name.got.org" "$name.want.report"
		grep "^$name\.c:" got.context | sort -u > "$name.got.context"
		cut -d: -f1,2 "$name.want.report" | sort -u > "$name.want.context"
		check "$name: context mode marks the reported lines" \
			cmp -s "$name.got.context" "$name.want.context"
		case " $modes " in *" patch "*)
			if cmp -s "p/$name.c" "$FX/$name.res"; then
				ok "$name: patch mode gives $name.res"
			else
				fail "$name: patch mode gives $name.res"
				diff -u "$FX/$name.res" "p/$name.c" | sed 's/^/# /'
			fi
			;;
		esac
	done
	cd "$SCRATCH" || exit 1
done
check "four rules or more in semantic-patches/" [ "$nrules" -ge 4 ]

# the __cpu_has_rng() patch: the rewrite is the reviewer's diff (Will Deacon's SYS_FIELD_GET()
# form after "--->8"), whitespace aside.
R="$SP/this_cpu_has_cap_prefinal.cocci"
cp "$FX/this_cpu_has_cap_prefinal.upstream.c" upstream.c
run "$R" patch upstream.c
# The upstream diffs ship with the project (tests/fixtures/upstream/).
check "this_cpu_has_cap_prefinal: __cpu_has_rng() patched to the reviewed diff of the __cpu_has_rng() patch" \
	python3 "$TOP/tests/upstream-diff.py" out.patch "$UP/cpu_has_rng-review.txt" reviewed
check "this_cpu_has_cap_prefinal: the comparison can fail (a89c6bcdac22 differs)" \
	sh -c "! python3 '$TOP/tests/upstream-diff.py' out.patch '$UP/a89c6bcdac22-v2.txt' first > /dev/null"
check_that "this_cpu_has_cap_prefinal: the !preemptible() guard is kept" \
	'grep -q "^+.*!system_capabilities_finalized() && !preemptible())) {$" out.patch'

# the RDRAND patch: the fix, character for character.
R="$SP/crng_arch_random_ungated.cocci"
run "$R" patch "$FX/crng_arch_random_ungated.c"
check_that "crng_arch_random_ungated: the RDRAND patch's line" \
	'grep -qx "+	if (unlikely(!crng_ready()) && arch_get_random_long(&v))" out.patch'
# Scope: drivers/char/random.c is CRNG code without a crng_ready()
# definition; the same code elsewhere is not.
mkdir -p drivers/char
cp "$FX/crng_arch_random_ungated.outside.c" drivers/char/random.c
run "$R" report drivers/char/random.c
check_that "crng_arch_random_ungated: drivers/char/random.c is in scope" \
	'[ "$(grep -c "^drivers/char/random.c:9:5-25: WARNING: arch_get_random_long()" out.report)" = 1 ]'
cp "$FX/crng_arch_random_ungated.outside.c" drivers/char/hw_random.c
run "$R" report drivers/char/hw_random.c
check_that "crng_arch_random_ungated: another file without crng_ready() is not" \
	'[ ! -s out.report ] && [ ! -s err.report ]'

# hot_idreg_read: the hot list comes from -D hot_functions= or -D hot_file=.
R="$SP/hot_idreg_read.cocci"
cp "$FX/hot_idreg_read.c" hot.c
run "$R" report hot.c -D hot_functions=cpu_probe_af,nosuchfunction
cut -d: -f1,2 out.report > got
check_that "hot_idreg_read: -D hot_functions= replaces the built-in list" \
	'[ "$(cat got)" = "hot.c:46" ]'
printf '# Root set "t": the roots/*.roots format\n\ndo_page_fault\n  handle_mm_fault  # a comment\n' > t.roots
run "$R" report hot.c -D hot_file=t.roots
cut -d: -f1,2 out.report | sort > got
check_that "hot_idreg_read: -D hot_file= reads a file in the roots/*.roots format" \
	'[ "$(tr "\n" " " < got)" = "hot.c:28 hot.c:29 " ]'
run "$R" report hot.c -D hot_functions=cpu_has_hw_af -D hot_file=t.roots
check_that "hot_idreg_read: both options: the union" \
	'[ "$(wc -l < out.report)" -eq 3 ] && [ ! -s err.report ]'
# The built-in list is the shipped root sets, nothing chosen for a bug: a
# helper such as cpu_has_hw_af() is hot because trapcheck's chain from a
# root reaches it, and its chain's functions are what the rule is given.
check "hot_idreg_read: the built-in list is generated from roots/*.roots (make cocci-hot)" \
	sh -c "python3 '$TOP/scripts/gen-cocci-hot.py' '$TOP/roots' '$R' gen.cocci && cmp -s gen.cocci '$R'"
check "hot_idreg_read: no function of the built-in list is outside the root sets" \
	sh -c "! sed -n '/BEGIN HOT/,/END HOT/p' '$R' | grep -q 'cpu_has_hw_af\|__cpu_has_rng'"
run "$R" report hot.c
check_that "hot_idreg_read: cpu_has_hw_af() is not a root: the built-in list misses it" \
	'! grep -q "^hot.c:18:" out.report'
"$TRAPCHECK" -p "$TOP/tests/fixtures/kernel" -q --root-set page-fault \
	--format=json -o pf.json
hot=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
print(','.join(sorted({s['function'] for f in d['findings']
     if f['function'] == 'cpu_has_hw_af' for s in f['chain']})))" pf.json)
echo "# hot functions from trapcheck's page-fault chain: $hot"
run "$R" report hot.c -D hot_functions="$hot"
check_that "hot_idreg_read: with the functions of trapcheck's chain, cpu_has_hw_af()'s read is reported" \
	'grep -q "^hot.c:18:.* in hot function cpu_has_hw_af()" out.report'
run "$R" patch hot.c
check_that "hot_idreg_read: read_sysreg(id_*) is upper-cased into SYS_ID_*" \
	'grep -qx "+	u64 mmfr0 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR0_EL1);" out.patch'
check_that "hot_idreg_read: a register outside arm64_ftr_regs[] is not rewritten" \
	'! grep -q "SYS_ID_AA64AFR0_EL1" out.patch'

# The timing baseline of docs/coccinelle.md parses and runs.
B="$FX/baseline_read_cpuid.cocci"
run "$B" context hot.c
check_that "baseline rule: runs, marks every read_cpuid()" \
	'[ ! -s err.context ] && [ "$(grep -c "^-.*read_cpuid(" out.context)" -eq 4 ]'

echo "# cocci.t: $(( $(date +%s) - start )) s"
done_testing
