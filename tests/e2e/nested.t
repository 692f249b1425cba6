#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Whether KVM as the outer hypervisor runs a guest at EL2 at all (arm64
# outer.def's NESTING lines; docs/diagnostics.md "The outer hypervisor"): KVM
# host code (context nested) traps only on a host that is a guest run at
# EL2. The fixture's KVM, like Linux 6.12's, defines KVM_ARM_VCPU_HAS_EL2
# as 7 and refuses vCPU features from KVM_VCPU_MAX_FEATURES (7) on in
# kvm_vcpu_init_check_features(): under --outer=kvm (the default) the
# nested read is a note; --outer=any or kvm-nested, a KVM whose limit is
# past the bit,
# a tree whose check is not analysed, whose limit is not a number or
# has two definitions that differ: a warning. A KVM without the feature
# (Linux 6.1): a note that says so.
# A site also reached through guest code alone: a warning, in guest
# context.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/nested"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" -q --format=json -o n.json
check "the nested fixture (--outer=kvm, the default): exit 0, no warning" \
	[ $? -eq 0 ]
python3 - n.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d['findings'], d['findings']
low = d['low_confidence']
assert len(low) == 1, low
f = low[0]
assert (f['file'], f['line'], f['rule'], f['root']) == (
    'arch/arm64/kvm/hyp/include/hyp/switch.h', 16, 'trapping-idreg-read',
    'kvm-run'), f
assert [s['function'] for s in f['chain']] == [
    'kvm_arch_vcpu_ioctl_run', '__demo_debug_state'], f['chain']
assert low[0]['not_offered'] == (
    'KVM as the outer hypervisor never runs a guest at EL2, which a '
    "nested host is: the analysed tree's KVM_ARM_VCPU_HAS_EL2 (7) is not "
    'below KVM_VCPU_MAX_FEATURES (7), and kvm_vcpu_init_check_features() '
    '(arch/arm64/kvm/arm.c:17) refuses a vCPU with it'), low[0]
PY
check "a note at switch.h:16 (trapping-idreg-read, kvm-run, its chain); JSON not_offered names both macros' values and the check's line" \
	[ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" > n.txt 2>&1
check_that "text: a note 'not on a nested host' with the chain" \
	'grep -q "^arch/arm64/kvm/hyp/include/hyp/switch.h:16:[0-9]*: note: not on a nested host, not warned of: __demo_debug_state() reached from kvm-run, but KVM as the outer hypervisor never runs a guest at EL2, .*: kvm_arch_vcpu_ioctl_run -> __demo_debug_state \[trapping-idreg-read\]$" n.txt'

"$TRAPCHECK" -p "$FX" -q --outer=any --format=json -o any.json
check "--outer=any: a warning, exit 1" [ $? -eq 1 ]
check_that "--outer=any: the read warned of from kvm-run, context nested" \
	'python3 -c "import json, sys
d = json.load(open(\"any.json\"))
f = d[\"findings\"]
assert len(f) == 1 and f[0][\"root\"] == \"kvm-run\", f
assert f[0][\"line\"] == 16 and f[0][\"context\"] == \"nested\", f"'

# --outer=kvm-nested: the same KVM, as if it ran nested hosts (a later
# KVM with nested virtualisation): the read warns again.
"$TRAPCHECK" -p "$FX" -q --outer=kvm-nested --format=json -o kn.json
check "--outer=kvm-nested: a warning, exit 1" [ $? -eq 1 ]

# A read reached from one root set through KVM host code and through
# guest code alone traps in any guest: a warning, context guest, though
# the shortest chain shown first is the one through KVM host code.
"$TRAPCHECK" -p "$FX" --roots "$FX/roots/tick.roots" -q --format=json \
	-o tick.json
check "with the tick root set: exit 1 (a warning)" [ $? -eq 1 ]
python3 - tick.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d['findings'] if f['file'] == 'kernel/tick.c']
assert len(f) == 1, d['findings']
f = f[0]
assert (f['line'], f['rule'], f['root'], f['context']) == (
    16, 'trapping-idreg-read', 'tick', 'guest'), f
assert [s['function'] for s in f['chain']] == [
    'demo_tick', 'kvm_demo_timer', 'demo_shared_read'], f
assert [[s['function'] for s in c] for c in f['other_chains']] == [
    ['demo_tick', 'demo_update', 'demo_account', 'demo_shared_read']], f
assert 'not_offered' not in f and 'KVM host' not in f['message'], f
PY
check "kernel/tick.c:16 from tick: a warning in guest context (no 'KVM host' in its message), its chains demo_tick -> kvm_demo_timer -> demo_shared_read and demo_tick -> demo_update -> demo_account -> demo_shared_read" \
	[ $? -eq 0 ]

# variant NAME SED-EXPR FILE: a copy of the fixture with FILE edited.
variant() {
	rm -rf "$1" && cp -r "$FX" "$1" && sed -i "$2" "$1/$3"
}
variant later 's/KVM_VCPU_MAX_FEATURES 7/KVM_VCPU_MAX_FEATURES 9/' \
	arch/arm64/include/asm/kvm_host.h
"$TRAPCHECK" -p later -q --format=json -o later.json
check "a KVM whose features go past KVM_ARM_VCPU_HAS_EL2: a warning" \
	[ $? -eq 1 ]

variant old '/KVM_ARM_VCPU_HAS_EL2/d' arch/arm64/include/uapi/asm/kvm.h
"$TRAPCHECK" -p old -q --format=json -o old.json
check "a KVM without KVM_ARM_VCPU_HAS_EL2 (Linux 6.1): exit 0" [ $? -eq 0 ]
check_that "... a note saying the tree's KVM has no such feature" \
	'python3 -c "import json
d = json.load(open(\"old.json\"))
assert not d[\"findings\"]
w = d[\"low_confidence\"][0][\"not_offered\"]
assert \"analysed tree'"'"'s KVM has no KVM_ARM_VCPU_HAS_EL2\" in w, w"'

variant nocheck 's/^int kvm_vcpu_init_check_features(struct kvm_vcpu \*vcpu,$/int demo_other_check(struct kvm_vcpu *vcpu,/' \
	arch/arm64/kvm/arm.c
"$TRAPCHECK" -p nocheck -q --format=json -o nocheck.json
check "the check not analysed (not in the tree's KVM): a warning" \
	[ $? -eq 1 ]

variant expr 's/KVM_VCPU_MAX_FEATURES 7/KVM_VCPU_MAX_FEATURES (3 + 4)/' \
	arch/arm64/include/asm/kvm_host.h
"$TRAPCHECK" -p expr -q --format=json -o expr.json
check "a limit that is not a plain number: nothing concluded, a warning" \
	[ $? -eq 1 ]
variant twice '$a #define KVM_VCPU_MAX_FEATURES 9' kernel/tick.c
"$TRAPCHECK" -p twice -q --format=json -o twice.json
check "two definitions of the limit that differ: nothing concluded, a warning" \
	[ $? -eq 1 ]
done_testing
