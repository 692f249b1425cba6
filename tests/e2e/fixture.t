#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End to end on the bundled kernel-shaped tree: the expectations live in
# the fixture's sources as // CHECK: tags (tests/e2e/check-tags.py).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" -q --roots "$FX/variants.roots" --format=json -o out.json
check "exit status 1 when there are findings" [ $? -eq 1 ]
check "findings match the CHECK tags (file, line, rule, root, chain)" \
	python3 "$TOP/tests/e2e/check-tags.py" "$FX" out.json

"$TRAPCHECK" -p "$FX" -q -j1 > j1.txt
"$TRAPCHECK" -p "$FX" -q -j4 > j4.txt
check "-j1 and -j4 give identical output" cmp -s j1.txt j4.txt

check "text output is gcc-style with the rule in brackets" \
	grep -q '^arch/arm64/include/asm/cpufeature.h:[0-9]*:10: warning: read_cpuid(ID_AA64MMFR1_EL1) reads ID_AA64MMFR1_EL1 (traps under HCR_EL2.TID3) on a hot path; the sanitised copy is read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1) \[trapping-idreg-read\]$' j1.txt
check "the chain note names the root set, the phase and the macro alias" \
	grep -q '^arch/arm64/include/asm/cpufeature.h:[0-9]*:10: note: reached from page-fault (steady phase): handle_mm_fault -> .* -> set_pte_range -> cpu_has_hw_af (as arch_wants_old_prefaulted_pte)$' j1.txt
check "the __cpu_has_rng() patch: this_cpu_has_cap(ARM64_HAS_RNG) names register, field and the sanitised copy" \
	grep -q '^arch/arm64/include/asm/archrandom.h:60:10: warning: this_cpu_has_cap(ARM64_HAS_RNG) reads ID_AA64ISAR0_EL1 (traps under HCR_EL2.TID3) on a hot path; the sanitised copy is read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1), field RNDR \[local-cap-check\]$' j1.txt
check "a second hot caller of the sink gets its own chain" \
	grep -q 'note: also reached from crng: .* -> extract_entropy -> arch_get_random_longs -> __cpu_has_rng$' j1.txt

"$TRAPCHECK" -p "$FX" -v -q > verbose.txt
check "-v prints a note per call in the chain" \
	grep -q '^mm/memory.c:[0-9]*:[0-9]*: note: set_pte_range() calls cpu_has_hw_af() as arch_wants_old_prefaulted_pte() when prefault$' verbose.txt

python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert s['entries'] == 10 and s['tus_analysed'] == 9, s
assert s['tus_skipped'] == 1 and s['tus_with_errors'] == 0, s
for f in d['findings']:
    for k in ('rule', 'file', 'line', 'column', 'function', 'sink',
              'register', 'root', 'chain'):
        assert k in f, k
    assert f['chain'][-1]['function'] == f['function']
    assert all({'function', 'file', 'line'} <= set(c) for c in f['chain'])
    for k in ('trap_class', 'capability', 'field', 'sanitised'):
        assert k in f, k
rng = [f for f in d['findings'] if f['capability'] == 'ARM64_HAS_RNG' and
       f['rule'] == 'local-cap-check'][0]
assert rng['register'] == 'ID_AA64ISAR0_EL1' and rng['field'] == 'RNDR'
assert rng['sanitised'] is True and rng['trap_class'] == 'HCR_EL2.TID3'
assert not [f for f in d['findings']
            if f['capability'] == 'ARM64_WORKAROUND_1418040' and
            f['rule'] == 'local-cap-check']
assert rng['phase'] == 'boot', rng
assert s['capabilities'] == 5 and s['capabilities_unresolved'] == []
assert s['sanitised_registers'] == 5
PY
check "JSON summary counts and finding fields" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" 2> summary.txt > /dev/null
check "summary line on stderr" \
	grep -q '^trapcheck: 9 TUs analysed (0 with errors, 1 skipped), [0-9]* functions, [0-9]* edges, [0-9]* sink sites, 11 findings$' summary.txt
"$TRAPCHECK" -p "$FX" --only arch/arm64/include/asm/archrandom.h \
	2> one.txt > /dev/null
check "one finding is \"1 finding\"" \
	grep -q ' sink sites, 1 finding$' one.txt
check "summary of the tables read from the tree" \
	grep -q '^trapcheck: from the tree: 5 capabilities (0 unresolved), 5 sanitised registers (0 unknown)$' summary.txt

"$TRAPCHECK" -p "$FX" -q --list-caps > caps.txt
check "--list-caps: ARM64_HAS_RNG from ARM64_CPUID_FIELDS (6.12 form)" \
	grep -q "^ARM64_HAS_RNG	SYSTEM	has_cpuid_feature	ID_AA64ISAR0_EL1	RNDR	IMP	HCR_EL2.TID3	yes	sys_reg	arch/arm64/kernel/cpufeature.c:" caps.txt
check "--list-caps: ARM64_HAS_PAN from .sys_reg/.field_pos (6.1 form)" \
	grep -q "^ARM64_HAS_PAN	SYSTEM	has_cpuid_feature	ID_AA64MMFR1_EL1	PAN	1	HCR_EL2.TID3	yes	sys_reg	" caps.txt
check "--list-caps: errata matched on MIDR read no trapping register" \
	sh -c "grep -q '^ARM64_WORKAROUND_1418040	LOCAL_CPU	is_affected_midr_range_list	MIDR_EL1	-	-	none	' caps.txt &&
	       grep -q '^ARM64_WORKAROUND_1463225	LOCAL_CPU	has_cortex_a76_erratum_1463225	MIDR_EL1	-	-	none	' caps.txt"
check "--list-caps: an entry #ifdef'd out is not read" \
	sh -c "! grep -q ARM64_HAS_LSE_ATOMICS caps.txt"
check "--list-caps: arm64_ftr_regs[] of the tree" \
	grep -q '^# arm64_ftr_regs\[\] (5): ID_AA64PFR0_EL1 ID_AA64PFR1_EL1 ID_AA64ISAR0_EL1 ID_AA64MMFR0_EL1 ID_AA64MMFR1_EL1$' caps.txt

python3 - "$FX/compile_commands.json" notables.json <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
root = os.path.dirname(os.path.abspath(sys.argv[1]))
keep = [dict(e, directory=root) for e in d
        if not e['file'].startswith('arch/arm64/kernel/cpu')]
json.dump(keep, open(sys.argv[2], 'w'))
PY
"$TRAPCHECK" -p notables.json -q > notables.txt 2>&1
check "without cpufeature.c the sanitised set is unknown, and said so" \
	grep -q "warning: read_cpuid(ID_AA64MMFR1_EL1) reads ID_AA64MMFR1_EL1 (traps under HCR_EL2.TID3) on a hot path; arm64_ftr_regs\[\] was not analysed (arch/arm64/kernel/cpufeature.c): cache the value or read the sanitised copy if it has one \[trapping-idreg-read\]" notables.txt
check "without the capability tables this_cpu_has_cap() is reported as unresolved" \
	grep -q "warning: this_cpu_has_cap(ARM64_WORKAROUND_1418040) may read an ID register from hardware on a hot path (the capability tables were not analysed); each read traps under HCR_EL2.TID3 \[local-cap-check\]" notables.txt

mkdir boot
printf '# boot-time entry\ncpuinfo_store_cpu\n' > boot/boot.roots
"$TRAPCHECK" -p "$FX" -q --roots boot/boot.roots > boot.txt
check "--roots adds a user root set" \
	grep -q '^arch/arm64/kernel/cpuinfo.c:[0-9]*:[0-9]*: note: reached from boot (steady phase): cpuinfo_store_cpu -> __cpuinfo_store_cpu$' boot.txt

check "a call through an ops table is an inferred edge in the other chains" \
	grep -q 'cpufeature.h:[0-9]*:10: note: also reached from page-fault: .* -> do_fault_around -> filemap_map_pages (via vm_operations_struct.map_pages) -> set_pte_range -> cpu_has_hw_af (as arch_wants_old_prefaulted_pte)$' j1.txt
"$TRAPCHECK" -p "$FX" --max-targets 1 > /dev/null 2> pruned.err
check "--max-targets: a member with more targets is pruned, and said so" \
	grep -q '^trapcheck: 1 call through struct members not followed (more than 1 targets): arm64_cpu_capabilities.matches (3)$' pruned.err
python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# A guest's reads before a KVM host's, steady phase before boot phase,
# then the costliest first.
key = [(f['context'] == 'nested', f['phase'] == 'boot',
        -f['estimate']['value']) for f in d['findings'] if f['root']]
assert key == sorted(key), key
boot = [f for f in d['findings'] if f['root'] and f['phase'] == 'boot']
assert boot and all(f['estimate']['unit'] == 'reads_per_call_until_guard'
                    for f in boot), boot
rng = [f for f in d['findings'] if f['function'] == '__cpu_has_rng'][0]
# crng weight 10000 x the extract_entropy loop (ARRAY_SIZE: 4).
assert rng['estimate']['root_weight'] == 10000, rng['estimate']
assert rng['estimate']['loop_factor'] == 4, rng['estimate']
PY
check "ranking: findings sorted by estimate; weight x constant loop bound" [ $? -eq 0 ]

mkdir atomic
printf 'context: atomic\ndo_page_fault  # as if it ran with IRQs off\n' > atomic/atomic.roots
"$TRAPCHECK" -p "$FX" -q --roots-dir atomic > atomic.txt
check_that "a root set in atomic context has no this_cpu_has_cap preempt-guard" \
	'grep -q "fault.c:[0-9]*:[0-9]*: warning: this_cpu_has_cap(ARM64_HAS_PAN) reads" atomic.txt &&
	 ! grep -q "may run preemptible" atomic.txt'

mkdir empty
python3 - "$FX/compile_commands.json" novariants.json <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
root = os.path.dirname(os.path.abspath(sys.argv[1]))
json.dump([dict(e, directory=root) for e in d
           if 'rng_variants' not in e['file']], open(sys.argv[2], 'w'))
PY
"$TRAPCHECK" -p novariants.json -q --roots-dir empty > none.txt
rc=$?
check_that "exit status 0 and no output without findings" \
	'[ $rc -eq 0 ] && [ ! -s none.txt ]'

"$TRAPCHECK" -p "$FX" -q --roots-dir empty > once.txt
check "preempt-guard on a sanitised read is reported on no hot path too" \
	grep -q '^drivers/char/rng_variants.c:[0-9]*:[0-9]*: warning: read_sanitised_ftr_reg() stands in for a per-CPU check before capabilities are finalized but !preemptible() does not guard it: the answer may belong to another CPU; keep the !preemptible() guard \[preempt-guard\]$' once.txt

"$TRAPCHECK" -p "$FX" -q -v --roots "$FX/variants.roots" > guards.txt
check "-v notes carry the guards a caller holds at each call" \
	grep -q "^drivers/char/random.c:[0-9]*:[0-9]*: note: crng_make_state() calls extract_entropy() when !crng_ready()" guards.txt
"$TRAPCHECK" -p "$FX" --roots "$FX/variants.roots" > /dev/null 2> guards.err
check "a call under a jiffies deadline is rate-limited: counted, not walked" \
	grep -q '^trapcheck: 1 call and sink site under a deadline test (rate-limited) not walked from the root sets$' guards.err
check "the RDRAND patch applied (unlikely(!crng_ready()) && ...) is not reported" \
	sh -c "! grep -q 'rng_variants.c.*slow-entropy' guards.txt"

"$TRAPCHECK" -p "$SCRATCH/nowhere" -q > err.out 2> err.txt
rc=$?
check_that "missing database: exit 2, one line naming the file" \
	'[ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] &&
	grep -q "nowhere/compile_commands.json" err.txt'

printf '[{"directory": ".", "file": "a.c", ' > bad.json
"$TRAPCHECK" -p bad.json -q 2> err.txt
rc=$?
check_that "malformed database: exit 2 with line and column" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: bad.json:1:[0-9]*: malformed JSON" err.txt'

"$TRAPCHECK" -p "$FX" -q -o /dev/full 2> err.txt
rc=$?
check_that "unwritable output: exit 3 and a message" \
	'[ $rc -eq 3 ] && grep -q "trapcheck: error: /dev/full" err.txt'

"$TRAPCHECK" -p "$FX" -q -o result.txt
check_that "-o writes the file and leaves no temporary behind" \
	'[ -s result.txt ] && [ "$(ls | grep -c result.txt.tmp)" -eq 0 ]'

"$TRAPCHECK" --format=xml -p "$FX" 2> err.txt
check "unknown format: exit 2" [ $? -eq 2 ]

"$TRAPCHECK" -p "$FX" -q --diff "$TOP/tests/e2e/patches/fixture-lint.patch" > lint.txt
check "--diff: removing !preemptible() before finalization is reported (preempt-guard, by the rule)" \
	grep -q '^arch/arm64/include/asm/archrandom.h:60:10: warning: this_cpu_has_cap(ARM64_HAS_RNG) may run preemptible on this path (it WARN_ON()s then): guard it with !preemptible() or disable preemption \[preempt-guard\]$' lint.txt
check "--diff: an added trapping read in a hot function, with its chain in the patched tree" \
	sh -c "grep -q '^mm/memory.c:57:13: warning: read_cpuid(ID_AA64PFR0_EL1) reads ID_AA64PFR0_EL1 (traps under HCR_EL2.TID3) on a hot path; .* \[trapping-idreg-read\]$' lint.txt &&
	       grep -q '^mm/memory.c:57:13: note: reached from page-fault (steady phase): handle_mm_fault -> .* -> set_pte_range$' lint.txt"
check "--diff: an added MIDR read (no trap) is not reported, nor what the tree had" \
	sh -c "! grep -q MIDR lint.txt && [ \$(grep -c warning: lint.txt) -eq 2 ]"
done_testing
