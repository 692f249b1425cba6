#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The second architecture on a real tree: Debian's Linux 6.12 source,
# x86_64_defconfig with KVM (Intel and AMD), zram, zswap and zstd
# (scripts/kernel-tree.sh, TRAPCHECK_KERNEL_ARCH=x86). The compile
# database selects x86; the x86 root sets resolve; CPUID is found through
# the kernel's wrappers and in inline assembly (lib/zstd's ZSTD_cpuid(),
# KVM's software L1D flush); the L1D flush's CPUID is reported on the
# kvm-run path as nested, as serializing (no output operand); the machine check's CPUID (do_machine_check(),
# a hardware error) is not. docs/findings-6.12-x86.md judges each site.
#
# Building the tree takes about 5 minutes on 2 cores: make check-full
# runs this suite (TRAPCHECK_KERNEL_PROFILE=full), and so does make check
# with TRAPCHECK_KERNEL_X86=1; otherwise it says it skipped.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

if [ "$KPROFILE" != full ] && [ -z "${TRAPCHECK_KERNEL_X86:-}" ]; then
	echo "1..0 # SKIP the x86 tree: make check-full, or TRAPCHECK_KERNEL_X86=1"
	exit 0
fi

# make check-full: the issue's directories (arch/x86/ mm/ kernel/ lib/ fs/
# drivers/char/ drivers/block/, about 20 minutes to make); otherwise the
# focus set.
prof=focus
[ "$KPROFILE" = full ] && prof=full
tree=$(TRAPCHECK_KERNEL_ARCH=x86 "$TOP/scripts/kernel-tree.sh" 6.12 $prof |
	tail -n 1)
check "the x86 tree: x86_64 with KVM Intel and AMD, zram, zswap, zstd" \
	sh -c "grep -q '^CONFIG_X86_64=y' '$tree/.config' &&
	       grep -q '^CONFIG_KVM_INTEL=y' '$tree/.config' &&
	       grep -q '^CONFIG_KVM_AMD=y' '$tree/.config' &&
	       grep -q '^CONFIG_ZSWAP=y' '$tree/.config' &&
	       grep -q '^CONFIG_ZSTD_DECOMPRESS=y' '$tree/.config'"
d=$(kcold "$tree")
check "the cold run found something (exit 1)" [ "$(cat "$d/cold.rc")" = 1 ]
kdb "$tree" x.db
check_that "the database is of arch/x86" \
	'[ "$(sqlite3 x.db "select value from meta where key = '"'arch'"'")" = x86 ]'
check "no parse errors" \
	grep -q '^trapcheck: [0-9]* TUs analysed (0 with errors' "$d/cold.err"

"$TRAPCHECK" -p "$tree" --db x.db -q --list-roots > roots.txt
python3 - roots.txt <<'PY'
import sys
sets = {}
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('\t')
    sets.setdefault(f[0], []).append((f[2], f[4] == 'present'))
print('# sets:', ', '.join('%s %d/%d' % (s, sum(p for _, p in v), len(v))
                           for s, v in sorted(sets.items())))
# The x86 entry of each set is there (arm64's are not, and need not be).
want = {'page-fault': 'exc_page_fault', 'syscall': 'do_syscall_64',
        'irq': 'common_interrupt', 'kvm-run': 'vmx_vcpu_run',
        'kvm-load': 'kvm_arch_vcpu_load', 'sched': '__switch_to',
        'idle': 'arch_cpu_idle', 'timer': 'hrtimer_interrupt',
        'crng': 'get_random_u32', 'compress': 'zcomp_decompress'}
bad = [(s, r) for s, r in want.items() if (r, True) not in sets.get(s, [])]
print('# missing:', bad)
sys.exit(1 if bad else 0)
PY
check "each root set's x86 entry point is in the tree" [ $? -eq 0 ]

# Where the tree writes CPUID, found from its source, not from a table.
# The site of an asm statement is its first line.
vmx=$(awk '/^static noinstr void vmx_l1d_flush\(/ { f = 1 }
	   f && /asm volatile\(/ { print NR; exit }' \
	"$tree/arch/x86/kvm/vmx/vmx.c")
zstd=$(grep -n '__asm__("cpuid"' "$tree/lib/zstd/common/cpu.h" | head -n 1 |
	cut -d: -f1)
mce=$(grep -n 'cpuid_eax(1)' "$tree/arch/x86/kernel/cpu/mce/core.c" |
	cut -d: -f1)
echo "# vmx.c:$vmx cpu.h:$zstd mce/core.c:$mce"
check_that "the sink sites: the L1D flush's and ZSTD_cpuid()'s asm, the wrappers" \
	'[ -n "$vmx" ] && [ -n "$zstd" ] && [ -n "$mce" ] &&
	 [ "$(sqlite3 x.db "select count(*) from sink where sink = '"'asm:cpuid'"' and file = '"'arch/x86/kvm/vmx/vmx.c'"' and line = $vmx")" -ge 1 ] &&
	 [ "$(sqlite3 x.db "select count(*) from sink where sink = '"'asm:cpuid'"' and file = '"'lib/zstd/common/cpu.h'"' and line = $zstd")" -ge 1 ] &&
	 [ "$(sqlite3 x.db "select count(*) from sink where sink = '"'cpuid_eax'"' and file = '"'arch/x86/kernel/cpu/mce/core.c'"' and line = $mce")" -ge 1 ]'

python3 - "$d/cold.json" "$vmx" "$mce" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
vmx, mce = int(sys.argv[2]), int(sys.argv[3])
fs = d['findings'] + d['low_confidence']
at = {(f['file'], f['line']): f for f in fs}
f = at[('arch/x86/kvm/vmx/vmx.c', vmx)]
assert f['rule'] == 'trapping-idreg-read' and f['sink'] == 'asm:cpuid', f
assert f['function'] == 'vmx_l1d_flush' and f['context'] == 'nested', f
assert 'executes cpuid to serialize' in f['message'], f['message']
assert f['root'] == 'kvm-run', f
chain = [s['function'] for s in f['chain']]
assert chain[-2:] == ['vmx_vcpu_enter_exit', 'vmx_l1d_flush'], chain
# KVM gives a nested host ARCH_CAP_SKIP_VMENTRY_L1DFLUSH unless its own
# flush is off: a note naming where (--outer=any: a warning, below).
assert f in d['low_confidence'], f
assert 'find ARCH_CAP_SKIP_VMENTRY_L1DFLUSH clear' in f['not_offered'], f
assert 'l1tf_vmx_mitigation!=VMENTER_L1D_FLUSH_NEVER' in f['not_offered'], f
print('# %s:%d %s: %s' % (f['file'], f['line'], f['rule'],
                          ' -> '.join(chain)))
assert ('arch/x86/kernel/cpu/mce/core.c', mce) not in at, at.keys()
for f in fs:
    assert all(s['function'] != 'do_machine_check' for s in f['chain']), f
PY
check "vmx_l1d_flush()'s CPUID: kvm-run, nested, a note (KVM sets SKIP_VMENTRY_L1DFLUSH); none through do_machine_check()" \
	[ $? -eq 0 ]
# RDMSR: a read of an MSR KVM never passes through warns; one on its
# lists, or of a counter, is a note. Sites found from the source.
fb=$(awk '/void vmx_disable_fb_clear\(/ { f = 1 }
	  f && /__rdmsr\(MSR_IA32_MCU_OPT_CTRL\)/ { print NR; exit }' \
	"$tree/arch/x86/kvm/vmx/vmx.c")
gs=$(awk '/__rdgsbase_inactive\(void\)/ { f = 1 }
	  f && /rdmsrl\(MSR_KERNEL_GS_BASE/ { print NR; exit }' \
	"$tree/arch/x86/kernel/process_64.c")
ap=$(grep -n 'rdmsrl(MSR_IA32_APERF' "$tree/arch/x86/kernel/cpu/aperfmperf.c" |
	tail -n 1 | cut -d: -f1)
echo "# vmx.c:$fb process_64.c:$gs aperfmperf.c:$ap"
# __rdgsbase_inactive()'s RDMSR is the FRED / Xen PV side: compiled out
# (docs/diagnostics.md) unless the configuration has one of them.
gsmode=out
grep -Eq '^CONFIG_(X86_FRED|XEN_PV)=y' "$tree/.config" && gsmode=note
python3 - "$d/cold.json" "$fb" "$gs" "$ap" "$gsmode" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fb, gs, ap = (int(x) for x in sys.argv[2:5])
warn = {(f['file'], f['line']): f for f in d['findings']}
low = {(f['file'], f['line']): f for f in d['low_confidence']}
# A note under --outer=kvm: FB_CLEAR_DIS switching needs
# ARCH_CAP_FB_CLEAR_CTRL, which the tree's kvm_get_arch_capabilities()
# never gives a guest (a warning under --outer=any: checked below).
assert ('arch/x86/kvm/vmx/vmx.c', fb) not in warn, fb
f = low[('arch/x86/kvm/vmx/vmx.c', fb)]
assert f['rule'] == 'trapping-msr-read', f
assert f['register'] == 'MSR_IA32_MCU_OPT_CTRL', f
assert f['root'] == 'kvm-run' and f['context'] == 'nested', f
assert [s['function'] for s in f['chain']][-1] == 'vmx_disable_fb_clear', f
assert 'tests ARCH_CAP_FB_CLEAR_CTRL' in f['not_offered'], f
assert 'kvm_get_arch_capabilities()' in f['not_offered'], f
if sys.argv[5] == 'note':
    g = low[('arch/x86/kernel/process_64.c', gs)]
    assert g['rule'] == 'trapping-msr-read' and g['root'] == 'sched', g
    assert 'vmx_possible_passthrough_msrs[]' in g['may_not_exit'], g
else:
    assert ('arch/x86/kernel/process_64.c', gs) not in low, gs
    assert ('arch/x86/kernel/process_64.c', gs) not in warn, gs
a = low[('arch/x86/kernel/cpu/aperfmperf.c', ap)]
assert a['may_not_exit'].startswith('MSR_IA32_APERF is a counter'), a
# Only notes read an MSR KVM may pass through.
for f in d['findings']:
    assert 'may_not_exit' not in f, f
print('# %d warnings, %d notes' % (len(d['findings']),
                                   len(d['low_confidence'])))
PY
check "RDMSR: MCU_OPT_CTRL per VM entry a note (kvm-run, nested; KVM never offers FB_CLEAR_CTRL); KERNEL_GS_BASE (KVM's lists; compiled out without FRED and Xen PV) and APERF (a counter) are notes" \
	[ $? -eq 0 ]

# The full tree builds btrfs, squashfs and erofs: zstd's own CPUID asm
# (ZSTD_cpuid(), lib/zstd/common/cpu.h) on the compress set, each time a
# file system initialises a zstd context.
if [ "$prof" = full ]; then
	python3 - "$d/cold.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
z = [f for f in d['findings'] if f['file'] == 'lib/zstd/common/cpu.h']
assert len(z) == 3, [(f['line'], f['root']) for f in z]
for f in z:
    assert f['function'] == 'ZSTD_cpuid' and f['sink'] == 'asm:cpuid', f
    roots = [f['root']] + [a['root'] for a in f['also_reached']]
    assert 'compress' in roots, roots
    assert f['context'] == 'guest', f
print('# ZSTD_cpuid:', ', '.join(str(f['line']) for f in z), 'from',
      ' -> '.join(s['function'] for s in z[0]['chain']))
PY
	check "zstd's CPUID asm per context: 3 sites on the compress set (btrfs, squashfs, erofs)" \
		[ $? -eq 0 ]
fi

# The outer hypervisor (--outer=kvm, the default): Intel PT's host/guest
# MSR switching runs only when cpu_has_vmx_intel_pt(), and the tree's
# nested_vmx_setup_*() offers a nested host none of the bits it tests:
# notes that say so. --outer=any gives them back as warnings. Without
# nested.c in the database (the focus set), nothing is known: warnings.
# The body words of outer.def's functions are rows of kind 0
# (ROW_BODY_WORD): "table" the function, key the bit.
offers=$(sqlite3 x.db "select count(*) from row where kind = 0 and \"table\" like 'nested_vmx_setup_%'")
probe=$(sqlite3 x.db "select group_concat(distinct key) from row where kind = 0 and \"table\" = 'cpu_has_vmx_intel_pt'")
echo "# outer bits: $offers in nested_vmx_setup_*(); probe: $probe"
"$TRAPCHECK" -p "$tree" --db x.db -q --outer=any --format=json -o any.json
python3 - "$d/cold.json" any.json "$offers" "$prof" <<'PY'
import json, sys
d, a = (json.load(open(f)) for f in sys.argv[1:3])
offers, prof = int(sys.argv[3]), sys.argv[4]
if prof == 'full':
    assert offers > 0, 'nested.c analysed in the full tree'
pt = lambda fs: [f for f in fs if f['function'] in ('pt_guest_enter',
                                                   'pt_save_msr')]
warn, low, anyw = pt(d['findings']), pt(d['low_confidence']), pt(a['findings'])
print('# PT sites: %d warnings, %d notes; --outer=any: %d warnings'
      % (len(warn), len(low), len(anyw)))
for f in low:
    print('#   %s:%d %s' % (f['file'], f['line'], f.get('not_offered')))
if offers:
    assert not warn, [(f['line'], f['function']) for f in warn]
    demoted = [f for f in low if 'not_offered' in f]
    assert demoted, low
    for f in demoted:
        assert 'VM_ENTRY_LOAD_IA32_RTIT_CTL' in f['not_offered'], f
        assert f['context'] == 'nested', f
    # --outer=any: the warnings it gives back are the sites the model
    # demoted (the others are notes for their own reason: a register
    # the hardware changes, one chosen at run time).
    back = {(f['file'], f['line']) for f in anyw}
    assert back and back <= {(f['file'], f['line']) for f in demoted}, back
else:
    assert not any('not_offered' in f for f in low), low
# The ARCH_CAPABILITIES notes are warnings again under --outer=any.
arch_cap = {(f['file'], f['line']) for f in d['low_confidence']
            if 'ARCH_CAP_' in f.get('not_offered', '')}
assert len(arch_cap) == 2, arch_cap
assert arch_cap <= {(f['file'], f['line']) for f in a['findings']}, arch_cap
# zstd's CPUID is guest code: the model never touches it.
z = lambda fs: sorted((f['file'], f['line']) for f in fs
                      if f['file'] == 'lib/zstd/common/cpu.h')
assert z(d['findings']) == z(a['findings']), (z(d['findings']),
                                              z(a['findings']))
PY
check "--outer=kvm: PT's host/guest switching reads, FB_CLEAR_DIS switching and the L1D flush are notes naming what KVM offers a nested host; --outer=any: warnings; zstd's CPUID unchanged" \
	[ $? -eq 0 ]

# What a guest's CPU capability needs KVM to offer, read from the tree
# (outer.def CPU_OFFER): the offers where the tree's functions write
# them, F(NAME) in kvm_set_cpu_caps()'s masks, no bit of a
# kvm_cpu_cap_clear(); the LBR notes' doubt ends with where and when.
lbrfmt=$(grep -n 'perf_cap |= host_perf_cap & PMU_CAP_LBR_FMT' \
	"$tree/arch/x86/kvm/vmx/vmx.c" | cut -d: -f1)
ds=$(grep -n 'kvm_cpu_cap_check_and_set(X86_FEATURE_DS);' \
	"$tree/arch/x86/kvm/vmx/vmx.c" | cut -d: -f1)
echo "# vmx.c: LBR format $lbrfmt, DS $ds"
q() { sqlite3 x.db "select count(*) from row where kind = 0 and $1"; }
# The LBR code is arch/x86/events/, which only the full tree compiles
# (the focus set of TRAPCHECK_KERNEL_X86=1 has none): said, not passed.
if ! grep -q '"file": *"[^"]*arch/x86/events/intel/lbr\.c"' \
	"$tree/compile_commands.json"; then
	echo "ok $((tap_n += 1)) # skip LBR: no arch/x86/events/ in the $prof tree (make check-full)"
else
python3 - "$d/cold.json" "$lbrfmt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lbr = [f for f in d['low_confidence']
       if 'on a CPU with LBR' in f.get('machine_doubt', '')]
assert lbr, 'LBR notes'
tail = ('; KVM offers a guest PMU_CAP_LBR_FMT only on a host where '
        'enable_pmu && !cpu_feature_enabled(X86_FEATURE_ARCH_LBR) && '
        'vmx_lbr_caps.has_callstack && vmx_lbr_caps.nr '
        '(vmx_get_perf_capabilities(), arch/x86/kvm/vmx/vmx.c:%s)'
        % sys.argv[2])
for f in lbr:
    assert f['machine_doubt'].endswith(tail), f['machine_doubt']
    assert 'not_in_kvm' not in f, f
print('# %d LBR notes end with KVM\'s offer' % len(lbr))
# AMD's LBR code needs LBR v2, which the tree's KVM never offers: notes
# of KVM, none with the Intel sentence.
amd = [f for f in d['findings'] + d['low_confidence']
       if any(s['file'] == 'arch/x86/events/amd/lbr.c' for s in f['chain'])]
assert amd, 'AMD LBR sites'
for f in amd:
    assert f in d['low_confidence'], f
    assert 'needs X86_FEATURE_AMD_LBR_V2, which KVM as the outer ' \
        'hypervisor never offers a guest' in f.get('not_in_kvm', ''), f
    assert 'PMU_CAP_LBR_FMT' not in f.get('machine_doubt', ''), f
print('# %d AMD LBR notes of KVM' % len(amd))
PY
check "LBR: KVM offers the host's LBR format only where vmx_get_perf_capabilities() passes it on (the tree's line), in every Intel LBR note; AMD's LBR v2 never (notes of KVM)" \
	[ $? -eq 0 ]
fi
check_that "the offers read from the tree: DS under vmx_pebs_supported() at its line, PDCM through F(PDCM), the clears flagged (PDCM under !enable_pmu, BUS_LOCK_DETECT), no AMD LBR v2" \
	'[ "$(q "\"table\" = '"'vmx_set_cpu_caps'"' and key = '"'X86_FEATURE_DS'"' and v1 = '"'vmx_pebs_supported()'"' and line = $ds")" -eq 1 ] &&
	 [ "$(q "\"table\" = '"'kvm_set_cpu_caps'"' and key = '"'X86_FEATURE_PDCM'"'")" -ge 1 ] &&
	 [ "$(q "\"table\" = '"'vmx_set_cpu_caps'"' and key = '"'X86_FEATURE_PDCM'"' and flag = 0")" -eq 0 ] &&
	 [ "$(q "\"table\" = '"'kvm_set_cpu_caps'"' and key = '"'X86_FEATURE_DTES64'"'")" -eq 0 ] &&
	 [ "$(q "key = '"'X86_FEATURE_AMD_LBR_V2'"'")" -eq 0 ] &&
	 [ "$(q "\"table\" = '"'vmx_set_cpu_caps'"' and key = '"'X86_FEATURE_PDCM'"' and flag = 1 and v1 = '"'!enable_pmu'"'")" -eq 1 ] &&
	 [ "$(q "\"table\" = '"'svm_set_cpu_caps'"' and key = '"'X86_FEATURE_BUS_LOCK_DETECT'"' and flag = 1")" -eq 1 ]'

# KVM's pass-through lists, read from the tree's vmx.c and svm.c.
check_that "the MSR lists: vmx_possible_passthrough_msrs[] and direct_access_msrs[] read, MSR_INVALID left out" \
	'[ "$(sqlite3 x.db "select count(*) from row where \"table\" = '"'vmx_possible_passthrough_msrs'"' and key = '"'MSR_IA32_SPEC_CTRL'"'")" -ge 1 ] &&
	 [ "$(sqlite3 x.db "select count(*) from row where \"table\" = '"'direct_access_msrs'"' and key = '"'MSR_STAR'"'")" -ge 1 ] &&
	 [ "$(sqlite3 x.db "select count(distinct key) from row where \"table\" = '"'vmx_possible_passthrough_msrs'"'")" -ge 10 ] &&
	 [ "$(sqlite3 x.db "select count(*) from row where \"table\" in ('"'vmx_possible_passthrough_msrs'"', '"'direct_access_msrs'"') and key = '"'MSR_INVALID'"'")" -eq 0 ]'
done_testing
