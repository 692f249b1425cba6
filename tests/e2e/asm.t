#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Assembly sources (--assembly, clang/asm.c): a .S entry of the compile
# database is preprocessed with its own flags, its assembler macros
# expanded (read_ctr inside dcache_line_size, as asm/assembler.h writes
# them), and read for symbols, branches and trapping instructions: an
# mrs of CTR_EL0 under alternative_if_not ARM64_MISMATCHED_CACHE_TYPE is
# a warning at the .S line that invokes the macro, with that feature
# condition; a C call into the assembly (clear_page()) and the
# assembly's branch to C (b clear_page_account) are edges; an mrs of a
# register no trap table names is no sink; "alternative_if CAP; b .Lskip;
# alternative_else_nop_endif" makes what follows up to .Lskip run unless
# CAP (as cache.S's caches_clean_inval_pou_macro), "alternative_if CAP;
# ret" up to the symbol's end (icache_inval_pou); a C caller's
# !test_bit(PG_dcache_clean, ...) makes the rate per executable mapping
# of a page written since its last maintenance (arm64's SUBSET line,
# matched before the generic test_bit( one); a capability the
# preprocessor replaced by its number is named again from the generated
# capability header (and not from another header's equal number).
# With --no-assembly the .S is
# skipped and the read only the assembly reaches is not reported.
# Expectations are the fixture's tags (check-tags.py).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/asm"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --assembly --format=json \
	-o a.json --db a.db
check "the asm fixture with --assembly: exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" a.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its warnings are its tags (the two .S reads, their conditions, and the C read the assembly reaches)" [ $rc -eq 0 ]
python3 - a.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert (s['tus_analysed'], s['tus_skipped'], s['sinks']) == (2, 0, 5), s
# No alternative's condition leaks past its symbol's end (a nested
# macro's expansion numbered the labels of the one around it apart).
ic = [x for x in d['findings'] if x['function'] == 'icache_inval'][0]
assert sorted(c['text'] for c in ic['conditions']) == [
    '!alternative_has_cap_unlikely(ARM64_HAS_CACHE_DIC)',
    '!alternative_has_cap_unlikely(ARM64_MISMATCHED_CACHE_TYPE)'], ic['conditions']
f = [x for x in d['findings'] if x['function'] == 'clear_page'][0]
assert f['message'].startswith(
    'assembly executes mrs of CTR_EL0 (traps under HCR_EL2.TID2) on a hot '
    'path; '), f['message']
assert f['message'].endswith(
    '; from assembly, load a copy kept in memory or pass the value in '
    'from C'), f['message']
assert (f['file'], f['line'], f['function']) == (
    'arch/arm64/lib/clear_page.S', 22, 'clear_page'), f
# A macro line with two reads (the D- and I-cache line sizes): two
# sites, columns 1 and 2, each under its own alternative.
pou = sorted((x['line'], x['column'], [c['text'] for c in x['conditions']
               if 'HAS_CACHE_' in c['text']])
             for x in d['findings'] if x['function'] == 'caches_clean_pou')
assert pou == [
    (53, 1, ['!alternative_has_cap_unlikely(ARM64_HAS_CACHE_IDC)']),
    (53, 2, ['!alternative_has_cap_unlikely(ARM64_HAS_CACHE_DIC)'])], pou
PY
check "JSON: the .S site (line of the macro's invocation), its message and the summary's counts; a macro line's two reads are two sites" [ $? -eq 0 ]

check_that "callers clear_page: its C caller" \
	'[ "$("$TRAPCHECK" callers clear_page --db a.db)" = "$(printf "fault_root\tmm/fault.c:53:2")" ]'
check_that "callees clear_page: the local routine and the C function it branches to" \
	'"$TRAPCHECK" callees clear_page --db a.db > callees.out &&
	 grep -q "^__clear_page_tail	arch/arm64/lib/clear_page.S:27:1$" callees.out &&
	 grep -q "^clear_page_account	arch/arm64/lib/clear_page.S:29:1$" callees.out &&
	 [ "$(wc -l < callees.out)" -eq 2 ]'
check_that "path from the C root through the assembly to C" \
	'"$TRAPCHECK" path fault_root clear_page_account --db a.db | grep -q "clear_page	arch/arm64/lib/clear_page.S:29:1"'

rm -rf fx && cp -r "$FX" fx
"$TRAPCHECK" -p fx --roots-dir fx --assembly --fix > fix.out 2> fix.err
check_that "--fix: no rewrite of a .S line, the reason said; the tree untouched" \
	'grep -q "^arch/arm64/lib/clear_page.S:22:1: note: no fix: an assembly source: no rewrite is written there (load a copy kept in memory, or pass the value in from C)$" fix.err &&
	 diff -r "$FX" fx > /dev/null'

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --no-assembly --format=json -o c.json
python3 - c.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert (s['tus_analysed'], s['tus_skipped']) == (1, 1), s
assert not d['findings'] and not d['low_confidence'], d['findings']
PY
check "--no-assembly: the .S skipped, nothing reported" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --format=json -o e.json
python3 - a.json e.json <<'PY'
import json, sys
a, e = (json.load(open(f)) for f in sys.argv[1:])
assert a['findings'] == e['findings'] and a['findings'], e['findings']
assert a['low_confidence'] == e['low_confidence']
PY
check "--assembly is the default: the same findings without it" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --no-assembly --format=json -o d.json --db a.db
python3 - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert (s['tus_analysed'], s['tus_skipped']) == (1, 1), s
assert not d['findings'] and not d['low_confidence'], d['findings']
PY
check "--no-assembly on a database that holds the .S's facts: they are not linked" [ $? -eq 0 ]
# A .S that does not preprocess: its error, the rest analysed, no success.
rm -rf bad && cp -r "$FX" bad && echo '#include "nonexistent.h"' >> bad/arch/arm64/lib/clear_page.S
"$TRAPCHECK" -p bad --roots-dir bad --assembly > bad.out 2> bad.err
rc=$?
check_that "a .S that does not preprocess: a note with its compiler's error, the C TU analysed, exit 4 (too little analysed)" \
	'[ $rc -eq 4 ] &&
	 grep -q "^arch/arm64/lib/clear_page.S: note: not analysed: the preprocessor failed (aarch64-linux-gnu-gcc -E -x assembler-with-cpp): .*clear_page.S:[0-9]*:[0-9]*: fatal error: nonexistent.h: No such file or directory$" bad.err &&
	 grep -q "1 TUs analysed (1 with errors" bad.err'
# The build's own compiler preprocesses (in the entry's directory, its
# dependency output dropped: nothing written in the tree); where it is
# not installed, clang with the translated flags: the same findings.
rm -rf own && cp -r "$FX" own
sum_before=$(find own -type f | sort | xargs cat | md5sum)
"$TRAPCHECK" -p own --roots-dir own --format=json -o own.json 2> own.err
rc_own=$?
rm -f own.json.keep && cp own.json own.json.keep
check_that "the build's compiler preprocesses the .S, and writes nothing in the tree (no .d file)" \
	'[ $rc_own -eq 1 ] &&
	 [ "$(find own -type f ! -name own.json | sort | xargs cat | md5sum)" = "$sum_before" ]'
sed -i 's/aarch64-linux-gnu-gcc/aarch64-linux-gnu-trapcheck-missing-gcc/' own/compile_commands.json
"$TRAPCHECK" -p own --roots-dir own --format=json -o own2.json 2> own2.err
rc_own2=$?
python3 - own.json.keep own2.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: sorted((f['file'], f['line'], f['rule'], f['function'])
                       for f in d['findings'])
assert key(a) == key(b) and any(f['file'].endswith('.S') for f in a['findings']), (key(a), key(b))
PY
rc_same=$?
check_that "its compiler not installed: clang preprocesses instead, the same findings" \
	'[ $rc_own2 -eq 1 ] && [ $rc_same -eq 0 ]'
# mrs_s (tests/fixtures/mrss): an MRS the assembler sees only as its
# encoding, .inst(0xd5200000|sys_reg(...)|...), is an mrs of the register
# whose SYS_* definition has that encoding: GMID_EL1 (TID5) is reported;
# msr_s (a write) and TPIDR2_EL0 (no trap table) are not.
MX="$TOP/tests/fixtures/mrss"
"$TRAPCHECK" -p "$MX" --roots-dir "$MX" -q --format=json -o m.json
rc=$?
python3 "$TOP/tests/e2e/check-tags.py" "$MX" m.json > mtags.out
rc_tags=$?
python3 - m.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f, = d['findings']
assert f['message'].startswith('assembly executes mrs of GMID_EL1 (traps '
                               'under HCR_EL2.TID5)'), f['message']
assert d['summary']['sinks'] == 1, d['summary']
PY
rc_py=$?
check_that "mrs_s: the encoded read of GMID_EL1 is a sink at its macro's invocation; msr_s and an untrapped register are not" \
	'[ $rc -eq 1 ] && [ $rc_tags -eq 0 ] && [ $rc_py -eq 0 ]'
done_testing
