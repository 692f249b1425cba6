#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A second architecture: an x86 compile database (tests/fixtures/x86) is
# analysed with x86's tables. CPUID through the kernel's wrappers (the
# leaf recorded as written) and through a library's own inline assembly
# is reported on the page fault path with x86's trap class and advice
# (CPUID with no output operand as serializing, with its own advice);
# native_cpuid()'s own asm (behind the opaque wrappers), CPUID at boot,
# in a machine check's report (do_machine_check() is cold) and RDTSC are
# not; the database records arch/x86 and gives the same
# findings back; there is no rewrite for x86, and --fix says so.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/x86"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --format=json -o x.json 2> x.err
rc=$?
check "the x86 fixture: findings, exit 1" [ $rc -eq 1 ]
check "no unknown-flag warning for kbuild's x86 flags (-m64 ...)" \
	sh -c '! grep -q "unknown compiler flag" x.err'
python3 "$TOP/tests/e2e/check-tags.py" "$FX" x.json
check "findings match the CHECK tags (file, line, rule, root set, chain)" \
	[ $? -eq 0 ]
python3 - x.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by_file = {f['file']: f for f in d['findings'] if f['sink'] != 'asm:cpuid'
           or f['file'] != 'arch/x86/mm/fault.c'}
w = by_file['arch/x86/mm/fault.c']
assert w['sink'] == 'cpuid_ebx' and w['register'] == 'CPUID', w
assert w['trap_class'] == 'unconditional CPUID exit', w
assert w['message'].startswith('cpuid_ebx(0x7) reads CPUID'), w['message']
assert 'boot_cpu_has()' in w['message'], w['message']
assert 'read_sanitised_ftr_reg' not in w['message'], w['message']
a = by_file['lib/lzx/cpu.h']
assert a['sink'] == 'asm:cpuid' and a['function'] == 'lzx_cpuid_bmi2', a
assert a['message'].startswith('inline assembly executes cpuid ('), a
assert 'boot_cpu_has()' in a['message'], a
# CPUID with no output operand serializes: another advice.
s = [f for f in d['findings'] if f['function'] == 'fault_serialize']
assert len(s) == 1 and s[0]['sink'] == 'asm:cpuid', s
assert s[0]['message'].startswith('inline assembly executes cpuid to '
                                  'serialize (no output operand'), s
assert 'SERIALIZE' in s[0]['message'], s
assert 'boot_cpu_has()' not in s[0]['message'], s
PY
check "JSON: the wrapper's leaf, the asm sites (read, serialize), x86's trap class and advice" \
	[ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --db x.db -q --format=json -o d1.json
"$TRAPCHECK" -p "$FX" --db x.db -q --format=json -o d2.json
check_that "the database records arch/x86" \
	'[ "$(sqlite3 x.db "select value from meta where key = '"'arch'"'")" = x86 ]'
check_that "a warm run gives the cold run's findings back (asm sinks stored)" \
	'python3 -c "import json, sys; a, b = (json.load(open(f))[\"findings\"] for f in sys.argv[1:]); sys.exit(a != b or len(a) != 3)" d1.json d2.json'
"$TRAPCHECK" report --db x.db --format=json -o r.json 2> r.err
check_that "report --db takes the architecture from the database" \
	'python3 -c "import json, sys; a, b = (json.load(open(f))[\"findings\"] for f in sys.argv[1:]); sys.exit(a != b)" d1.json r.json'

"$TRAPCHECK" -p "$FX" --fix > fix.out 2> fix.err
check_that "--fix: no patch, and a note per site saying x86 has no rewrite" \
	'[ ! -s fix.out ] && [ "$(grep -c "no fix: no rewrite of this read for x86" fix.err)" -eq 3 ]'
done_testing
