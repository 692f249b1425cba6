#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The architecture seam runs one way (docs/design.md, "An
# architecture"): an architecture is its folder checker/arch/<name>/ and
# one line of checker/model/arches.def, and nothing else names it. The
# skeleton third one, riscv (one sink, sbi_get_mvendorid()), is found
# from its compile database's compiler and -I.../arch/riscv/include,
# and reported on its fixture (tests/fixtures/riscv, // CHECK: tags).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/riscv"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" -q --format=json -o rv.json --db rv.db
rc=$?
check "riscv fixture: exit 1 (a finding)" [ $rc -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" rv.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "riscv fixture: the findings are its // CHECK: tags" [ $rc -eq 0 ]
python3 - rv.json rv.db <<'PY'
import json, sqlite3, sys
f = json.load(open(sys.argv[1]))['findings']
assert len(f) == 1, f
f = f[0]
assert f['rule'] == 'trapping-idreg-read' and f['register'] == 'MVENDORID', f
assert f['trap_class'] == 'SBI ecall', f
assert 'cache the value of MVENDORID' in f['message'], f['message']
arch = sqlite3.connect(sys.argv[2]).execute(
    "SELECT value FROM meta WHERE key = 'arch'").fetchone()[0]
assert arch == 'riscv', arch
PY
check "riscv: its trap class and the generic advice; the database records arch/riscv" [ $? -eq 0 ]

# Nothing outside its folder and arches.def names an architecture: the
# generic code reaches each through struct arch (model/arch.h) alone.
# (input/checkflags.def lists sparse's CHECKFLAGS of every kernel
# architecture, which trapcheck check drops whatever its tables.)
cd "$TOP" || exit 1
for a in riscv; do
	named=$(grep -rlisI --include='*.[ch]' --include='*.def' "$a" \
		checker include Makefile |
		grep -v "^checker/arch/$a/\|^checker/model/arches.def$\|^checker/input/checkflags.def$")
	check_that "no file of checker/, include/ or the Makefile but checker/arch/$a/ and arches.def names $a:$(echo $named)" \
		'[ -z "$named" ]'
done
check "arches.def lists every folder of checker/arch/" \
	sh -c 'for d in checker/arch/*/; do
		 grep -q "^ARCH($(basename "$d"))$" checker/model/arches.def || exit 1
	       done'
done_testing
