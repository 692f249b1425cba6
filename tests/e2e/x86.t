#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A second architecture: an x86 compile database (tests/fixtures/x86) is
# analysed with x86's tables. CPUID through the kernel's wrappers (the
# leaf recorded as written) and through a library's own inline assembly
# is reported on the page fault path with x86's trap class and advice
# (CPUID with no output operand as serializing, with its own advice);
# native_cpuid()'s own asm (behind the opaque wrappers), CPUID at boot,
# in a machine check's report (do_machine_check() is cold) and RDTSC are
# not. A one-bit test of a wrapper's value names the X86_FEATURE_* that
# the fixture tree's cpufeatures.h and enum cpuid_leafs give that bit,
# and --fix rewrites it into boot_cpu_has() (verified); a leaf's field
# that no feature names keeps the cache advice. RDMSR through rdmsrl()
# is trapping-msr-read with the MSR as written; an MSR on the tree's KVM
# pass-through lists (vmx_possible_passthrough_msrs[],
# direct_access_msrs[]) is a note, not a warning. The database records
# arch/x86 and gives the same findings back.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/x86"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --format=json -o x.json 2> x.err
rc=$?
check "the x86 fixture: findings, exit 1" [ $rc -eq 1 ]
"$TRAPCHECK" -p "$FX" > x.txt 2>&1
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
by_func = {f['function']: f for f in d['findings']}
w = by_func['fault_has_smap']
assert w['sink'] == 'cpuid_ebx' and w['register'] == 'CPUID', w
assert w['trap_class'] == 'unconditional CPUID exit', w
assert w['message'].startswith('cpuid_ebx(0x7) reads CPUID'), w['message']
assert w['mask'] == '(1u<<20)' and w['feature'] == 'X86_FEATURE_SMAP', w
assert 'boot_cpu_has(X86_FEATURE_SMAP)' in w['message'], w['message']
assert 'read_sanitised_ftr_reg' not in w['message'], w['message']
# "& 1u << 31": the operand alone is not the mask (XMM3 is bit 0).
g = by_func['fault_in_guest']
assert 'mask' not in g and 'feature' not in g, g
# A field, not a bit: no feature, the cache advice.
p = by_func['fault_pa_bits']
assert p['mask'] == '0xff' and 'feature' not in p, p
assert 'boot_cpu_has() or cpu_feature_enabled(), or cache the leaf' \
    in p['message'], p['message']
a = by_func['lzx_cpuid_bmi2']
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
check "JSON: the wrapper's leaf, its feature bit, the asm sites (read, serialize), x86's trap class and advice" \
	[ $? -eq 0 ]
misc=$(grep -n 'rdmsrl(MSR_IA32_MISC_ENABLE' "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
spec=$(grep -n 'rdmsrl(MSR_IA32_SPEC_CTRL' "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
python3 - x.json "$misc" "$spec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
misc, spec = int(sys.argv[2]), int(sys.argv[3])
m = [f for f in d['findings'] if f['rule'] == 'trapping-msr-read'
     and f['file'] == 'arch/x86/mm/fault.c'
     and f['register'] != 'MSR_STAR']
assert len(m) == 3, m
# rdmsrl_on_cpu(1, MSR, &v): the second argument.
oc = [f for f in m if f['function'] == 'fault_misc_enable_cpu']
assert len(oc) == 1 and oc[0]['register'] == 'MSR_IA32_MISC_ENABLE', m
assert oc[0]['sink'] == 'rdmsrl_on_cpu', oc
m = [f for f in m if f['function'] != 'fault_misc_enable_cpu']
# rdmsrl(0x1a0, v): the number named by the TU's msr-index.h macro.
nr = [f for f in m if f['function'] == 'fault_misc_enable_nr']
assert len(nr) == 1 and nr[0]['register'] == 'MSR_IA32_MISC_ENABLE', m
m = [f for f in m if f['function'] != 'fault_misc_enable_nr'][0]
assert (m['file'], m['line']) == ('arch/x86/mm/fault.c', misc), m
assert m['function'] == 'fault_misc_enable', m
assert m['register'] == 'MSR_IA32_MISC_ENABLE', m
assert m['trap_class'] == 'RDMSR exit unless passed through', m
assert m['message'].startswith('native_read_msr() reads '
                               'MSR_IA32_MISC_ENABLE (traps'), m
assert 'not analysed' not in m['message'], m
assert [s['function'] for s in m['chain']] == ['handle_page_fault',
                                              'fault_misc_enable'], m
low = [f for f in d['low_confidence'] if f['rule'] == 'trapping-msr-read'
       and 'not_offered' not in f and 'machine_doubt' not in f
       and f['file'] == 'arch/x86/mm/fault.c']
assert len(low) == 3, low
rt = [f for f in low if f['function'] == 'fault_msr_at_run_time']
assert len(rt) == 1 and rt[0]['register'] is None, low
assert rt[0]['may_not_exit'] == ('the MSR is chosen at run time '
                                 '(an expression): it may be one '
                                 'KVM passes through'), rt
assert rt[0]['message'].endswith('on a hot path; if the kernel writes it, '
                                 'keep the value in memory where it does '
                                 'and read that; if the hardware changes '
                                 'it (a counter, a record), no copy stands '
                                 'in: read it fewer times on the path'), rt
low = [f for f in low if f['function'] != 'fault_msr_at_run_time']
live = [f for f in low if f['register'] == 'MSR_IA32_APERF']
assert len(live) == 1 and live[0]['function'] == 'fault_aperf', low
assert live[0]['may_not_exit'].startswith('MSR_IA32_APERF is a counter: '
                                          'its value changes'), live
low = [f for f in low if f['register'] != 'MSR_IA32_APERF'][0]
assert (low['file'], low['line']) == ('arch/x86/mm/fault.c', spec), low
assert low['register'] == 'MSR_IA32_SPEC_CTRL', low
assert low['confidence'] == 'low', low
assert 'vmx_possible_passthrough_msrs[]' in low['may_not_exit'], low
assert 'direct_access_msrs[]' in low['may_not_exit'], low
PY
check "JSON: rdmsrl() of an MSR KVM never passes through warns (file, line, chain; by number, named from msr-index.h; rdmsrl_on_cpu()'s second argument); one on KVM's lists, or a counter, is a note" \
	[ $? -eq 0 ]
grep -q "fault.c:$spec:2: note: low confidence, not warned of: fault_spec_ctrl() reached from page-fault, but MSR_IA32_SPEC_CTRL is on KVM's" x.txt
check "text: the passed-through MSR's note says why" [ $? -eq 0 ]
# One vendor's pass-through list never excuses the other's exit: MSR_STAR
# on SVM's list only warns in guest code (a VMX host lists it nowhere),
# and is a note in SVM host code; MSR_FS_BASE (VMX's list only) warns in
# SVM host code.
star=$(grep -n "rdmsrl(MSR_STAR, v)" "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
check_that "per vendor: an MSR only SVM may pass through warns in guest code, and says which host lists it nowhere" \
	'grep -q "^arch/x86/mm/fault.c:$star:2: warning: native_read_msr() reads MSR_STAR (traps under RDMSR exit unless passed through; on a VMX host it is on none of KVM.s lists, only on direct_access_msrs\[\]) on a hot path; keep the value" x.txt'
python3 - x.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
svm = {f['register']: f for f in d['findings'] + d['low_confidence']
       if f['file'] == 'arch/x86/kvm/svm/svm.c'}
assert svm['MSR_FS_BASE'] in d['findings'], svm
assert svm['MSR_FS_BASE']['mode'] == 'SVM host', svm
assert svm['MSR_STAR'] in d['low_confidence'], svm
assert svm['MSR_STAR']['may_not_exit'].startswith(
    "MSR_STAR is on KVM's direct_access_msrs[]"), svm
PY
check "per vendor: SVM host code is excused by SVM's list only (MSR_STAR a note, MSR_FS_BASE of VMX's list a warning)" [ $? -eq 0 ]

# RDPMC (trapping-pmc-read): rdpmcl() in a PMU driver's struct pmu
# operations exits in a KVM guest (RDPMC exiting, INTERCEPT_RDPMC); the
# counter is live, so it is a note with its chain and rate, not a
# warning; the boot-time probe's read is on no hot path.
pmc=$(grep -n "rdpmcl(event->hw.event_base_rdpmc, now)" \
	"$FX/arch/x86/events/core.c" | cut -d: -f1)
python3 - x.json "$pmc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
line = int(sys.argv[2])
assert not [f for f in d['findings'] if f['rule'] == 'trapping-pmc-read'], d
p = [f for f in d['low_confidence'] if f['rule'] == 'trapping-pmc-read']
assert len(p) == 2, p
raw = [f for f in p if f['sink'] == 'asm:rdpmc']
assert len(raw) == 1 and raw[0]['function'] == 'x86_pmu_read_raw', p
assert [s['function'] for s in raw[0]['chain']] == [
    'x86_pmu_read', 'intel_pmu_read_event', 'x86_pmu_read_raw'], raw
# static_call(x86_pmu_read) is set from x86_pmu.read, which the vendor's
# ops table fills: an inferred step that names the static call.
step = raw[0]['chain'][1]
assert step.get('via') == 'static_call(x86_pmu_read)', step
assert step.get('inferred') is True, step
assert raw[0]['trap_class'] == "RDPMC exit under KVM's default controls"
assert raw[0]['message'].startswith('inline assembly executes rdpmc, which '
                                    'reads a performance counter'), raw
p = [f for f in p if f['sink'] != 'asm:rdpmc'][0]
assert (p['file'], p['line'], p['function'], p['root']) == (
    'arch/x86/events/core.c', line, 'x86_perf_event_update', 'perf'), p
assert [s['function'] for s in p['chain']] == ['x86_pmu_del',
                                              'x86_perf_event_update'], p
# DEFINE_STATIC_CALL(x86_pmu_update, x86_perf_event_update)
assert p['chain'][1].get('via') == 'static_call(x86_pmu_update)', p
assert d['summary']['dispatch']['static_calls'] == 3, d['summary']
# static_call(x86_pmu_reset)(event, true): the constant reaches the
# target, whose read under !init_event no way in runs.
assert d['summary']['argument_refuted_sites'] == 1, d['summary']
assert not [f for f in d['findings'] + d['low_confidence']
            if f['function'] == 'intel_pmu_reset'], d
assert d['summary']['dispatch']['static_never_set'] == 0, d['summary']
assert p['sink'] == 'native_read_pmc' and p['register'] == 'PMC', p
assert p['trap_class'] == "RDPMC exit under KVM's default controls", p
assert p['may_not_exit'].startswith('a performance counter is live'), p
assert p['rate']['per'] == 'PMU operation', p
PY
check "JSON: RDPMC in a PMU operation, through rdpmcl() and in inline assembly, reached through static calls, is a trapping-pmc-read note (file, line, chain from perf, its trap class, live); the boot probe's is not reported" \
	[ $? -eq 0 ]

# Static calls as arm64 builds them (no CONFIG_HAVE_STATIC_CALL: the
# callee reads the key's function) give the same chains as x86's inline
# ones; "callers" lists the static call's caller.
rm -rf sc && cp -a "$FX" sc && sed -i 's/ -DCONFIG_HAVE_STATIC_CALL=1 -DCONFIG_HAVE_STATIC_CALL_INLINE=1//' sc/compile_commands.json
"$TRAPCHECK" -p sc -q --all-chains --format=json -o sc.json
python3 - x.json sc.json <<'PY'
import json, sys
def chains(f):
    d = json.load(open(f))
    return sorted((x['file'], x['line'], x['rule'],
                   tuple((s['function'], s.get('via')) for s in x['chain']))
                  for x in d['findings'] + d['low_confidence']
                  if x['rule'] == 'trapping-pmc-read')
a = chains(sys.argv[1])
b = chains(sys.argv[2])
assert len(a) == 2 and a == b, (a, b)
PY
check "static calls: the generic expansion (arm64's) resolves as the inline one (x86's): the same PMC sites and chains" \
	[ $? -eq 0 ] && ! grep -q CONFIG_HAVE_STATIC_CALL sc/compile_commands.json
"$TRAPCHECK" callers intel_pmu_read_event -p "$FX" > callers.txt 2>&1
check_that "callers: a static call's target lists the function that makes the call" \
	'grep -q "^x86_pmu_read	.*(as static_call(x86_pmu_read))$" callers.txt || { sed "s/^/# /" callers.txt; false; }'
# A read under a condition that needs a CPU capability (conditions.def
# CPU: cpuc->lbr_users needs LBR) is a note: some guests may have it, on
# --machine=virt QEMU's, on --machine=cloud cloud-hypervisor's, on the
# default both (machine.def CPU_CAP); --machine=any warns. A profile
# with no line for it: tests/unit/test-machine.c.
lbr=$(grep -n "rdmsrl(MSR_IA32_DEBUGCTLMSR, debugctl)" \
	"$FX/arch/x86/events/core.c" | cut -d: -f1)
for m in guest virt cloud any; do
	"$TRAPCHECK" -p "$FX" --machine=$m > lbr-$m.txt 2>&1
done
lbrnote="^arch/x86/events/core.c:$lbr:2: note: low confidence, not warned of: __intel_pmu_lbr_enable() reached from perf, but it runs only when cpuc->lbr_users, on a CPU with LBR, which only some guests have:"
# What KVM offers, from the tree (outer.def CPU_OFFER): the host's LBR
# format, where vmx_get_perf_capabilities() passes it on.
lbrkvm="; KVM offers a guest PMU_CAP_LBR_FMT only on a host where !boot_cpu_has(X86_FEATURE_ARCH_LBR) \&\& lbr.nr (vmx_get_perf_capabilities(), arch/x86/kvm/vmx/vmx.c:[0-9][0-9]*): x86_pmu_add -> "
check_that "a CPU capability the VMM chooses: a note naming the guests that may have it on --machine=virt, cloud and guest, and when KVM offers it, a warning on --machine=any" \
	'grep -q "$lbrnote virt (QEMU with a vPMU .* lbr-fmt))$lbrkvm" lbr-virt.txt &&
	 ! grep -q "cloud-hypervisor" lbr-virt.txt &&
	 grep -q "$lbrnote cloud (cloud-hypervisor (its host CPU profile) on an Intel host without arch LBR[^;]*)$lbrkvm" lbr-cloud.txt &&
	 grep -q "$lbrnote virt (QEMU with a vPMU .*); cloud (cloud-hypervisor .*)$lbrkvm" lbr-guest.txt &&
	 grep -q "^arch/x86/events/core.c:$lbr:2: warning: native_read_msr() reads MSR_IA32_DEBUGCTLMSR" lbr-any.txt &&
	 ! grep -q "^arch/x86/events/core.c:$lbr:2: warning" lbr-virt.txt lbr-cloud.txt lbr-guest.txt'
"$TRAPCHECK" path x86_pmu_read x86_pmu_read_raw -p "$FX" > path.txt 2>&1
check_that "path: from a PMU operation through a static call to its sink" \
	'grep -q "intel_pmu_read_event" path.txt || { sed "s/^/# /" path.txt; false; }'
"$TRAPCHECK" -p "$FX" --all-chains 2>&1 |
	grep -q "^arch/x86/events/core.c:$pmc:2: warning: native_read_pmc() reads a performance counter (traps under RDPMC exit under KVM's default controls) on a hot path; no copy stands in for a live counter: read it fewer times on the path (each read of a guest's virtual PMU is an exit) \[trapping-pmc-read\]$"
check "--all-chains: the RDPMC note is a warning, its message word for word" \
	[ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" --all-chains > allchains.txt 2>&1
aperf=$(grep -n "rdmsrl(MSR_IA32_APERF" "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
check_that "--all-chains: a counter MSR's note is a warning that says to read it fewer times, not to keep a copy" \
	'grep -qx "arch/x86/mm/fault.c:$aperf:2: warning: native_read_msr() reads MSR_IA32_APERF (traps under RDMSR exit unless passed through) on a hot path; no copy stands in for a counter: read it fewer times on the path (each read is an exit) \[trapping-msr-read\]" allchains.txt &&
	 ! grep "MSR_IA32_[AM]PERF" allchains.txt | grep -q "keep the value" || { grep "PERF" allchains.txt | sed "s/^/# /"; false; }'

# A counter KVM may pass through (on the fixture's lists, as 6.12's
# vmx_possible_passthrough_msrs[] has MSR_IA32_XFD_ERR): only the reads
# it does not pass through exit, the advice says; --all-chains shows it.
rm -rf xfderr && cp -r "$FX" xfderr
sed -i 's/^#define MSR_IA32_XFD\t\t\t0x000001c4$/&\n#define MSR_IA32_XFD_ERR\t\t0x000001c5/' \
	xfderr/arch/x86/include/asm/msr-index.h
sed -i 's/^\tMSR_IA32_XFD,$/&\n\tMSR_IA32_XFD_ERR,/' xfderr/arch/x86/kvm/vmx/vmx.c
sed -i 's/rdmsrl(MSR_IA32_APERF, v);/rdmsrl(MSR_IA32_XFD_ERR, v);/' \
	xfderr/arch/x86/mm/fault.c
"$TRAPCHECK" -p xfderr --all-chains > xfderr.txt 2>&1
check_that "a register the hardware reports into, on KVM's lists: read it fewer times, each read KVM does not pass through is an exit" \
	'grep -q "MSR_IA32_XFD_ERR,$" xfderr/arch/x86/kvm/vmx/vmx.c &&
	 grep -q "^arch/x86/mm/fault.c:$aperf:2: warning: native_read_msr() reads MSR_IA32_XFD_ERR (traps under RDMSR exit unless passed through[^)]*) on a hot path; no copy stands in for a register the hardware reports a #NM.s cause into: read it fewer times on the path (each read KVM does not pass through is an exit) \[trapping-msr-read\]$" xfderr.txt || { grep "XFD_ERR" xfderr.txt | sed "s/^/# /"; false; }'

"$TRAPCHECK" -p "$FX" --db x.db -q --format=json -o d1.json
"$TRAPCHECK" -p "$FX" --db x.db -q --format=json -o d2.json
check_that "the database records arch/x86" \
	'[ "$(sqlite3 x.db "select value from meta where key = '"'arch'"'")" = x86 ]'
check_that "a warm run gives the cold run's findings back (asm sinks, masks, features stored)" \
	'python3 -c "import json, sys; a, b = (json.load(open(f))[\"findings\"] for f in sys.argv[1:]); sys.exit(a != b or len(a) != 16)" d1.json d2.json'
"$TRAPCHECK" report --db x.db --format=json -o r.json 2> r.err
check_that "report --db takes the architecture from the database" \
	'python3 -c "import json, sys; a, b = (json.load(open(f))[\"findings\"] for f in sys.argv[1:]); sys.exit(a != b)" d1.json r.json'

pa=$(grep -n 'cpuid_eax(0x80000008)' "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
ser=$(grep -n 'asm volatile("xorl %%eax, %%eax' "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
inout=$(grep -n '"+a"(eax)' "$FX/lib/lzx/cpu.h" | cut -d: -f1)
fam=$(grep -n ': "=a"(eax), "=b"(ebx)' "$FX/lib/lzx/cpu.h" | cut -d: -f1)
"$TRAPCHECK" -p "$FX" --fix > fix.out 2> fix.err
rc=$?
check_that "--fix: two verified patches; boot_cpu_has() of the tree's feature for the one-bit test in a bool function" \
	'[ $rc -eq 1 ] && [ "$(grep -c "^diff --git" fix.out)" -eq 2 ] && grep -q "^-	return cpuid_ebx(0x7) & (1u << 20);$" fix.out && grep -q "^+	return boot_cpu_has(X86_FEATURE_SMAP);$" fix.out'
# CPUID in inline assembly, constant leaves 0, 1 and 7 (ZSTD_cpuid()'s
# shape): each output the kernel keeps is read from boot_cpu_data; the
# outputs nothing reads after (leaf 1's and 7's EAX) go, with their
# declarations, into the #else that code built outside the kernel
# proper keeps; the #include added once, under the same guard.
check_that "--fix: CPUID in asm with constant leaves read from boot_cpu_data (cpuid_level, the feature words of enum cpuid_leafs), one patch for the file" \
	'grep -q "^+	n = boot_cpu_data.cpuid_level;$" fix.out && grep -q "^+		c.f1c = boot_cpu_data.x86_capability\[CPUID_1_ECX\];$" fix.out && grep -q "^+		c.f1d = boot_cpu_data.x86_capability\[CPUID_1_EDX\];$" fix.out && grep -q "^+		c.f7b = boot_cpu_data.x86_capability\[CPUID_7_0_EBX\];$" fix.out && grep -q "^+		c.f7c = boot_cpu_data.x86_capability\[CPUID_7_ECX\];$" fix.out && [ "$(grep -c "^+#if defined(CONFIG_X86) && !defined(__DISABLE_EXPORTS)$" fix.out)" -eq 4 ] && [ "$(grep -c "^+#include <asm/cpufeature.h>$" fix.out)" -eq 1 ] && [ "$(grep -c "^-" fix.out)" -eq 3 ]'
check_that "--fix: a field of a leaf, CPUID that serializes, an in-out leaf, an EAX read after, and RDMSR say why there is no rewrite" \
	'grep -q "fault.c:$pa:9: note: no fix: cpuid_eax().s value is tested with 0xff, not one bit" fix.err && grep -q "fault.c:$ser:2: note: no fix: CPUID used to serialize: no copy replaces it" fix.err && grep -q "lib/lzx/cpu.h:$inout:2: note: no fix: CPUID.s operand \"+a\"(eax) is read as well as written: the leaf is not a constant input" fix.err && grep -q "lib/lzx/cpu.h:$fam:2: note: no fix: CPUID leaf 0x1.s EAX, read into eax, has no copy the kernel keeps" fix.err && grep -q "fault.c:$misc:2: note: no fix: this rule has no automatic rewrite" fix.err'
# The rewrite applies and the tree still analyses: on a copy.
cp -r "$FX" tree
(cd tree && patch -p1 -s < ../fix.out)
"$TRAPCHECK" -p tree --format=json -o after.json 2> after.err
check_that "the patched copy: the CPUID test and the three asm CPUIDs gone, the other findings stay" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); fs = [f[\"function\"] for f in d[\"findings\"]]; sys.exit(\"fault_has_smap\" in fs or \"lzx_cpuid\" in fs or len(fs) != 12)" after.json'
# Built outside the kernel proper (__DISABLE_EXPORTS, the decompressor)
# or for another architecture (no CONFIG_X86), the instruction stays.
cpuids() {
	gcc -E -P -nostdinc -I"tree/arch/x86/include" -I"tree/include" "$@" \
		tree/lib/lzx/decompress.c | grep -c '"cpuid"'
}
check_that "the patched header: 2 CPUIDs left in the kernel (the two refused), 5 with __DISABLE_EXPORTS or without CONFIG_X86" \
	'[ "$(cpuids -DCONFIG_X86=1)" -eq 2 ] && [ "$(cpuids -DCONFIG_X86=1 -D__DISABLE_EXPORTS)" -eq 5 ] && [ "$(cpuids)" -eq 5 ]'
# Only its truth may be used: an int function returning the bit is not
# rewritten.
sed 's/^static bool fault_has_smap/static int fault_has_smap/' \
	"$FX/arch/x86/mm/fault.c" > tree/arch/x86/mm/fault.c
"$TRAPCHECK" -p tree --fix > fix2.out 2> fix2.err
check_that "--fix: not where the bit's value may be used (an int function)" \
	'[ ! -s fix2.out ] && grep -q "no fix: cpuid_ebx() & (1u<<20) is used for more than its truth there" fix2.err'

# The copy's header cannot be included there (as Linux 6.12's zstd names
# a variable "current", which <asm/current.h>, included by
# <asm/processor.h>, defines as a macro): the first rewrite fails its
# check, and the rule's second one is verified instead: the function
# that executes the CPUIDs asks once (renamed *_uncached(), a wrapper
# that keeps its answer under an unlikely first-call branch: the caller
# that wins a compare-and-exchange stores and publishes it).
rm -rf tree3 && cp -r "$FX" tree3
cat >> tree3/arch/x86/include/asm/cpufeature.h <<'EOF2'
struct task_struct;
struct task_struct *get_current(void);
#define current get_current()
EOF2
sed -i 's/^\tunsigned int i;$/\tunsigned int i, current = 0;/; s/^\t\td\[i\] = s\[i\];$/\t\td[i] = s[i] + current;/' \
	tree3/lib/lzx/decompress.c
"$TRAPCHECK" -p tree3 --fix > fix3.out 2> fix3.err
check_that "--fix: the copy's header breaks a file that includes the code; the second rewrite asks CPUID once, one verified patch" \
	'grep -q "current" tree3/lib/lzx/decompress.c && [ "$(grep -c "^diff --git a/lib/lzx/cpu.h" fix3.out)" -eq 1 ] && grep -q "^-static inline struct lzx_cpuid lzx_cpuid(void)$" fix3.out && grep -q "^+static inline struct lzx_cpuid lzx_cpuid_uncached(void)$" fix3.out && grep -q "^+	static struct lzx_cpuid answer;$" fix3.out && grep -q "^+	if (__builtin_expect(__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2, 0)) {$" fix3.out && grep -q "^+		if (__atomic_compare_exchange_n(&state, &none, 1, 0,$" fix3.out && grep -q "^+			__atomic_store_n(&state, 2, __ATOMIC_RELEASE);$" fix3.out && ! grep -q "boot_cpu_data" fix3.out && grep -q "trapcheck: 2 fixes printed" fix3.err && ! grep -q "verification failed" fix3.err'
(cd tree3 && patch -p1 -s < ../fix3.out)
"$TRAPCHECK" -p tree3 --format=json -o after3.json 2> after3.err
check_that "the patched copy: the three CPUIDs run on the first call only, notes (an unlikely branch), not warnings" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); w = [f for f in d[\"findings\"] if f[\"function\"].startswith(\"lzx_cpuid\") and f[\"function\"] != \"lzx_cpuid_bmi2\"]; n = [f for f in d[\"low_confidence\"] if f[\"function\"] == \"lzx_cpuid_uncached\"]; sys.exit(w or len(n) != 3)" after3.json'

# The second rewrite must refuse where keeping the answer could change
# it: the function holding the CPUIDs takes a parameter (a leaf chosen
# by the caller would be cached for every caller).
rm -rf tree4 && cp -r tree3 tree4 && cp "$FX/lib/lzx/cpu.h" tree4/lib/lzx/cpu.h
sed -i 's/^static inline struct lzx_cpuid lzx_cpuid(void)$/static inline struct lzx_cpuid lzx_cpuid(int all)/; s/^	struct lzx_cpuid c = lzx_cpuid();$/	struct lzx_cpuid c = lzx_cpuid(1);/' \
	tree4/lib/lzx/cpu.h
"$TRAPCHECK" -p tree4 --fix > fix4.out 2> fix4.err
check_that "--fix: no second rewrite of a function with a parameter; the note gives both reasons" \
	'grep -q "lzx_cpuid(int all)" tree4/lib/lzx/cpu.h && ! grep -q "^diff --git a/lib/lzx/cpu.h" fix4.out && [ "$(grep -c "lib/lzx/cpu.h:[0-9]*:[0-9]*: note: fix not written: verification failed: re-parse: lib/lzx/decompress.c has new errors: .*get_current.*; no second rewrite: lzx_cpuid() is not a static function of no parameters that calls nothing, whose answer could be kept$" fix4.err)" -eq 3 ]'

# The outer hypervisor (--outer=kvm, the default): PT's host/guest
# switching runs only when cpu_has_vmx_intel_pt(); the tree's KVM offers
# a nested host none of the bits it tests, so the read is a note there.
python3 - x.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert 'pt_guest_enter' not in {f['function'] for f in d['findings']}
low = {f['function']: f for f in d['low_confidence']}
n = low['pt_guest_enter']['not_offered']
assert n == ('!vmx_pt_mode_is_system() needs cpu_has_vmx_intel_pt(), which '
             'tests VMX_MISC_INTEL_PT, SECONDARY_EXEC_PT_USE_GPA, '
             'VM_ENTRY_LOAD_IA32_RTIT_CTL: KVM as the outer hypervisor never '
             'offers them to a nested host (nested_vmx_setup_*())'), n
# A read on every entry, under no such condition, stays a warning.
w = [f for f in d['findings'] if f['function'] == 'vmx_snapshot_host_debugctl']
assert len(w) == 1 and w[0]['context'] == 'nested', w
PY
check "--outer=kvm (default): PT switching code is a note naming the bits KVM never offers a nested host; the entry's other read a warning" [ $? -eq 0 ]

# IA32_ARCH_CAPABILITIES as KVM gives it to a guest, from the tree's
# kvm_get_arch_capabilities(): FB_CLEAR_DIS switching needs a bit KVM
# never offers (not in the KVM_SUPPORTED_ARCH_CAP mask, not added); the
# software L1D flush runs only without a bit KVM adds whenever its own
# flush is not turned off.
l1d=$(grep -n 'data |= ARCH_CAP_SKIP_VMENTRY_L1DFLUSH' "$FX/arch/x86/kvm/x86.c" | cut -d: -f1)
python3 - x.json "$l1d" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {f['function'] for f in d['findings']}
assert not names & {'vmx_disable_fb_clear', 'vmx_l1d_flush'}, names
low = {f['function']: f for f in d['low_confidence']}
n = low['vmx_disable_fb_clear']['not_offered']
assert n == ('vmx->disable_fb_clear needs vmx_update_fb_clear_dis(), which '
             'tests ARCH_CAP_FB_CLEAR_CTRL: KVM as the outer hypervisor '
             'never offers it to a nested host (kvm_get_arch_capabilities())'), n
n = low['vmx_l1d_flush']['not_offered']
assert n == ('static_branch_unlikely(&vmx_l1d_should_flush) needs '
             'vmx_setup_l1d_flush() to find ARCH_CAP_SKIP_VMENTRY_L1DFLUSH '
             'clear: KVM as the outer hypervisor sets it for a nested host '
             '(kvm_get_arch_capabilities(), arch/x86/kvm/x86.c:%s, when '
             'l1tf_vmx_mitigation!=VMENTER_L1D_FLUSH_NEVER: the outer host '
             'flushes unless its administrator set '
             'kvm-intel.vmentry_l1d_flush=never or l1tf=off)' % sys.argv[2]), n
assert low['vmx_l1d_flush']['sink'] == 'asm:cpuid', low['vmx_l1d_flush']
PY
check "--outer=kvm: FB_CLEAR_DIS switching and the L1D flush are notes naming the ARCH_CAPABILITIES bit and where KVM decides it" [ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" --outer=any --format=json -o any-cap.json
python3 - any-cap.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {f['function'] for f in d['findings']}
assert {'vmx_disable_fb_clear', 'vmx_l1d_flush'} <= names, names
PY
check "--outer=any: both are warnings" [ $? -eq 0 ]
# CPU families (cpus.def): VMX code's NMI exit reaching AMD's IBS
# handler, or an MSR only AMD CPUs have, runs on no CPU: not reported,
# the summary says so; common code reading IA32_XFD (Intel's) is asked
# about the VMX host's list only.
python3 - x.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert s['no_cpu_sites'] == 2, s
ex = sorted(s['no_cpu_examples'])
assert ex == [
    'arch/x86/events/amd/ibs.c:16 in perf_ibs_nmi_handler(): vmx_vcpu_run() '
    '(Intel, Centaur, Zhaoxin) and perf_ibs_nmi_handler() (AMD, Hygon)',
    'arch/x86/kernel/nmi.c:19 in exc_nmi_kvm_vmx(): MSR_AMD64_IBSBRTARGET '
    '(AMD, Hygon) and vmx_vcpu_run() (Intel, Centaur, Zhaoxin)'], ex
at = {(f['file'], f['line']) for f in d['findings'] + d['low_confidence']}
assert ('arch/x86/events/amd/ibs.c', 16) not in at, at
assert ('arch/x86/kernel/nmi.c', 19) not in at, at
x = [f for f in d['low_confidence'] if f['function'] == 'fpu_sync_guest_vmexit_xfd_state']
assert len(x) == 1, x
assert x[0]['may_not_exit'] == ('MSR_IA32_XFD is on KVM\'s '
    'vmx_possible_passthrough_msrs[]: a read does not exit once KVM passes '
    'it through'), x[0]
assert 'SVM' not in x[0]['message'], x[0]['message']
PY
check "CPU families: IBS code and an AMD MSR reached from VMX code are not reported (summary names both); IA32_XFD read by common code asks the VMX list only" [ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" -o /dev/null 2> cpus.err
check "... the summary line names them" grep -q "^trapcheck: 2 sites not reported: every chain runs code, or reads a register, of two CPU families (arch/x86/events/amd/ibs.c:16 in perf_ibs_nmi_handler(): vmx_vcpu_run() (Intel, Centaur, Zhaoxin) and perf_ibs_nmi_handler() (AMD, Hygon); " cpus.err
# The same handler in generic code (not under events/amd/) runs on an
# Intel CPU: reported from the NMI exit.
rm -rf cpus && cp -r "$FX" cpus && mkdir -p cpus/arch/x86/events/generic
mv cpus/arch/x86/events/amd/ibs.c cpus/arch/x86/events/generic/ibs.c
sed -i 's|arch/x86/events/amd/|arch/x86/events/generic/|g' cpus/compile_commands.json
"$TRAPCHECK" -p cpus --format=json -o cpus.json 2> /dev/null
check_that "the handler outside events/amd/: reported from kvm-run" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not any(f[\"function\"] == \"perf_ibs_nmi_handler\" and f[\"root\"] == \"kvm-run\" for f in d[\"findings\"] + d[\"low_confidence\"]))" cpus.json'

# A site several root sets reach: the warning states the root set that
# warns. DEBUGCTL through the BTS driver (perf) needs a CPU with BTS,
# which only some guests have (machine.def: QEMU's and cloud-hypervisor's
# on a host with PEBS virtualisation), and from clone() only for a
# block-stepped task (rare); ptrace's
# PTRACE_SINGLEBLOCK is cold: the warning is the nested host's, from
# KVM's entry, in context nested.
"$TRAPCHECK" -p "$FX" --per-root --format=json -o perroot.json 2> /dev/null
"$TRAPCHECK" -p "$FX" --per-root --machine=cloud --format=json \
	-o perroot-cloud.json 2> /dev/null
python3 - x.json perroot.json perroot-cloud.json <<'PY'
import json, sys
d, p, c = (json.load(open(f)) for f in sys.argv[1:4])
w = [f for f in d['findings'] if f['file'] == 'arch/x86/include/asm/debugreg.h']
assert len(w) == 1, w
w = w[0]
assert w['root'] == 'kvm-run' and w['context'] == 'nested', w
assert [s['function'] for s in w['chain']] == ['vcpu_enter_guest', 'get_debugctlmsr'], w
assert 'of a KVM host (traps only under nested virtualisation)' in w['message'], w
assert {a['root'] for a in w['also_reached']} == {'perf', 'syscall'}, w['also_reached']
low = {f['root']: f for f in p['low_confidence']
       if f['file'] == 'arch/x86/include/asm/debugreg.h'}
why = ('it runs only when the intel_bts PMU is registered (bts_init()), '
       'bts_event_read() being its code, on a CPU with BTS, which only '
       'some guests have: ')
assert 'no_device' not in low['perf'], low['perf']
doubt = low['perf']['machine_doubt']
assert doubt.startswith(why + 'virt (QEMU -cpu host (a vPMU) on an Intel '
                        'host with PEBS virtualisation'), doubt
assert '; cloud (cloud-hypervisor (its host CPU profile) on an Intel host ' \
    'with PEBS virtualisation' in doubt, doubt
assert 'not known to' not in doubt, doubt
cloud = [f for f in c['low_confidence'] if f['root'] == 'perf' and
         f['file'] == 'arch/x86/include/asm/debugreg.h']
assert cloud and cloud[0]['machine_doubt'].startswith(
    why + 'cloud (cloud-hypervisor'), cloud
assert low['syscall']['rate']['rare'] == \
    'clone or step change of a task a debugger block-steps (PTRACE_SINGLEBLOCK)', low['syscall']
for f in p['findings'] + p['low_confidence']:
    assert 'user_enable_block_step' not in [s['function'] for s in f['chain']], f
PY
check "a site of several root sets: the warning is the nested host's (BTS needs a CPU only some guests have, block stepping is rare, PTRACE_SINGLEBLOCK cold)" [ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" --machine=any --format=json -o machany.json 2> /dev/null
check_that "--machine=any: the BTS driver's read is the guest's warning again" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); w = [f for f in d[\"findings\"] if f[\"file\"] == \"arch/x86/include/asm/debugreg.h\"]; sys.exit(not (w and w[0][\"root\"] == \"perf\" and w[0][\"context\"] == \"guest\"))" machany.json'

# What a guest's CPU capability needs KVM to offer, from the tree
# (outer.def CPU_OFFER): BTS needs DS and DTES64, which the fixture's
# vmx_set_cpu_caps() offers only with PEBS virtualisation and its
# svm_set_cpu_caps() not at all (a host's answer: the doubt says so, the
# note stays the machine's). A KVM that names DTES64 nowhere but in
# kvm_cpu_cap_clear() never offers it: the note is KVM's, --outer=any
# the machine's again. Spelled F(DTES64) in kvm_set_cpu_caps()'s mask,
# which both vendors call first, it is offered on every host; unless
# both take it away after, unconditionally. Without one vendor's
# function in the compile database nothing is concluded.
bts_doubt() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = [f for f in d['low_confidence'] if f['root'] == 'perf' and
       f['file'] == 'arch/x86/include/asm/debugreg.h']
assert len(low) == 1, low
f = low[0]
print(f.get('not_in_kvm', '-'))
print(f.get('machine_doubt', '-'))
PY
}
btswhy="it runs only when the intel_bts PMU is registered (bts_init()), bts_event_read() being its code"
bts_doubt perroot.json > bts-fx.txt
check_that "BTS: KVM offers DS and DTES64 only on a host with PEBS virtualisation, named in the doubt with their lines" \
	'sed -n 1p bts-fx.txt | grep -qx -- - &&
	 sed -n 2p bts-fx.txt | grep -q "; KVM offers a guest X86_FEATURE_DS and X86_FEATURE_DTES64 only on a host where vmx_pebs_supported() (vmx_set_cpu_caps(), arch/x86/kvm/vmx/vmx.c:$(grep -n "check_and_set(X86_FEATURE_DS)" "$FX/arch/x86/kvm/vmx/vmx.c" | cut -d: -f1), :$(grep -n "check_and_set(X86_FEATURE_DTES64)" "$FX/arch/x86/kvm/vmx/vmx.c" | cut -d: -f1))$" || { sed "s/^/# /" bts-fx.txt; false; }'
rm -rf nodtes && cp -r "$FX" nodtes
sed -i '/kvm_cpu_cap_check_and_set(X86_FEATURE_DTES64);/d; s/kvm_cpu_cap_clear(X86_FEATURE_PDCM);/kvm_cpu_cap_clear(X86_FEATURE_PDCM);\n\tkvm_cpu_cap_clear(X86_FEATURE_DTES64);/' \
	nodtes/arch/x86/kvm/vmx/vmx.c
"$TRAPCHECK" -p nodtes --per-root --format=json -o nodtes.json 2> /dev/null
bts_doubt nodtes.json > bts-nodtes.txt
"$TRAPCHECK" -p nodtes --per-root --outer=any --format=json \
	-o nodtes-any.json 2> /dev/null
bts_doubt nodtes-any.json > bts-nodtes-any.txt
check_that "a KVM that names DTES64 only to clear it never offers BTS: the note is KVM's; --outer=any the machine's again" \
	'grep -q "kvm_cpu_cap_clear(X86_FEATURE_DTES64)" nodtes/arch/x86/kvm/vmx/vmx.c &&
	 sed -n 1p bts-nodtes.txt | grep -qx "$btswhy: a CPU with BTS needs X86_FEATURE_DTES64, which KVM as the outer hypervisor never offers a guest: vmx_set_cpu_caps() and svm_set_cpu_caps() and kvm_set_cpu_caps(), which they call, name it only in a clear or before one, in a test, or not at all" &&
	 sed -n 1p bts-nodtes-any.txt | grep -qx -- - &&
	 sed -n 2p bts-nodtes-any.txt | grep -q "^$btswhy" &&
	 ! grep -q "KVM offers" bts-nodtes-any.txt || { sed "s/^/# /" bts-nodtes.txt bts-nodtes-any.txt; false; }'
rm -rf fdtes && cp -r "$FX" fdtes
sed -i 's|F(XMM3) \| 0 /\* DTES64, MONITOR \*/|F(XMM3) \| F(DTES64)|' \
	fdtes/arch/x86/kvm/x86.c
"$TRAPCHECK" -p fdtes --per-root --format=json -o f-dtes.json 2> /dev/null
bts_doubt f-dtes.json > bts-f.txt
check_that "DTES64 spelled F(DTES64) in kvm_set_cpu_caps()'s mask: offered on every host" \
	'grep -q "F(DTES64)" fdtes/arch/x86/kvm/x86.c &&
	 sed -n 1p bts-f.txt | grep -qx -- - &&
	 sed -n 2p bts-f.txt | grep -q "; KVM offers a guest X86_FEATURE_DS only on a host where vmx_pebs_supported() (vmx_set_cpu_caps(), arch/x86/kvm/vmx/vmx.c:[0-9][0-9]*); KVM offers a guest X86_FEATURE_DTES64 (kvm_set_cpu_caps(), arch/x86/kvm/x86.c:$(grep -n "F(DTES64)" fdtes/arch/x86/kvm/x86.c | cut -d: -f1))$" || { sed "s/^/# /" bts-f.txt; false; }'
# KVM 6.14 and later spell each kind of bit with its own macro:
# EMULATED_F() (and SCATTERED_F(), X86_64_F() ...) offers the bit,
# VENDOR_F() and RUNTIME_F() offer nothing (outer.def's OFFER_SPELL).
spell614() {
	rm -rf "$1" && cp -r "$FX" "$1"
	python3 - "$1/arch/x86/kvm/x86.c" "$2" <<'PY'
import sys
p, mask = sys.argv[1:]
s = open(p).read()
for a, b in (('#define F feature_bit\n', '#define F feature_bit\n'
	      '#define EMULATED_F(name) F(name)\n'
	      '#define VENDOR_F(name) 0\n#define RUNTIME_F(name) 0\n'),
	     ('0 /* DTES64, MONITOR */', mask)):
	assert a in s, a
	s = s.replace(a, b)
open(p, 'w').write(s)
PY
	sed -i '/kvm_cpu_cap_check_and_set(X86_FEATURE_DTES64);/d' \
		"$1/arch/x86/kvm/vmx/vmx.c"
	"$TRAPCHECK" -p "$1" --per-root --format=json -o "$1.json" 2> "$1.err"
	bts_doubt "$1.json" > "$1.txt"
}
spell614 emul 'EMULATED_F(DTES64)'
check_that "DTES64 spelled EMULATED_F(DTES64) (KVM 6.14): offered on every host" \
	'grep -q "EMULATED_F(DTES64)" emul/arch/x86/kvm/x86.c &&
	 grep -q "^trapcheck: 19 TUs analysed (0 with errors" emul.err &&
	 sed -n 1p emul.txt | grep -qx -- - &&
	 sed -n 2p emul.txt | grep -q "; KVM offers a guest X86_FEATURE_DTES64 (kvm_set_cpu_caps(), arch/x86/kvm/x86.c:$(grep -n "EMULATED_F(DTES64)" emul/arch/x86/kvm/x86.c | cut -d: -f1))$" || { sed "s/^/# /" emul.txt emul.err; false; }'
spell614 vendorf 'VENDOR_F(DTES64) | RUNTIME_F(DTES64)'
check_that "DTES64 spelled VENDOR_F() and RUNTIME_F() only, no vendor sets it: never offered" \
	'grep -q "VENDOR_F(DTES64) | RUNTIME_F(DTES64)" vendorf/arch/x86/kvm/x86.c &&
	 grep -q "^trapcheck: 19 TUs analysed (0 with errors" vendorf.err &&
	 sed -n 1p vendorf.txt | grep -q "needs X86_FEATURE_DTES64, which KVM as the outer hypervisor never offers a guest" || { sed "s/^/# /" vendorf.txt vendorf.err; false; }'
# A bit a vendor only asks about (an OFFER_TEST call) is not offered.
rm -rf tested && cp -r "$FX" tested
sed -i 's/kvm_cpu_cap_check_and_set(X86_FEATURE_DTES64);/if (boot_cpu_has(X86_FEATURE_DTES64))\n\t\t\tkvm_cpu_cap_clear(X86_FEATURE_PDCM);/' \
	tested/arch/x86/kvm/vmx/vmx.c
"$TRAPCHECK" -p tested --per-root --format=json -o tested.json 2> tested.err
bts_doubt tested.json > tested.txt
check_that "DTES64 only in a vendor's boot_cpu_has(): never offered" \
	'grep -q "if (boot_cpu_has(X86_FEATURE_DTES64))" tested/arch/x86/kvm/vmx/vmx.c &&
	 grep -q "^trapcheck: 19 TUs analysed (0 with errors" tested.err &&
	 sed -n 1p tested.txt | grep -q "needs X86_FEATURE_DTES64, which KVM as the outer hypervisor never offers a guest" || { sed "s/^/# /" tested.txt tested.err; false; }'
# ... and it takes nothing away: asked about after the offer, still
# offered.
rm -rf testafter && cp -r "$FX" testafter
sed -i 's/kvm_cpu_cap_check_and_set(X86_FEATURE_DTES64);/&\n\t\tif (!boot_cpu_has(X86_FEATURE_DTES64))\n\t\t\tkvm_cpu_cap_clear(X86_FEATURE_PDCM);/' \
	testafter/arch/x86/kvm/vmx/vmx.c
"$TRAPCHECK" -p testafter --per-root --format=json -o testafter.json \
	2> testafter.err
bts_doubt testafter.json > testafter.txt
check_that "DTES64 offered, then asked about in boot_cpu_has(): still offered" \
	'grep -q "if (!boot_cpu_has(X86_FEATURE_DTES64))" testafter/arch/x86/kvm/vmx/vmx.c &&
	 sed -n 1p testafter.txt | grep -qx -- - &&
	 sed -n 2p testafter.txt | grep -q "; KVM offers a guest X86_FEATURE_DS and X86_FEATURE_DTES64 only on a host where vmx_pebs_supported() " || { sed "s/^/# /" testafter.txt testafter.err; false; }'
# Both vendors take it away after kvm_set_cpu_caps() (a clear of the
# vendor runs after what it calls; one in the expression of a clear).
sed -i 's/kvm_cpu_cap_clear(X86_FEATURE_PDCM);/kvm_cpu_cap_clear(X86_FEATURE_PDCM);\n\tkvm_cpu_cap_clear(X86_FEATURE_DTES64);/' \
	fdtes/arch/x86/kvm/vmx/vmx.c
sed -i 's/kvm_cpu_cap_clear(X86_FEATURE_PDCM);/kvm_cpu_cap_clear(X86_FEATURE_PDCM | X86_FEATURE_DTES64);/' \
	fdtes/arch/x86/kvm/svm/svm.c
"$TRAPCHECK" -p fdtes --per-root --format=json -o f-clear.json 2> /dev/null
bts_doubt f-clear.json > bts-fclear.txt
check_that "F(DTES64) taken away after by both vendors: never offered" \
	'grep -q "X86_FEATURE_PDCM | X86_FEATURE_DTES64" fdtes/arch/x86/kvm/svm/svm.c &&
	 sed -n 1p bts-fclear.txt | grep -q "needs X86_FEATURE_DTES64, which KVM as the outer hypervisor never offers a guest" || { sed "s/^/# /" bts-fclear.txt; false; }'
rm -rf novmx && cp -r "$FX" novmx
python3 - novmx/compile_commands.json <<'PY'
import json, sys
p = sys.argv[1]
d = [e for e in json.load(open(p)) if not e['file'].endswith('kvm/vmx/vmx.c')]
json.dump(d, open(p, 'w'), indent=1)
PY
sed -i '/kvm_cpu_cap_check_and_set(X86_FEATURE_DTES64);/d' \
	novmx/arch/x86/kvm/vmx/vmx.c
"$TRAPCHECK" -p novmx --per-root --format=json -o novmx.json 2> /dev/null
bts_doubt novmx.json > bts-novmx.txt
check_that "vmx_set_cpu_caps() not in the compile database: nothing concluded of KVM's offer, and the doubt says why" \
	'! grep -q "vmx/vmx.c" novmx/compile_commands.json &&
	 sed -n 1p bts-novmx.txt | grep -qx -- - &&
	 sed -n 2p bts-novmx.txt | grep -q "BTS_UNAVAIL clear); whether KVM offers a guest X86_FEATURE_DS and X86_FEATURE_DTES64 is not known: vmx_set_cpu_caps() (arch/x86/kvm/vmx/vmx.c) is not in the analysed tree$" &&
	 ! grep -q "; KVM offers a guest X86_FEATURE_D" bts-novmx.txt || { sed "s/^/# /" bts-novmx.txt; false; }'

# One vendor not analysed, the other offers the bit: its offer stands;
# the bit no analysed vendor offers is the one not known.
rm -rf svmoffer && cp -r novmx svmoffer
sed -i 's/^\tkvm_set_cpu_caps();$/&\n\tkvm_cpu_cap_set(X86_FEATURE_DTES64);/' \
	svmoffer/arch/x86/kvm/svm/svm.c
"$TRAPCHECK" -p svmoffer --per-root --format=json -o svmoffer.json 2> /dev/null
bts_doubt svmoffer.json > bts-svmoffer.txt
check_that "vmx_set_cpu_caps() not analysed, svm_set_cpu_caps() sets DTES64: that offer stands, DS is not known" \
	'sed -n 1p bts-svmoffer.txt | grep -qx -- - &&
	 sed -n 2p bts-svmoffer.txt | grep -q "BTS_UNAVAIL clear); KVM offers a guest X86_FEATURE_DTES64 (svm_set_cpu_caps(), arch/x86/kvm/svm/svm.c:$(grep -n "kvm_cpu_cap_set(X86_FEATURE_DTES64)" svmoffer/arch/x86/kvm/svm/svm.c | cut -d: -f1)); whether KVM offers a guest X86_FEATURE_DS is not known: vmx_set_cpu_caps() (arch/x86/kvm/vmx/vmx.c) is not in the analysed tree$" || { sed "s/^/# /" bts-svmoffer.txt; false; }'

# The order of clears, per vendor: each case from a copy whose
# kvm_set_cpu_caps() spells F(DTES64) and whose vmx_set_cpu_caps() names
# DTES64 nowhere else. offer_case NAME SED-VMX SED-SVM [COMPDB-DROP]
offer_case() {
	rm -rf "$1" && cp -r "$FX" "$1"
	sed -i 's|F(XMM3) \| 0 /\* DTES64, MONITOR \*/|F(XMM3) \| F(DTES64)|' \
		"$1/arch/x86/kvm/x86.c"
	sed -i "/kvm_cpu_cap_check_and_set(X86_FEATURE_DTES64);/d; $2" \
		"$1/arch/x86/kvm/vmx/vmx.c"
	[ -n "$3" ] && sed -i "$3" "$1/arch/x86/kvm/svm/svm.c"
	if [ -n "${4:-}" ]; then
		python3 - "$1/compile_commands.json" "$4" <<'PY'
import json, sys
p = sys.argv[1]
d = [e for e in json.load(open(p)) if not e['file'].endswith(sys.argv[2])]
json.dump(d, open(p, 'w'), indent=1)
PY
	fi
	"$TRAPCHECK" -p "$1" --per-root --format=json -o "$1.json" 2> /dev/null
	bts_doubt "$1.json" > "$1.txt"
}
clear_after='s/kvm_cpu_cap_clear(X86_FEATURE_PDCM);/kvm_cpu_cap_clear(X86_FEATURE_PDCM);\n\tkvm_cpu_cap_clear(X86_FEATURE_DTES64);/'
fline() { grep -n "F(DTES64)" "$1/arch/x86/kvm/x86.c" | cut -d: -f1; }
offer_case oneclear '' "$clear_after"
check_that "a clear of the SVM vendor only: DTES64 still offered through VMX" \
	'grep -q "kvm_cpu_cap_clear(X86_FEATURE_DTES64)" oneclear/arch/x86/kvm/svm/svm.c &&
	 sed -n 1p oneclear.txt | grep -qx -- - &&
	 sed -n 2p oneclear.txt | grep -q "; KVM offers a guest X86_FEATURE_DTES64 (kvm_set_cpu_caps(), arch/x86/kvm/x86.c:$(fline oneclear))$" || { sed "s/^/# /" oneclear.txt; false; }'
offer_case before "$clear_after" 's/^\tkvm_set_cpu_caps();/\tkvm_cpu_cap_clear(X86_FEATURE_DTES64);\n\tkvm_set_cpu_caps();/'
check_that "SVM's clear before its call of kvm_set_cpu_caps(): DTES64 offered there" \
	'[ "$(grep -n "kvm_cpu_cap_clear(X86_FEATURE_DTES64)" before/arch/x86/kvm/svm/svm.c | cut -d: -f1)" -lt "$(grep -n "^	kvm_set_cpu_caps();" before/arch/x86/kvm/svm/svm.c | cut -d: -f1)" ] &&
	 sed -n 1p before.txt | grep -qx -- - &&
	 sed -n 2p before.txt | grep -q "; KVM offers a guest X86_FEATURE_DTES64 (kvm_set_cpu_caps(), arch/x86/kvm/x86.c:$(fline before))$" || { sed "s/^/# /" before.txt; false; }'
offer_case nocallee "$clear_after" "$clear_after" kvm/x86.c
check_that "kvm_set_cpu_caps() not in the compile database: nothing concluded, and the doubt says why" \
	'! grep -q "kvm/x86.c" nocallee/compile_commands.json &&
	 sed -n 1p nocallee.txt | grep -qx -- - &&
	 sed -n 2p nocallee.txt | grep -q "; whether KVM offers a guest X86_FEATURE_DS and X86_FEATURE_DTES64 is not known: kvm_set_cpu_caps(), which vmx_set_cpu_caps() calls, is not in the analysed tree$" &&
	 ! grep -q "; KVM offers a guest X86_FEATURE_D" nocallee.txt || { sed "s/^/# /" nocallee.txt; false; }'
ifdef_clear='s/kvm_cpu_cap_clear(X86_FEATURE_PDCM);/kvm_cpu_cap_clear(X86_FEATURE_PDCM);\n#ifdef CONFIG_NEVER_SET\n\tkvm_cpu_cap_clear(X86_FEATURE_DTES64);\n#endif/'
offer_case ifdef "$ifdef_clear" "$ifdef_clear"
check_that "clears the preprocessor drops: DTES64 offered" \
	'grep -q "CONFIG_NEVER_SET" ifdef/arch/x86/kvm/svm/svm.c &&
	 sed -n 1p ifdef.txt | grep -qx -- - &&
	 sed -n 2p ifdef.txt | grep -q "; KVM offers a guest X86_FEATURE_DTES64 (kvm_set_cpu_caps(), arch/x86/kvm/x86.c:$(fline ifdef))$" || { sed "s/^/# /" ifdef.txt; false; }'
rm -rf twohosts && cp -r "$FX" twohosts
sed -i 's/if (!enable_pmu)/if (enable_pmu)\n\t\tkvm_cpu_cap_set(X86_FEATURE_DTES64);\n\tif (!enable_pmu)/' \
	twohosts/arch/x86/kvm/vmx/vmx.c
"$TRAPCHECK" -p twohosts --per-root --format=json -o twohosts.json 2> /dev/null
bts_doubt twohosts.json > twohosts.txt
v=twohosts/arch/x86/kvm/vmx/vmx.c
check_that "DTES64 under two guards the host decides: both, each at its line" \
	'sed -n 2p twohosts.txt | grep -q "; KVM offers a guest X86_FEATURE_DS only on a host where vmx_pebs_supported() (vmx_set_cpu_caps(), arch/x86/kvm/vmx/vmx.c:$(grep -n "set(X86_FEATURE_DS)" $v | cut -d: -f1)); KVM offers a guest X86_FEATURE_DTES64 only on a host where vmx_pebs_supported() (vmx_set_cpu_caps(), arch/x86/kvm/vmx/vmx.c:$(grep -n "check_and_set(X86_FEATURE_DTES64)" $v | cut -d: -f1)) or enable_pmu (vmx_set_cpu_caps(), arch/x86/kvm/vmx/vmx.c:$(grep -n "kvm_cpu_cap_set(X86_FEATURE_DTES64)" $v | cut -d: -f1))$" || { sed "s/^/# /" twohosts.txt; false; }'

# AMD's LBR code (conditions.def CPU_FILE arch/x86/events/amd/lbr.c)
# needs LBR v2, X86_FEATURE_AMD_LBR_V2, which no *_set_cpu_caps() of the
# fixture names: a note of KVM's, whatever --machine; --outer=any the
# machine's (no profile has a CPU_CAP line for it).
rm -rf amdlbr && cp -r "$FX" amdlbr
mv amdlbr/arch/x86/events/core.c amdlbr/arch/x86/events/amd/lbr.c
sed -i 's|arch/x86/events/\.core\.o|arch/x86/events/amd/.lbr.o|; s|arch/x86/events/core\.[co]|arch/x86/events/amd/lbr.c|g' \
	amdlbr/compile_commands.json
"$TRAPCHECK" -p amdlbr > amdlbr.txt 2>&1
"$TRAPCHECK" -p amdlbr --machine=any > amdlbr-any.txt 2>&1
"$TRAPCHECK" -p amdlbr --outer=any > amdlbr-outer.txt 2>&1
amdat="^arch/x86/events/amd/lbr.c:$lbr:2: note:"
amdwhy="__intel_pmu_lbr_enable() reached from perf, but it runs only when amd_pmu_lbr_init() found LBR v2 (x86_pmu.lbr_nr), [a-z0-9_]*() being its code"
check_that "AMD LBR v2: KVM never offers X86_FEATURE_AMD_LBR_V2, a note of KVM on --machine=guest and any; --outer=any: no machine has it" \
	'grep -q "$amdat not under KVM, not warned of: $amdwhy: a CPU with AMD LBR v2 needs X86_FEATURE_AMD_LBR_V2, which KVM as the outer hypervisor never offers a guest: vmx_set_cpu_caps() and svm_set_cpu_caps() and kvm_set_cpu_caps(), which they call, name it only in a clear or before one, in a test, or not at all: x86_pmu_add -> " amdlbr.txt &&
	 grep -q "$amdat not under KVM, not warned of: $amdwhy: a CPU with AMD LBR v2 needs" amdlbr-any.txt &&
	 grep -q "$amdat not on the guest.s machine, not warned of: $amdwhy, on a CPU with AMD LBR v2, which no machine of --machine=guest is known to offer a guest: x86_pmu_add -> " amdlbr-outer.txt || { grep "lbr.c:$lbr:" amdlbr.txt amdlbr-any.txt amdlbr-outer.txt | sed "s/^/# /"; false; }'

rm -rf amdbrs && cp -r "$FX" amdbrs
mv amdbrs/arch/x86/events/core.c amdbrs/arch/x86/events/amd/brs.c
sed -i 's|arch/x86/events/\.core\.o|arch/x86/events/amd/.brs.o|; s|arch/x86/events/core\.[co]|arch/x86/events/amd/brs.c|g' \
	amdbrs/compile_commands.json
"$TRAPCHECK" -p amdbrs > amdbrs.txt 2>&1
check_that "AMD BRS: KVM never offers X86_FEATURE_BRS, a note of KVM" \
	'grep -q "^arch/x86/events/amd/brs.c:$lbr:2: note: not under KVM, not warned of: __intel_pmu_lbr_enable() reached from perf, but it runs only when amd_brs_detect() found branch sampling (X86_FEATURE_BRS), [a-z0-9_]*() being its code: a CPU with AMD BRS needs X86_FEATURE_BRS, which KVM as the outer hypervisor never offers a guest: " amdbrs.txt || { grep "brs.c:$lbr:" amdbrs.txt | sed "s/^/# /"; false; }'

# A static function of another file with a vendor's name is not the
# vendor (outer.def names each with its file): its X86_FEATURE_BRS
# offers nothing, and BRS stays a note of KVM.
rm -rf samename && cp -r amdbrs samename
cat > samename/arch/x86/kvm/svm/caps.c <<'EOF'
#include <linux/types.h>
#include "../x86.h"

#define X86_FEATURE_BRS		(13*32+31) /* Branch Sampling available */

static void svm_set_cpu_caps(void)
{
	kvm_cpu_cap_set(X86_FEATURE_BRS);
}

void svm_caps_init(void)
{
	svm_set_cpu_caps();
}
EOF
python3 - samename/compile_commands.json <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
e = dict(next(e for e in d if e['file'].endswith('svm/svm.c')))
e['command'] = e['command'].replace('svm.', 'caps.').replace('"svm"', '"caps"')
e['file'] = e['file'].replace('svm.c', 'caps.c')
json.dump(d + [e], open(p, 'w'), indent=1)
PY
"$TRAPCHECK" -p samename > samename.txt 2>&1
check_that "a static svm_set_cpu_caps() of another file offers nothing: AMD BRS still a note of KVM" \
	'grep -q "caps\.c" samename/compile_commands.json &&
	 grep -q "^trapcheck: 20 TUs analysed (0 with errors" samename.txt &&
	 grep -q "^arch/x86/events/amd/brs.c:$lbr:2: note: not under KVM, not warned of: .*a CPU with AMD BRS needs X86_FEATURE_BRS, which KVM as the outer hypervisor never offers a guest: " samename.txt || { grep -e "brs.c:$lbr:" -e "^trapcheck:" samename.txt | sed "s/^/# /"; false; }'
# ... nor takes away: svm.c's svm_set_cpu_caps() sets BRS, the other
# file's clears it (on a later line): BRS is offered, no note of KVM.
cp -r samename sameclear
sed -i 's/^\tkvm_set_cpu_caps();$/&\n\tkvm_cpu_cap_set(X86_FEATURE_BRS);/' \
	sameclear/arch/x86/kvm/svm/svm.c
sed -i 's/^#include "..\/x86.h"$/&\n#define X86_FEATURE_BRS\t\t(13*32+31)/' \
	sameclear/arch/x86/kvm/svm/svm.c
python3 - sameclear/arch/x86/kvm/svm/caps.c <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().replace('kvm_cpu_cap_set(X86_FEATURE_BRS);',
			   'kvm_cpu_cap_clear(X86_FEATURE_BRS);')
open(p, 'w').write('/*\n' + ' *\n' * 40 + ' */\n' + s)
PY
"$TRAPCHECK" -p sameclear > sameclear.txt 2>&1
check_that "... nor takes it away: svm.c sets BRS, another file's static svm_set_cpu_caps() clears it later: offered, not a note of KVM" \
	'grep -q "kvm_cpu_cap_set(X86_FEATURE_BRS);" sameclear/arch/x86/kvm/svm/svm.c &&
	 [ "$(grep -n "kvm_cpu_cap_clear(X86_FEATURE_BRS)" sameclear/arch/x86/kvm/svm/caps.c | cut -d: -f1)" -gt "$(grep -n "kvm_cpu_cap_set(X86_FEATURE_BRS)" sameclear/arch/x86/kvm/svm/svm.c | cut -d: -f1)" ] &&
	 grep -q "^trapcheck: 20 TUs analysed (0 with errors" sameclear.txt &&
	 grep -q "^arch/x86/events/amd/brs.c:$lbr:2: " sameclear.txt &&
	 ! grep "^arch/x86/events/amd/brs.c:$lbr:2: " sameclear.txt | grep -q "not under KVM" || { grep -e "brs.c:$lbr:" -e "^trapcheck:" sameclear.txt | sed "s/^/# /"; false; }'

# Two functions that fit a vendor's "file-pattern:name" (a static one of
# the same name in another file under vmx/): which makes the offer is not
# known, nothing is concluded, and the doubt says why.
rm -rf twolbr && cp -r "$FX" twolbr
cat >> twolbr/arch/x86/kvm/vmx/nested.c <<'EOF'

static u64 vmx_get_perf_capabilities(void)
{
	return 0;
}

u64 nested_vmx_perf_caps(void)
{
	return vmx_get_perf_capabilities();
}
EOF
"$TRAPCHECK" -p twolbr --machine=virt > twolbr.txt 2>&1
check_that "two vmx_get_perf_capabilities() under vmx/: KVM's LBR offer not known, and the note says why" \
	'[ "$(grep -l "vmx_get_perf_capabilities(void)$" twolbr/arch/x86/kvm/vmx/*.c | wc -l)" -eq 2 ] &&
	 grep -q "$lbrnote virt (QEMU with a vPMU .* lbr-fmt)); whether KVM offers a guest PMU_CAP_LBR_FMT is not known: vmx_get_perf_capabilities() (arch/x86/kvm/vmx/\*) is defined more than once: x86_pmu_add -> " twolbr.txt || { grep "core.c:$lbr:" twolbr.txt | sed "s/^/# /"; false; }'

# APERF/MPERF (conditions.def CPU, outer.def CPU_OFFER): KVM's supported
# CPUID writes leaf 6 in __do_cpuid_func() (arch/x86/kvm/cpuid.c), which
# the base fixture lacks: what KVM offers is not known there, and the
# doubt says so. With a cpuid.c whose leaf 6 ECX is 0, no KVM guest has
# it (a note of KVM); with one that spells F(APERFMPERF), KVM offers it.
mperf=$(grep -n "rdmsrl(MSR_IA32_MPERF" "$FX/arch/x86/mm/fault.c" | cut -d: -f1)
mperf_doubt() {
	python3 - "$1" "$mperf" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = [f for f in d['low_confidence'] if f['register'] == 'MSR_IA32_MPERF']
assert len(low) == 1, low
f = low[0]
assert (f['file'], f['line'], f['function']) == \
    ('arch/x86/mm/fault.c', int(sys.argv[2]), 'fault_mperf'), f
assert [c['function'] for c in f['chain']] == ['handle_page_fault',
                                               'fault_mperf'], f
print(f.get('not_in_kvm', '-'))
print(f.get('machine_doubt', '-'))
print(f.get('no_device', '-'))
PY
}
mperf_doubt x.json > mperf-fx.txt
mperfwhy="it runs only when cpu_feature_enabled(X86_FEATURE_APERFMPERF), on a CPU with APERF/MPERF, which only some guests have: cloud (EC2 instance types whose guest controls P-states"
check_that "APERF/MPERF without KVM's cpuid.c: the cloud may have it, whether KVM offers it is not known" \
	'sed -n 1p mperf-fx.txt | grep -qx -- - &&
	 sed -n 2p mperf-fx.txt | grep -q "^$mperfwhy .*; whether KVM offers a guest X86_FEATURE_APERFMPERF is not known: __do_cpuid_func() (arch/x86/kvm/cpuid.c) is not in the analysed tree$" || { sed "s/^/# /" mperf-fx.txt; false; }'
leaf6_case() {
	rm -rf "$1" && cp -r "$FX" "$1"
	cat > "$1/arch/x86/kvm/cpuid.c" <<EOF
#include <linux/types.h>
#include <asm/cpufeatures.h>
#include "x86.h"

#define feature_bit(name)	(1u << ((X86_FEATURE_##name) & 31))
#define F feature_bit

struct kvm_cpuid_entry2 {
	u32 function, eax, ebx, ecx, edx;
};

static int __do_cpuid_func(struct kvm_cpuid_entry2 *entry)
{
	switch (entry->function) {
	case 6: /* Thermal management */
		entry->eax = 0x4; /* allow ARAT */
		entry->ebx = 0;
		entry->ecx = $2;
		entry->edx = 0;
		break;
	}
	return 0;
}

int kvm_dev_ioctl_get_cpuid(struct kvm_cpuid_entry2 *entry)
{
	return __do_cpuid_func(entry);
}
EOF
	python3 - "$1/compile_commands.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
e = dict(next(e for e in d if e['file'] == 'arch/x86/kvm/x86.c'))
e['command'] = e['command'].replace('x86.', 'cpuid.').replace('"x86"', '"cpuid"')
e['file'] = 'arch/x86/kvm/cpuid.c'
json.dump(d + [e], open(p, 'w'), indent=1)
PY
	"$TRAPCHECK" -p "$1" --format=json -o "$1.json" 2> "$1.err"
	mperf_doubt "$1.json" > "$1.txt"
}
leaf6_case leaf6 0
check_that "leaf 6 ECX 0 in __do_cpuid_func(): no KVM guest has APERF/MPERF, a note of KVM naming the functions searched" \
	'grep -q "^trapcheck: 20 TUs analysed (0 with errors" leaf6.err &&
	 sed -n 1p leaf6.txt | grep -qx "it runs only when cpu_feature_enabled(X86_FEATURE_APERFMPERF): a CPU with APERF/MPERF needs X86_FEATURE_APERFMPERF, which KVM as the outer hypervisor never offers a guest: __do_cpuid_func(), vmx_set_cpu_caps() and svm_set_cpu_caps() and kvm_set_cpu_caps(), which they call, name it only in a clear or before one, in a test, or not at all" || { sed "s/^/# /" leaf6.txt leaf6.err; false; }'
leaf6_case leaf6f 'F(APERFMPERF)'
check_that "leaf 6 ECX F(APERFMPERF): KVM offers it, the doubt says where, not a note of KVM" \
	'grep -q "entry->ecx = F(APERFMPERF);" leaf6f/arch/x86/kvm/cpuid.c &&
	 sed -n 1p leaf6f.txt | grep -qx -- - &&
	 sed -n 2p leaf6f.txt | grep -q "^$mperfwhy .*; KVM offers a guest X86_FEATURE_APERFMPERF (__do_cpuid_func(), arch/x86/kvm/cpuid.c:$(grep -n "F(APERFMPERF)" leaf6f/arch/x86/kvm/cpuid.c | cut -d: -f1))$" || { sed "s/^/# /" leaf6f.txt; false; }'
"$TRAPCHECK" -p leaf6 --outer=any --machine=virt --format=json -o leaf6-virt.json 2> /dev/null
mperf_doubt leaf6-virt.json > leaf6-virt.txt
check_that "--outer=any --machine=virt: no virt guest is known to have APERF/MPERF, whatever KVM offers" \
	'sed -n 1p leaf6-virt.txt | grep -qx -- - &&
	 sed -n 3p leaf6-virt.txt | grep -qx "it runs only when cpu_feature_enabled(X86_FEATURE_APERFMPERF), on a CPU with APERF/MPERF, which no machine of --machine=virt is known to offer a guest" &&
	 ! grep -q "KVM" leaf6-virt.txt || { sed "s/^/# /" leaf6-virt.txt; false; }'

# CPUID registers whose answer differs from CPU to CPU
# (percpu-leaves.def): leaf 0xb's EDX (the x2APIC ID) read alone is told
# this CPU's copy; leaf 1's EBX (the APIC ID in bits 31:24 only) and the
# whole of leaf 0xb keep the advice for CPUID's common answers, with a
# caveat for that register.
rm -rf pcleaf && cp -r "$FX" pcleaf
cat >> pcleaf/arch/x86/mm/fault.c <<'EOF'

static inline unsigned int cpuid_edx(unsigned int op)
{
	unsigned int a, b, c, d;

	cpuid(op, &a, &b, &c, &d);
	return d;
}

unsigned int pcleaf_apic(void)
{
	return cpuid_ebx(1) >> 24;
}

unsigned int pcleaf_all(void)
{
	unsigned int a, b, c, d;

	cpuid(0xb, &a, &b, &c, &d);
	return c;
}

unsigned int pcleaf_x2apic(void)
{
	return cpuid_edx(0xb);
}
EOF
sed -i 's/^void exc_page_fault(unsigned long address)$/unsigned int pcleaf_apic(void);\nunsigned int pcleaf_all(void);\nunsigned int pcleaf_x2apic(void);\n\n&\n{\n\tif (pcleaf_apic() + pcleaf_all() + pcleaf_x2apic() == address)\n\t\treturn;\n\thandle_page_fault(address, address \& 1);\n}\n\nvoid exc_page_fault_unused(unsigned long address)/' \
	pcleaf/arch/x86/mm/fault.c
"$TRAPCHECK" -p pcleaf > pcleaf.txt 2>&1
pcl() { grep -n "$1" pcleaf/arch/x86/mm/fault.c | tail -n 1 | cut -d: -f1; }
common="the kernel keeps CPUID.s answers in boot_cpu_data and cpu_data(cpu): test the feature with boot_cpu_has() or cpu_feature_enabled(), or cache the leaf at boot"
check_that "per-CPU CPUID registers: leaf 0xb's EDX alone is this CPU's (cpu_data(cpu).topo.initial_apicid); leaf 1's EBX and the whole of leaf 0xb keep the common advice with the caveat" \
	'! grep -q "parsed with" pcleaf.txt &&
	 grep -q "^arch/x86/mm/fault.c:$(pcl "return cpuid_edx(0xb)"):[0-9]*: warning: cpuid_edx(0xb) reads CPUID (traps under unconditional CPUID exit) on a hot path; leaf 0xb.s EDX differs from CPU to CPU (this CPU.s x2APIC ID): no copy read at boot stands in; the kernel keeps each CPU.s in cpu_data(cpu).topo.initial_apicid: read that \[trapping-idreg-read\]$" pcleaf.txt &&
	 grep -q "^arch/x86/mm/fault.c:$(pcl "return cpuid_ebx(1) >> 24"):[0-9]*: warning: cpuid_ebx(1) reads CPUID (traps under unconditional CPUID exit) on a hot path; $common; but leaf 0x1.s EBX differs from CPU to CPU (bits 31:24 are this CPU.s initial APIC ID): for that, the kernel keeps each CPU.s in cpu_data(cpu).topo.initial_apicid (its bits 7:0): read that \[trapping-idreg-read\]$" pcleaf.txt &&
	 grep -q "^arch/x86/mm/fault.c:$(pcl "cpuid(0xb, "):[0-9]*: warning: cpuid(0xb) reads CPUID (traps under unconditional CPUID exit) on a hot path; $common; but leaf 0xb.s EDX differs from CPU to CPU (this CPU.s x2APIC ID): for that, the kernel keeps each CPU.s in cpu_data(cpu).topo.initial_apicid: read that \[trapping-idreg-read\]$" pcleaf.txt || { grep "fault.c:2[0-9][0-9]:.*warning\|parsed with" pcleaf.txt | sed "s/^/# /"; false; }'

# --fix says why it writes nothing for those reads (no boot copy of the
# register), not "cache the leaf at boot".
"$TRAPCHECK" -p pcleaf --fix-dir pcfix --format=json -o pcleaf.json 2> /dev/null
python3 - pcleaf.json <<'PY'
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))['findings']
      if f['function'] in ('pcleaf_x2apic', 'pcleaf_apic', 'pcleaf_all')]
assert len(fs) == 3, fs
for f in fs:
    print('# %s: %s' % (f['function'], f['fix']))
    assert 'cache the leaf at boot' not in f['fix'], f
    assert f['fix'].startswith(
        'no fix: leaf ' if f['function'] == 'pcleaf_x2apic' else
        'no fix: what is read of leaf '), f
x = [f for f in fs if f['function'] == 'pcleaf_x2apic'][0]
assert x['fix'] == ("no fix: leaf 0xb's EDX differs from CPU to CPU (this "
                    "CPU's x2APIC ID): no boot copy to read; the kernel "
                    "keeps each CPU's in cpu_data(cpu).topo.initial_apicid: "
                    "read that"), x
PY
check "per-CPU CPUID registers: --fix writes nothing and says what differs per CPU (the register whole, or in part)" \
	[ $? -eq 0 ]

# From the tree: a mask that passes the bit on offers it; a bit that
# reaches the guest only through the mask (the host's) sets nothing; a
# guard no HOST line decides concludes nothing.
rm -rf archcap && cp -r "$FX" archcap
sed -i 's/ARCH_CAP_MDS_NO | ARCH_CAP_FB_CLEAR)/ARCH_CAP_MDS_NO | ARCH_CAP_FB_CLEAR | ARCH_CAP_FB_CLEAR_CTRL)/' \
	archcap/arch/x86/kvm/x86.c
"$TRAPCHECK" -p archcap --format=json -o archcap.json 2> /dev/null
check_that "KVM_SUPPORTED_ARCH_CAP with FB_CLEAR_CTRL: FB_CLEAR_DIS switching is a warning, the L1D flush still a note" \
	'grep -q "FB_CLEAR | ARCH_CAP_FB_CLEAR_CTRL)" archcap/arch/x86/kvm/x86.c && python3 -c "import json, sys; d = json.load(open(sys.argv[1])); w = [f[\"function\"] for f in d[\"findings\"]]; sys.exit(not (\"vmx_disable_fb_clear\" in w and \"vmx_l1d_flush\" not in w))" archcap.json'
rm -rf l1d && cp -r "$FX" l1d
sed -i '/data |= ARCH_CAP_SKIP_VMENTRY_L1DFLUSH;/d; s/if (l1tf_vmx_mitigation != VMENTER_L1D_FLUSH_NEVER)/(void)l1tf_vmx_mitigation;/' \
	l1d/arch/x86/kvm/x86.c
"$TRAPCHECK" -p l1d --format=json -o l1d.json 2> /dev/null
check_that "SKIP_VMENTRY_L1DFLUSH only through the host's mask: the L1D flush is a warning" \
	'! grep -q "data |= ARCH_CAP_SKIP" l1d/arch/x86/kvm/x86.c && python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(\"vmx_l1d_flush\" not in [f[\"function\"] for f in d[\"findings\"]])" l1d.json'
rm -rf l1dg && cp -r "$FX" l1dg
sed -i 's/if (l1tf_vmx_mitigation != VMENTER_L1D_FLUSH_NEVER)/if (l1tf_vmx_mitigation == VMENTER_L1D_FLUSH_COND)/' \
	l1dg/arch/x86/kvm/x86.c
"$TRAPCHECK" -p l1dg --format=json -o l1dg.json 2> /dev/null
check_that "SKIP_VMENTRY_L1DFLUSH under a guard no HOST line decides: the L1D flush is a warning" \
	'grep -q "FLUSH_COND)" l1dg/arch/x86/kvm/x86.c && python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(\"vmx_l1d_flush\" not in [f[\"function\"] for f in d[\"findings\"]])" l1dg.json'

"$TRAPCHECK" -p "$FX" > outer.txt 2> /dev/null
check "... the text says so" grep -q "^arch/x86/kvm/vmx/vmx.c:[0-9]*:2: note: not on a nested host, not warned of: pt_guest_enter() reached from kvm-run, but !vmx_pt_mode_is_system() needs cpu_has_vmx_intel_pt(), which tests VMX_MISC_INTEL_PT, SECONDARY_EXEC_PT_USE_GPA, VM_ENTRY_LOAD_IA32_RTIT_CTL: KVM as the outer hypervisor never offers them to a nested host (nested_vmx_setup_\*()): vmx_vcpu_run -> pt_guest_enter \[trapping-msr-read\]$" outer.txt
"$TRAPCHECK" -p "$FX" --outer=any --format=json -o any.json
check_that "--outer=any: the PT read is a warning again" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(\"pt_guest_enter\" not in [f[\"function\"] for f in d[\"findings\"]])" any.json'
"$TRAPCHECK" -p "$FX" --outer=xen -q > /dev/null 2> xen.err
rc=$?
check_that "--outer=xen: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < xen.err)" -eq 1 ] && grep -q "outer is kvm, kvm-nested or any" xen.err'
# From the tree, not a list: a KVM that offers the bits lets it run.
rm -rf offer && cp -r "$FX" offer
sed -i 's/msrs->entry_ctls_high &= VM_ENTRY_LOAD_IA32_PAT;/msrs->entry_ctls_high \&= VM_ENTRY_LOAD_IA32_PAT | VM_ENTRY_LOAD_IA32_RTIT_CTL;\n\tmsrs->misc_low = VMX_MISC_INTEL_PT;\n\tmsrs->secondary_ctls_high = SECONDARY_EXEC_PT_USE_GPA;/' \
	offer/arch/x86/kvm/vmx/nested.c
"$TRAPCHECK" -p offer --format=json -o offer.json 2> /dev/null
check_that "a tree whose KVM offers PT's bits to a nested host: the read is a warning" \
	'grep -q VM_ENTRY_LOAD_IA32_RTIT_CTL offer/arch/x86/kvm/vmx/nested.c && python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(\"pt_guest_enter\" not in [f[\"function\"] for f in d[\"findings\"]])" offer.json'
done_testing
