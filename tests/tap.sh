# SPDX-License-Identifier: GPL-2.0
# Minimal TAP helpers for the shell suites run by prove (git t/ style).
# Each suite sources this file, runs in its own scratch directory, and
# calls ok/fail/check; done_testing prints the plan.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
TRAPCHECK="${TRAPCHECK_BIN:-$TOP/trapcheck}"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/trapcheck-test.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
# python3 as the suite's helpers run it, hundreds of times: when the one
# on PATH is a version manager's shim (pyenv's is a shell script that
# starts several processes, 0.4 s a call against 0.1 s), the interpreter
# it picks is asked once and put first on PATH for the whole suite.
tap_py=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null)
if [ -x "$tap_py" ] && [ "$tap_py" != "$(command -v python3)" ]; then
	mkdir "$SCRATCH/.python3-bin" &&
		ln -s "$tap_py" "$SCRATCH/.python3-bin/python3" &&
		PATH="$SCRATCH/.python3-bin:$PATH"
fi
tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

fail() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
}

# check "description" command...: ok when the command succeeds.
check() {
	desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		fail "$desc"
	fi
}

# check_that "description" 'shell expression': the whole expression,
# && and || included, decides (check alone would take only the first
# command).
check_that() {
	desc=$1
	shift
	if eval "$*"; then
		ok "$desc"
	else
		fail "$desc"
	fi
}

# same_sites A.json B.json: both runs report the same sites and chains
# (tests/golden.py keys --sites), and there is at least one: the counts
# and the first differences on stdout as TAP comments.
same_sites() {
	"$TOP/tests/golden.py" keys --sites "$1" > "$1.sites" &&
		"$TOP/tests/golden.py" keys --sites "$2" > "$2.sites" ||
		return 1
	echo "# $(wc -l < "$1.sites") findings in $1, $(wc -l < "$2.sites") in $2"
	diff "$1.sites" "$2.sites" | head -n 5 | sed 's/^/#  /'
	[ -s "$1.sites" ] && cmp -s "$1.sites" "$2.sites"
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
