#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What KVM as the outer hypervisor does for its guests (--outer=kvm, the
# default; docs/diagnostics.md "The outer hypervisor"): arm64's outer.def
# GUEST line: a guest's chain through __cpu_suspend_exit() runs only when
# a CPU resumes from a suspend that lost its context, and the analysed
# tree's KVM serves PSCI CPU_SUSPEND with kvm_psci_vcpu_suspend(), which
# only calls kvm_vcpu_wfi(): a note. A handler that does more, KVM not in
# the compile database, or --outer=any: a warning. A read beyond
# psci_cpu_suspend_enter()'s psci_power_state_loses_context() test is per
# idle entry into a state that loses context (a SUBSET condition), not per
# idle entry: WFI and retention states are not counted.
# Expectations are the fixture's tags (check-tags.py).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kvmguest"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --format=json -o g.json
check "the kvmguest fixture (--outer=kvm, the default): exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" g.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its warning and note are its tags (1 warning, 1 note)" [ $rc -eq 0 ]
python3 - g.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = d['low_confidence']
assert len(low) == 1 and len(d['findings']) == 1, d
assert low[0]['not_in_kvm'] == (
    '__cpu_suspend_exit() runs only when a CPU resumes from a PSCI '
    'CPU_SUSPEND that lost its context, which never happens in a KVM '
    'guest: KVM as the outer hypervisor serves the request with '
    'kvm_psci_vcpu_suspend() (arch/arm64/kvm/psci.c:10), which only calls '
    'kvm_vcpu_wfi()'), low[0]['not_in_kvm']
PY
check "JSON not_in_kvm names the function, KVM's handler and its line" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" > g.txt 2>&1
check_that "text: a note 'not under KVM' for the read in __cpu_suspend_exit()" \
	'grep -q "^arch/arm64/kernel/suspend.c:18:[0-9]*: note: not under KVM, not warned of: __cpu_suspend_exit() reached from idle, but __cpu_suspend_exit() runs only when .*: idle_root -> psci_cpu_suspend_enter -> cpu_suspend -> __cpu_suspend_exit \[trapping-idreg-read\]$" g.txt'

warnings() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["findings"]), len(d["low_confidence"]))' "$1"
}
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --outer=any --format=json \
	-o any.json
check_that "--outer=any: both reads are warnings" '[ "$(warnings any.json)" = "2 0" ]'
python3 - any.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d['findings']:
    assert f['rate']['per'] == 'idle entry into a state that loses context', f['rate']
    assert f['rate'].get('subset') is True, f['rate']
    assert {'kind': 'subset', 'text': 'psci_power_state_loses_context(state)'} in [
        {'kind': c['kind'], 'text': c['text']} for c in f['conditions']], f['conditions']
PY
check "--outer=any: each rate is per idle entry into a state that loses context (subset)" [ $? -eq 0 ]

# A KVM whose handler does more than wait: the suspend may lose context.
rm -rf more && cp -r "$FX" more &&
	sed -i -e 's/^\tkvm_vcpu_wfi(vcpu);$/\tkvm_vcpu_wfi(vcpu);\n\tkvm_vcpu_power_down(vcpu);/' \
		-e 's/^void kvm_vcpu_wfi(struct kvm_vcpu \*vcpu);$/&\nvoid kvm_vcpu_power_down(struct kvm_vcpu *vcpu);/' \
		more/arch/arm64/kvm/psci.c &&
	grep -q kvm_vcpu_power_down more/arch/arm64/kvm/psci.c
"$TRAPCHECK" -p more --roots-dir more -q --format=json -o more.json
check_that "a handler that calls more than kvm_vcpu_wfi(): both warnings, no TU with errors" \
	'[ "$(warnings more.json)" = "2 0" ] &&
	 [ "$(python3 -c "import json; print(json.load(open(\"more.json\"))[\"summary\"][\"tus_with_errors\"])")" = 0 ]'

# KVM not analysed: nothing known of the outer hypervisor's handler.
rm -rf nokvm && cp -r "$FX" nokvm &&
	python3 - nokvm/compile_commands.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump([e for e in d if 'kvm/' not in e['file']], open(sys.argv[1], 'w'))
PY
"$TRAPCHECK" -p nokvm --roots-dir nokvm -q --format=json -o nokvm.json
check_that "KVM not in the compile database: both warnings" '[ "$(warnings nokvm.json)" = "2 0" ]'
done_testing
