#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rule switches and report filters on the fixture tree, as gcc and sparse
# spell them: -Wno-RULE drops that rule's findings and nothing else,
# -WRULE brings them back, -Wno-error[=RULE] and -Werror[=RULE] decide
# the exit status; --only DIR keeps the findings under DIR, the whole tree
# still analysed; an unknown rule or option is one line and exit 2.
# (trapcheck check's switches, from make C=2 CF=...: tests/e2e/db.t.)
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1

# run NAME ARGS...: the fixture's findings as JSON in NAME.json, the exit
# status in NAME.rc
run() {
	_n=$1
	shift
	"$TRAPCHECK" -p "$FX" -q --format=json -o "$_n.json" "$@" 2> "$_n.err"
	echo $? > "$_n.rc"
}
# sites NAME [RULE-TO-DROP]: file:line:rule:root of each finding, sorted
sites() {
	python3 - "$1.json" "${2:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in sorted('%s:%d:%s:%s' % (f['file'], f['line'], f['rule'], f['root'])
                for f in d['findings'] + d.get('low_confidence', [])
                if f['rule'] != sys.argv[2]):
    print(f)
PY
}

run all
sites all > all.sites
check_that "the fixture: findings of preempt-guard and of other rules, exit 1" \
	'[ "$(cat all.rc)" = 1 ] && grep -q ":preempt-guard:" all.sites &&
	 grep -vq ":preempt-guard:" all.sites'
run nopg -Wno-preempt-guard
sites nopg > nopg.sites
sites all preempt-guard > want.sites
check_that "-Wno-preempt-guard: every finding but preempt-guard's, the same" \
	'cmp -s nopg.sites want.sites && [ "$(cat nopg.rc)" = 1 ]'
run back -Wno-preempt-guard -Wpreempt-guard
sites back > back.sites
check "-Wno-preempt-guard -Wpreempt-guard: all of them again" \
	cmp -s back.sites all.sites
run noerr -Wno-error
sites noerr > noerr.sites
check_that "-Wno-error: the same findings, exit 0" \
	'cmp -s noerr.sites all.sites && [ "$(cat noerr.rc)" = 0 ]'
run one -Wno-error -Werror=slow-entropy
check_that "-Wno-error -Werror=slow-entropy: exit 1 (a slow-entropy finding is there)" \
	'grep -q ":slow-entropy:" all.sites && [ "$(cat one.rc)" = 1 ]'
run onlypg -Wno-error -Werror=preempt-guard -Wno-preempt-guard
check "-Werror=preempt-guard then -Wno-preempt-guard: the last word wins, exit 0" \
	[ "$(cat onlypg.rc)" = 0 ]

run bad -Wno-no-such-rule
check_that "-Wno-no-such-rule: exit 2, one line naming the rules" \
	'[ "$(cat bad.rc)" = 2 ] && [ "$(wc -l < bad.err)" = 1 ] &&
	 grep -q "^trapcheck: error: -Wno-no-such-rule: no rule .no-such-rule. (rules: trapping-idreg-read, .*preempt-guard, local-cap-check, trapping-msr-read, trapping-pmc-read)$" bad.err &&
	 [ ! -e bad.json ]'
"$TRAPCHECK" -p "$FX" --no-such-option > opt.out 2> opt.err
rc=$?
check_that "an unknown option: exit 2, one line, no help" \
	'[ $rc -eq 2 ] && [ ! -s opt.out ] && [ "$(wc -l < opt.err)" = 1 ] &&
	 grep -q "^trapcheck: error: unknown option .--no-such-option. (trapcheck --help lists them)$" opt.err'

run only --only arch/arm64/mm/
sites only > only.sites
grep '^arch/arm64/mm/' all.sites > want.sites
check_that "--only arch/arm64/mm/: the findings under it, all of them" \
	'[ -s only.sites ] && cmp -s only.sites want.sites'
run only2 --only ./drivers --only arch/arm64/include
sites only2 > only2.sites
grep '^drivers/\|^arch/arm64/include/' all.sites > want2.sites
check_that "--only twice, with ./ and without the slash: both directories' findings" \
	'[ -s only2.sites ] && cmp -s only2.sites want2.sites'
run part --only arch/arm64/m
check_that "--only arch/arm64/m (a prefix of a name, no directory): no analysed file there, exit 2 (not a green run that checked nothing)" \
	'[ "$(cat part.rc)" = 2 ] && grep -q "^trapcheck: error: --only arch/arm64/m: no analysed file is there" part.err'

# A tree's .trapcheck: the options a team shares, read before the command
# line's (which wins); paths relative to the file; --no-config skips it.
cp -a "$FX" tree
printf '# shared\n-Wno-preempt-guard\n--only arch/arm64/\n--waivers tools/waive.txt\n' \
	> tree/.trapcheck
mkdir -p tree/tools
printf 'local-cap-check __cpu_has_rng early boot only, measured\n' > tree/tools/waive.txt
"$TRAPCHECK" -p tree --format=json -o cfg.json 2> cfg.err
sites cfg > cfg.sites
grep '^arch/arm64/' all.sites | grep -v ':preempt-guard:' |
	grep -v '^arch/arm64/include/asm/archrandom.h:.*:local-cap-check:' > want.sites
check_that "the tree's .trapcheck: -Wno-preempt-guard, --only arch/arm64/ and a waiver (path relative to it) applied" \
	'[ -s cfg.sites ] && cmp -s cfg.sites want.sites &&
	 grep -q "^trapcheck: options from tree/.trapcheck$" cfg.err'
"$TRAPCHECK" -p tree --format=json -o cfg2.json -Wpreempt-guard --no-waivers 2> /dev/null
check "... the command line wins (-Wpreempt-guard)" grep -q '"rule": "preempt-guard"' cfg2.json
"$TRAPCHECK" -p tree --no-config --format=json -o cfg3.json 2> cfg3.err
sites cfg3 > cfg3.sites
check_that "... --no-config: the fixture's findings, no word of the file" \
	'cmp -s cfg3.sites all.sites && ! grep -q "options from" cfg3.err'
printf -- '--format=json\n' >> tree/.trapcheck
"$TRAPCHECK" -p tree -q -o /dev/null > bad.out 2> cfgbad.err
rc=$?
check_that "... an option a configuration may not set: exit 2, naming file and line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < cfgbad.err)" = 1 ] &&
	 grep -q "^trapcheck: error: tree/.trapcheck:5: .--format=json.: not an option a configuration file sets" cfgbad.err'

# The other command-line refusals: one line each, exit 2.
# refused NAME WANT ARGS...: exit 2 and the one line WANT
refused() {
	_n=$1 _w=$2
	shift 2
	"$TRAPCHECK" "$@" > "$_n.out" 2> "$_n.err"
	_rc=$?
	[ $_rc -eq 2 ] && [ ! -s "$_n.out" ] && [ "$(cat "$_n.err")" = "$_w" ]
}
check "an option without its argument" \
	refused noarg "trapcheck: error: option '--format' needs an argument (trapcheck --help)" -p "$FX" --format
check "--diff and --diff-range together" \
	refused both "trapcheck: error: --diff or --diff-range, not both" -p "$FX" --diff x.patch --diff-range A..B
check "trapcheck trace with --format=codequality" \
	refused tcq "trapcheck: error: trapcheck trace writes text, json or sarif, not codequality" trace t.dat -p "$FX" --vmlinux v --format=codequality
check "a subcommand with too few arguments" \
	refused words "trapcheck: error: path takes 2 arguments, not 1 (trapcheck --help)" path a -p "$FX"
printf -- '--max-targets=0\n' > tree/.trapcheck
"$TRAPCHECK" -p tree -q -o /dev/null > cfgval.out 2> cfgval.err
rc=$?
check_that "a .trapcheck option with a bad value: exit 2, the value's error, then file and line" \
	'[ $rc -eq 2 ] && [ "$(cat cfgval.err)" = "trapcheck: error: --max-targets needs a positive number
trapcheck: error: tree/.trapcheck:1: the option above is wrong" ]'

# A .trapcheck comes with the tree (a merge request may add one): the
# files it names must be inside the tree, or CI would read, and print in
# an error, what lies outside (/proc/self/environ: the job's tokens).
for where in /proc/self/environ ../outside.roots env.roots; do
	ln -sf /proc/self/environ tree/env.roots
	printf -- '--roots=%s\n' "$where" > tree/.trapcheck
	"$TRAPCHECK" -p tree -q -o /dev/null > out.out 2> out.err
	rc=$?
	check_that ".trapcheck --roots=$where: exit 2, one line, nothing of the file printed" \
		'[ $rc -eq 2 ] && [ "$(cat out.err)" = "trapcheck: error: tree/.trapcheck:1: --roots: a configuration file names files inside its tree only" ]'
done
rm -f tree/env.roots
printf -- '--roots=variants.roots\n' > tree/.trapcheck
"$TRAPCHECK" -p tree -q -o /dev/null 2> in.err
rc=$?
check_that "... a roots file inside the tree is read" '[ $rc -eq 1 ] && ! [ -s in.err ]'

done_testing
