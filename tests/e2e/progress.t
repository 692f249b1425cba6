#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The progress line on a terminal (a pseudo-terminal from script(1)): cut
# to the terminal's width, so that a narrow terminal keeps no stale rows;
# with TERM=dumb, no escape sequences; not on a file or a pipe.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1

# tty NAME TERM COLS: a run on a COLS-wide pseudo-terminal, its bytes in
# NAME.out.
tty() {
	TERM=$2 script -qec "stty cols $3; '$TRAPCHECK' -p '$FX' -j1 -o /dev/null" \
		"$1.out" > /dev/null 2>&1
}
# widest NAME: the widest progress line ("[n/m] ..."), escapes aside.
widest() {
	python3 - "$1.out" <<'PY'
import re, sys
b = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
b = re.sub(r'\x1b\[K', '', b)
lines = [s.split('\n')[0] for s in b.split('\r') if re.match(r'\[\d+/\d+\]', s)]
print(max((len(s.rstrip()) for s in lines), default=0), len(lines))
PY
}

tty narrow xterm 40
set -- $(widest narrow)
check_that "at 40 columns: progress lines ($2), none wider than 39 ($1)" \
	"[ ${2:-0} -gt 0 ] && [ ${1:-99} -le 39 ]"
check "... the counts and the ETA first, the file cut" \
	grep -q '\[1/[0-9]*\] ETA [0-9]*m[0-9]*s ' narrow.out
tty dumb dumb 80
set -- $(widest dumb)
check_that "TERM=dumb: progress lines ($2) without an escape sequence" \
	"[ ${2:-0} -gt 0 ] && ! grep -q \"\$(printf '\\033')\" dumb.out"
"$TRAPCHECK" -p "$FX" -j1 -o /dev/null 2> file.err
check "stderr to a file: no progress line" sh -c "! grep -q \"\$(printf '\\r')\" file.err"
done_testing
