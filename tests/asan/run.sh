#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run an end-to-end suite with build-asan/trapcheck (AddressSanitizer,
# UndefinedBehaviorSanitizer, LeakSanitizer): tests/asan/<suite>.t. make
# check runs these suites this way only, in the same prove run as the
# other suites (both cores busy to the end); make check-asan and make
# check-full run them with the release binary too.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TRAPCHECK_BIN="$TOP/build-asan/trapcheck"
# A report exits 86 (LeakSanitizer: 23), a status no trapcheck run
# has: a suite that checks exit statuses fails on it, where ASan's
# default 1 would pass for "findings".
# verify_asan_link_order=0: dbfail.t preloads its write-failure shim.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:verify_asan_link_order=0
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp"
export UBSAN_OPTIONS=print_stacktrace=1:exitcode=86
export TRAPCHECK_ROOTS_DIR="$TOP/roots"
if [ ! -x "$TRAPCHECK_BIN" ]; then
	echo "1..1"
	echo "not ok 1 - $TRAPCHECK_BIN is built (make build-asan/trapcheck)"
	exit 1
fi
exec sh "$TOP/tests/e2e/$1.t"
