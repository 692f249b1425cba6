#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# When KVM as the outer hypervisor makes a guest's read of a cache
# identification register trap (--outer=kvm, the default; docs/
# diagnostics.md "The outer hypervisor"): arm64's outer.def TRAP_SET
# lines name the bits and KVM's setter, extraction keeps the conditions
# under which the analysed tree's setter names each bit, and HOST lines
# say what they are in a guest of the analysed kernel on a host without
# errata. 6.12's vcpu_set_hcr() (the fixture's default database): TID2
# unless the host has FEAT_EVT, uniform caches and the host's CTR_EL0,
# TID4 then: CTR_EL0 traps on a host without ARM64_HAS_EVT (the warning
# says so), CCSIDR_EL1 on every host. 6.1's vcpu_reset_hcr() (old.json):
# TID2 only with ARM64_MISMATCHED_CACHE_TYPE, an arm64_errata[] entry, or
# a 32-bit EL1: both reads are notes. KVM not analysed, or --outer=any:
# the warnings as before.
# Expectations are the fixture's tags (check-tags.py).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kvmtid2"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --format=json -o new.json
check "the kvmtid2 fixture (6.12's KVM): exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" new.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its warnings are its tags (2 warnings)" [ $rc -eq 0 ]
python3 - new.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {f['register']: f['message'] for f in d['findings']}
assert m['CTR_EL0'].startswith(
    'read_sysreg_s(SYS_CTR_EL0) reads CTR_EL0 (traps under HCR_EL2.TID2, '
    'which KVM sets for a guest on a host without ARM64_HAS_EVT: '
    'arch/arm64/kvm/sys_regs.c:35) on a hot path'), m['CTR_EL0']
assert 'CCSIDR_EL1 (traps under HCR_EL2.TID2) on a hot path' in \
    m['CCSIDR_EL1'], m['CCSIDR_EL1']
PY
check "CTR_EL0's warning says KVM traps it on a host without ARM64_HAS_EVT (its setter's line); CCSIDR_EL1's, trapped by TID2 or TID4, says nothing more" [ $? -eq 0 ]

warnings() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["findings"]), len(d["low_confidence"]))' "$1"
}
rm -rf old && cp -r "$FX" old && cp old/old.json old/compile_commands.json
"$TRAPCHECK" -p old --roots-dir "$FX" -q --format=json -o old.json
check_that "6.1's KVM: both reads are notes" '[ "$(warnings old.json)" = "0 2" ]'
python3 - old.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = {f['register']: f for f in d['low_confidence']}
why = low['CTR_EL0']['not_in_kvm']
assert why == (
    'KVM as the outer hypervisor makes CTR_EL0 trap only when '
    'vcpu_reset_hcr() sets HCR_TID2, under '
    'cpus_have_const_cap(ARM64_MISMATCHED_CACHE_TYPE)||'
    'vcpu_el1_is_32bit(vcpu) (arch/arm64/include/asm/kvm_emulate.h:28), '
    'never in a guest of this kernel on a common host: '
    'ARM64_MISMATCHED_CACHE_TYPE is an erratum\'s capability '
    '(arm64_errata[]), which a host without the erratum lacks; the '
    'analysed kernel runs its EL1 in AArch64'), why
assert 'CCSIDR_EL1 trap only when' in low['CCSIDR_EL1']['not_in_kvm']
PY
check "JSON not_in_kvm names KVM's setter, its condition and line, and why it is false" [ $? -eq 0 ]
"$TRAPCHECK" -p old --roots-dir "$FX" -q --outer=any --format=json -o any.json
check_that "6.1's KVM, --outer=any: both reads are warnings" '[ "$(warnings any.json)" = "2 0" ]'

# Without the errata table the capability's kind is not known: the host
# decides, and the warning says with which capability KVM traps it.
sed -i 's/arm64_errata/arm64_others/' old/arch/arm64/kernel/cpu_errata.c
"$TRAPCHECK" -p old --roots-dir "$FX" -q --format=json -o noerr.json
python3 - noerr.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 2, d['low_confidence']
m = {f['register']: f['message'] for f in d['findings']}
assert ('which KVM sets for a guest on a host with '
        'ARM64_MISMATCHED_CACHE_TYPE: '
        'arch/arm64/include/asm/kvm_emulate.h:28)') in m['CTR_EL0'], m
PY
check "6.1's KVM, the capability in no errata table: warnings that say on which hosts" [ $? -eq 0 ]

rm -rf nokvm && cp -r "$FX" nokvm && cp nokvm/nokvm.json nokvm/compile_commands.json
"$TRAPCHECK" -p nokvm --roots-dir "$FX" -q --format=json -o nokvm.json
python3 - nokvm.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 2 and not d['low_confidence']
for f in d['findings']:
    assert 'which KVM sets' not in f['message'], f['message']
PY
check "KVM not in the compile database: the warnings as before" [ $? -eq 0 ]

# GMID_EL1 (MTE) traps under TID5, which 6.12's vcpu_set_hcr() never
# sets: a read of it is a note under --outer=kvm, a warning under any.
rm -rf gmid && cp -r "$FX" gmid &&
	printf '\nstatic void tag_block(void)\n{\n\tflush_sink = read_sysreg_s(SYS_GMID_EL1);\n}\n\nvoid tags_root(void)\n{\n\ttag_block();\n}\n' >> gmid/mm/flush.c &&
	printf 'tags_root\n' >> gmid/fault.roots
"$TRAPCHECK" -p gmid --roots-dir gmid -q --format=json -o gmid.json
python3 - gmid.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = {f['register']: f for f in d['low_confidence']}
assert 'GMID_EL1' not in {f['register'] for f in d['findings']}, d['findings']
assert low['GMID_EL1']['not_in_kvm'] == (
    'KVM as the outer hypervisor never makes GMID_EL1 trap: no setter of '
    'the analysed tree sets a bit that traps it'), low['GMID_EL1']
PY
rc_kvm=$?
"$TRAPCHECK" -p gmid --roots-dir gmid -q --outer=any --format=json \
	-o gmid-any.json
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert "GMID_EL1" in {f["register"] for f in d["findings"]}' gmid-any.json
rc_any=$?
check_that "GMID_EL1 (TID5, never set by vcpu_set_hcr()): a not-under-KVM note; a warning with --outer=any" \
	'[ $rc_kvm -eq 0 ] && [ $rc_any -eq 0 ]'
done_testing
