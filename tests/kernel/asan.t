#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real-tree runs under AddressSanitizer, UBSan and LeakSanitizer:
# build-asan/trapcheck (make check builds it) over the arm64 kernel/ and
# drivers/char/ TUs of Linux 6.12 (with a facts database and --fix; make
# check takes a quarter of kernel/) and, in make check-full, of Linux
# 6.1. Parser processes check their own leaks before they exit. Each run
# must give no sanitizer report, no crashed or timed-out parser, and
# account for every entry: analysed, listed with its reason, or skipped.
#
# TRAPCHECK_ASAN_FULL=1 (make check-full) runs the whole 6.12 compile
# database instead of the subset (about 1,300 TUs of the full profile;
# 30-35 minutes on two cores): the figure in docs/reliability.md comes
# from it.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

asan="$TOP/build-asan/trapcheck"
check "the sanitizer build exists (make check-asan)" [ -x "$asan" ]
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1
export TRAPCHECK_ROOTS_DIR=$TOP/roots
report='ERROR: (Address|Leak)Sanitizer|runtime error|parser process ended'

# subset TREE OUT: make check takes drivers/char/ and every fourth entry
# of the arm64 kernel/ directory (in compile-database order, so always the
# same ones: about 20 TUs, half a minute); the full profile takes both
# directories whole, and TRAPCHECK_ASAN_FULL=1 (make check-full) the
# whole compile database, 6.1's too.
subset() {
	python3 - "$1/compile_commands.json" "$2" "${TRAPCHECK_ASAN_FULL:-0}" \
		"$KPROFILE" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if sys.argv[3] != '1':
    arch = [e for e in d if '/arch/arm64/kernel/' in e['file']]
    if sys.argv[4] != 'full':
        arch = arch[::4]
    d = arch + [e for e in d if '/drivers/char/' in e['file']]
json.dump(d, open(sys.argv[2], 'w'))
PY
}

# accounted JSON: entries == analysed + not analysed + skipped.
accounted() {
	python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['summary']
lost = sum(1 for p in s.get('errors', []) if not p['analysed'])
ok = s['entries'] == s['tus_analysed'] + lost + s['tus_skipped']
print('# %d entries: %d analysed, %d not analysed, %d skipped' %
      (s['entries'], s['tus_analysed'], lost, s['tus_skipped']))
sys.exit(not ok)
PY
}

tree=$(ktree 6.12)
subset "$tree" sub.json
start=$(date +%s)
"$asan" -p sub.json -j2 --db a.db --format=json -o a.json --fix \
	> fix.out 2> asan.err
rc=$?
echo "# 6.12 under ASan: exit $rc in $(( $(date +%s) - start )) s"
grep -E "$report" asan.err | head -5 | sed 's/^/# /'
check "6.12: no sanitizer report on the real tree (parser processes included)" \
	sh -c "! grep -qE '$report' asan.err"
check "6.12: the run completes with findings (exit 1)" [ $rc -eq 1 ]
check "6.12: no parser crashed or timed out" \
	sh -c "! grep -qE 'not analysed: (parser crashed|timed out)' asan.err"
"$asan" -p sub.json --db a.db -q --format=json -o b.json 2> asan2.err
check "6.12: a warm run under ASan: clean too" \
	sh -c "! grep -qE '$report' asan2.err"
# (--fix writes the diffs, not the JSON report: the warm run's summary.)
accounted b.json
check "6.12: every entry analysed, listed with its reason, or skipped" [ $? -eq 0 ]

# 6.1: make check-full (the 6.12 run above has the same code paths; 6.1's
# TUs under ASan take another minute and a half on two cores).
if [ "$KPROFILE" != full ] && [ "${TRAPCHECK_ASAN_FULL:-0}" != 1 ]; then
	echo "# 6.1 under ASan: make check-full"
	done_testing
	exit
fi
tree61=$(ktree 6.1)
subset "$tree61" sub61.json
start=$(date +%s)
"$asan" -p sub61.json -j2 --format=json -o c.json > /dev/null 2> asan61.err
rc=$?
echo "# 6.1 under ASan: exit $rc in $(( $(date +%s) - start )) s"
grep -E "$report" asan61.err | head -5 | sed 's/^/# /'
check "6.1: no sanitizer report" sh -c "! grep -qE '$report' asan61.err"
check "6.1: the run completes (exit 0 or 1), no parser crashed or timed out" \
	sh -c "[ $rc -le 1 ] && ! grep -qE 'not analysed: (parser crashed|timed out)' asan61.err"
accounted c.json
check "6.1: every entry analysed, listed with its reason, or skipped" [ $? -eq 0 ]
done_testing
