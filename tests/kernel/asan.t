#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real-tree run under AddressSanitizer, UBSan and LeakSanitizer:
# build-asan/trapcheck (make check builds it) over the arm64 kernel/ and
# drivers/char/ TUs of Linux 6.12, with a facts database and --fix.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1

asan="$TOP/build-asan/trapcheck"
check "the sanitizer build exists (make check-asan)" [ -x "$asan" ]
tree=$("$TOP/scripts/kernel-tree.sh" 6.12 | tail -n 1)
python3 - "$tree/compile_commands.json" sub.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump([e for e in d if '/arch/arm64/kernel/' in e['file'] or
           '/drivers/char/' in e['file']], open(sys.argv[2], 'w'))
PY
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1
export TRAPCHECK_ROOTS_DIR=$TOP/roots
start=$(date +%s)
"$asan" -p sub.json -j2 --db a.db --format=json -o a.json --fix \
	> fix.out 2> asan.err
rc=$?
echo "# under ASan: exit $rc in $(( $(date +%s) - start )) s"
grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' asan.err | head -5 |
	sed 's/^/# /'
check "no sanitizer report on the real tree" \
	sh -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error' asan.err"
check "the run completes with findings (exit 1)" [ $rc -eq 1 ]
"$asan" -p sub.json --db a.db -q --format=json -o b.json 2> asan2.err
check "a warm run under ASan: clean too" \
	sh -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error' asan2.err"
done_testing
