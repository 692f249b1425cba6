#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# trapcheck trace: a KVM host's trace of a guest's traps joined with the
# static findings. The fixture trees are compiled into vmlinux-shaped ELF
# files with DWARF (tests/e2e/fixture-vmlinux.py: their own compile
# commands, the arm64 cross compiler for the arm64 tree); binutils'
# objdump, not trapcheck, says where each MRS, CPUID and RDMSR instruction
# is and which source line it belongs to; the traces trap there, in the
# formats a host records (tracefs text, trace-cmd report text; arm64
# kvm_sys_access, x86 kvm_exit with kvm_msr, VMX and SVM reason names).
# Each trapped line must come back at objdump's line (or at the call of
# an inlined sink wrapper), with the summed count, as reported exactly
# when the static run has a finding there, and the findings the trace
# never saw are listed. Bad traces are one-line errors naming the line.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1
ARM="$TOP/tests/fixtures/kernel"
X86="$TOP/tests/fixtures/x86"
# The "sites" of two trace JSON files are the same, and not empty.
same_sites='import json, sys
a, b = (json.load(open(f))["sites"] for f in sys.argv[1:])
sys.exit(a != b or not a)'

python3 "$TOP/tests/e2e/fixture-vmlinux.py" "$ARM" vmlinux 2> build.err
check "the arm64 fixture builds into an ELF with DWARF" \
	sh -c "aarch64-linux-gnu-readelf -h vmlinux | grep -q 'Machine:.*AArch64' &&
	       aarch64-linux-gnu-readelf -S vmlinux | grep -q '\.debug_info'"

# Every MRS of an ID register (and MIDR/REVIDR), as objdump places it.
aarch64-linux-gnu-objdump -d -l --no-show-raw-insn vmlinux |
	awk '/^\/.*:[0-9]+/ { loc = $1 }
	     /\tmrs\t/ { split($0, a, ","); r = a[2]; gsub(/ /, "", r);
			 if (r ~ /^(id_|midr|revidr|mvfr)/) {
				 addr = $1; sub(":", "", addr);
				 print addr, loc, toupper(r) } }' > mrs.txt
check "objdump finds the fixture's ID register reads" \
	[ "$(wc -l < mrs.txt)" -ge 10 ]

# A tracefs trace: each MRS trapped i times (i = its rank), with the
# tracefs header, other events and a write interleaved.
awk -v root="$ARM/" 'BEGIN {
	print "# tracer: nop"; print "#"
	print "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION"
}
{ for (i = 0; i < NR; i++)
	printf " qemu-system-aar-2345    [%03d] d..1. %6d.%06d: kvm_sys_access: PC: %s %s (3,0,0,0,0) read\n", NR % 4, NR, i, $1, $3
  printf " qemu-system-aar-2345    [000] d..1. %6d.999999: kvm_entry: PC: 0x%s\n", NR, $1
  printf " qemu-system-aar-2345    [000] d..1. %6d.999999: kvm_sys_access: PC: %s %s (3,0,0,0,0) write\n", NR, $1, $3
}' mrs.txt > arm.trace

"$TRAPCHECK" -p "$ARM" -q --format=json -o static.json
"$TRAPCHECK" trace arm.trace --vmlinux vmlinux -p "$ARM" --format=json \
	-o arm.json 2> arm.err
rc=$?
check "trace: exit 0, a summary line" \
	sh -c "[ $rc -eq 0 ] && grep -q '^trapcheck: [0-9]* traps at [0-9]* source lines' arm.err"

: > empty.trace
"$TRAPCHECK" trace empty.trace --vmlinux vmlinux -p "$ARM" -o empty.out \
	2> empty.err
rc=$?
check_that "a 0-byte trace: exit 2, one line (nothing recorded is no answer), no output" \
	'[ $rc -eq 2 ] && [ "$(wc -l < empty.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: empty.trace: an empty trace: nothing was recorded" empty.err &&
	 [ ! -e empty.out ]'

# binutils' inline chains of the same addresses: where each trap belongs
# is the innermost frame that is not a sink function trapcheck reports at
# its calls (opaque in the shipped sinks.def), as it was inlined.
cut -d' ' -f1 mrs.txt | sed 's/^/0x/' |
	xargs aarch64-linux-gnu-addr2line -a -i -f -e vmlinux > arm.a2l
cat > oracle.py <<'PY'
import json, os, re, sys

def opaque_sinks(top):
    names = set()
    for arch in ('arm64', 'x86'):
        for line in open(os.path.join(top, 'checker/arch', arch, 'sinks.def')):
            m = re.match(r'SINK\((.*)\)\s*$', line)
            if m:
                f = [x.strip() for x in m.group(1).split(',')]
                if f[4] == 'true':
                    names.add(f[1].strip('"'))
    return names

def chains(path):
    """addr2line -a -i -f: {address: [(function, file, line), ...]}"""
    out, cur, lines = {}, None, open(path).read().split('\n')
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith('0x'):
            cur = int(l, 16)
            out[cur] = []
            i += 1
            continue
        if l and cur is not None:
            f, loc = l, lines[i + 1]
            path_, line = loc.rsplit(':', 1)
            out[cur].append((f, path_, int(line.split()[0])))
            i += 2
            continue
        i += 1
    return out

def placed(chain, opaque, root):
    k = 0
    while k + 1 < len(chain) and chain[k][0] in opaque:
        k += 1
    f = chain[k][1]
    if f.startswith(root):
        f = f[len(root):]
    while f.startswith('./'):
        f = f[2:]
    return f, chain[k][2]
PY
python3 - mrs.txt arm.a2l arm.json static.json "$ARM" "$TOP" <<'PY'
import json, os, sys
sys.path.insert(0, '.')
from oracle import opaque_sinks, chains, placed
mrs = [l.split() for l in open(sys.argv[1])]
a2l = chains(sys.argv[2])
t = json.load(open(sys.argv[3]))
static = json.load(open(sys.argv[4]))
root = os.path.realpath(sys.argv[5]) + '/'
opaque = opaque_sinks(sys.argv[6])
want = {}
for rank, (addr, loc, reg) in enumerate(mrs, 1):
    key = placed(a2l[int(addr, 16)], opaque, root) + (reg,)
    want[key] = want.get(key, 0) + rank
got = {(s['file'], s['line'], s['what']): s for s in t['sites']}
assert set(got) == set(want), (sorted(set(want) ^ set(got)))
warn = {(f['file'], f['line']) for f in static['findings']}
low = {(f['file'], f['line']) for f in static['low_confidence']}
reported = 0
for key, s in got.items():
    assert s['count'] == want[key], (key, s['count'], want[key])
    where = key[:2]
    if where in warn:
        assert s['status'] == 'reported' and s['rule'], s
        reported += 1
    elif where in low:
        assert s['status'] == 'note', s
    else:
        assert s['status'] == 'missed' and s['reason'], s
assert t['summary']['traps'] == sum(want.values()), t['summary']
assert reported >= 2, reported
# The findings carry what was measured at their line, or null.
for f in t['findings']:
    n = sum(s['count'] for k, s in got.items() if k[:2] == (f['file'], f['line']))
    assert (f['measured'] or {}).get('count', 0) == n, f
print('# %d lines trapped, %d reported' % (len(got), reported))
PY
check "arm64: each trapped line where binutils places it, counts summed, reported exactly where the static run warns" \
	[ $? -eq 0 ]

# The CHECK-tagged cpu_has_hw_af() read (its line found in the source).
hw=$(grep -n 'read_cpuid(ID_AA64MMFR1_EL1)' "$ARM/arch/arm64/include/asm/cpufeature.h" |
	head -n 1 | cut -d: -f1)
python3 - arm.json "$hw" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
hw = int(sys.argv[2])
s = [s for s in t['sites'] if s['file'] == 'arch/arm64/include/asm/cpufeature.h'
     and s['line'] == hw]
assert len(s) == 1 and s[0]['what'] == 'ID_AA64MMFR1_EL1', s
assert s[0]['status'] == 'reported' and s[0]['rule'] == 'trapping-idreg-read', s
assert s[0]['function'] == 'cpu_has_hw_af', s
f = [f for f in t['findings'] if f['line'] == hw and f['function'] == 'cpu_has_hw_af']
assert f and f[0]['measured']['count'] == s[0]['count'], f
PY
check "cpu_has_hw_af()'s read: reported, its finding measured" [ $? -eq 0 ]

# The same traps as trace-cmd report prints them: the same sites.
{ echo "cpus=4"; echo "version = 6"; echo "CPU 3 is empty"
  grep -v '^#' arm.trace | sed 's/ d\.\.1\. / /'; } > arm-report.txt
"$TRAPCHECK" trace arm-report.txt --vmlinux vmlinux -p "$ARM" \
	--format=json -o arm2.json 2> /dev/null
check_that "trace-cmd report's text gives the same sites" \
	'python3 -c "$same_sites" arm.json arm2.json'

# A trace.dat (tests/e2e/trace-dat.py: trace-cmd's file layout, arm64's
# kvm_sys_access format) read with libtracecmd: the same lines and counts.
# arm64's print format is one libtraceevent does not parse, so trace-cmd
# report prints the raw fields ("[FAILED TO PARSE] vcpu_pc=..."), and
# that text must give the same sites too.
sites_by_line='import collections, json, sys
def lines(f):
    n = collections.Counter()
    for s in json.load(open(f))["sites"]:
        n[(s["file"], s["line"])] += s["count"]
    return n
a, b = (lines(f) for f in sys.argv[1:])
sys.exit(a != b or not a)'
python3 "$TOP/tests/e2e/trace-dat.py" "$TOP/tests/fixtures/tracefs/kvm-arm64" \
	arm.trace arm.dat
"$TRAPCHECK" trace arm.dat --vmlinux vmlinux -p "$ARM" --format=json \
	-o arm-dat.json 2> arm-dat.err
rc=$?
check_that "arm64 trace.dat (libtracecmd): exit 0, the text trace's lines and counts" \
	'[ $rc -eq 0 ] && python3 -c "$sites_by_line" arm.json arm-dat.json'
trace-cmd report arm.dat > arm-dat.txt 2> /dev/null
"$TRAPCHECK" trace arm-dat.txt --vmlinux vmlinux -p "$ARM" --format=json \
	-o arm-dat-report.json 2> /dev/null
check_that "trace-cmd report of that trace.dat (raw kvm_sys_access fields): the same lines and counts" \
	'grep -q "kvm_sys_access: *\[FAILED TO PARSE\] vcpu_pc=0x" arm-dat.txt &&
	 python3 -c "$sites_by_line" arm.json arm-dat-report.json'

# x86: CPUID and RDMSR, VMX and SVM names; the wrappers are inlined, so a
# trap lands on the line that called them.
python3 "$TOP/tests/e2e/fixture-vmlinux.py" "$X86" vmlinux86 2> build86.err
objdump -d -l --no-show-raw-insn vmlinux86 |
	awk '/^\/.*:[0-9]+/ { loc = $1 }
	     /\t(cpuid|rdmsr|rdpmc) *$/ { addr = $1; sub(":", "", addr);
				    print addr, $2 }' > x86.txt
check "objdump finds the x86 fixture's CPUID, RDMSR and RDPMC" \
	sh -c "grep -q ' cpuid$' x86.txt && grep -q ' rdmsr$' x86.txt &&
	       grep -q ' rdpmc$' x86.txt"
awk '{ n++
  if ($2 == "cpuid")
	printf " qemu-system-x86-1234  [001]  5678.%06d: kvm_exit: %sreason %s rip 0x%s info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000\n", n, n % 2 ? "vcpu 0 " : "", n % 2 ? "CPUID" : "cpuid", $1
  else if ($2 == "rdpmc")
	printf " qemu-system-x86-1234  [001]  5678.%06d: kvm_exit: %sreason %s rip 0x%s info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000\n", n, n % 2 ? "vcpu 0 " : "", n % 2 ? "RDPMC" : "rdpmc", $1
  else {
	# QEMU names its vCPU threads "CPU 0/KVM" (debug-threads=on).
	printf "  CPU 0/KVM-1234  [001]  5678.%06d: kvm_exit: vcpu 0 reason MSR_READ rip 0x%s info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000\n", n, $1
	printf "  CPU 1/KVM-1235  [002]  5678.%06d: kvm_exit: vcpu 1 reason HLT rip 0x1 info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000\n", n
	printf "  CPU 0/KVM-1234  [001]  5678.%06d: kvm_msr: msr_read 1a0 = 0x850089\n", n
  } }' x86.txt > x86.trace
"$TRAPCHECK" -p "$X86" -q --format=json -o static86.json
"$TRAPCHECK" trace x86.trace --vmlinux vmlinux86 -p "$X86" --format=json \
	-o x86.json 2> x86.err
smap=$(grep -n 'cpuid_ebx(0x7) & (1u << 20)' "$X86/arch/x86/mm/fault.c" | cut -d: -f1)
misc=$(grep -n 'rdmsrl(MSR_IA32_MISC_ENABLE' "$X86/arch/x86/mm/fault.c" | cut -d: -f1)
python3 - x86.json static86.json "$smap" "$misc" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
static = json.load(open(sys.argv[2]))
smap, misc = int(sys.argv[3]), int(sys.argv[4])
at = {(s['file'], s['line']): s for s in t['sites']}
s = at[('arch/x86/mm/fault.c', smap)]
assert s['what'] == 'CPUID' and s['status'] == 'reported', s
assert s['rule'] == 'trapping-idreg-read' and s['function'] == 'fault_has_smap', s
m = at[('arch/x86/mm/fault.c', misc)]
assert m['what'] == 'MSR 0x1a0' and m['kind'] == 'msr', m
assert m['status'] == 'reported' and m['rule'] == 'trapping-msr-read', m
# RDPMC (VMX's and SVM's names) at the PMU driver's rdpmcl(): a note.
p = [s for s in t['sites'] if s['function'] == 'x86_perf_event_update']
assert p and all(s['what'] == 'RDPMC' and s['kind'] == 'pmc' and
                 s['rule'] == 'trapping-pmc-read' and
                 s['file'] == 'arch/x86/events/core.c' for s in p), p
print('# rdpmc: %s' % [(s['line'], s['status'], s['count']) for s in p])
# The oops path's CPUID: trapped, cold for trapcheck, said so.
cold = [s for s in t['sites'] if s['function'] == 'page_fault_oops']
assert cold and cold[0]['status'] == 'missed', cold
assert cold[0]['reason'] == 'inside cold code', cold
# The library's own CPUID, in a header its TU includes through "..":
# DWARF names it lib/lzx/../lzx/cpu.h, the analysis lib/lzx/cpu.h.
lz = [s for s in t['sites'] if 'lzx' in s['file']]
assert lz and all(s['file'] == 'lib/lzx/cpu.h' and
                  s['status'] == 'reported' for s in lz), lz
# No site inside the wrappers (asm/msr.h, asm/cpuid.h): each is at its
# caller's line, get_debugctlmsr()'s in its own header among them.
wrappers = ('arch/x86/include/asm/msr.h', 'arch/x86/include/asm/cpuid.h')
assert not [s for s in t['sites'] if s['file'] in wrappers], t['sites']
d = [s for s in t['sites'] if s['file'] == 'arch/x86/include/asm/debugreg.h']
assert d and d[0]['function'] == 'get_debugctlmsr' and d[0]['status'] == 'reported', d
# Warnings with no instruction traced are not observed.
seen = {(s['file'], s['line']) for s in t['sites']}
for f in t['findings']:
    assert (f['measured'] is None) == ((f['file'], f['line']) not in seen), f
PY
check "x86: CPUID (VMX, SVM), RDPMC (VMX, SVM) and RDMSR with kvm_msr (vCPU threads named \"CPU 0/KVM\") at the wrappers' callers, reported; a header reached through .. at its own path; the oops path missed as cold" \
	[ $? -eq 0 ]
# The same as a trace.dat with the x86 host's own kvm formats; and as
# trace-cmd report prints it, with its kvm plugin ("reason EXIT_CPUID",
# "info 0 0") and without (-N: the kernel's print formats).
python3 "$TOP/tests/e2e/trace-dat.py" "$TOP/tests/fixtures/tracefs/kvm" \
	x86.trace x86.dat
"$TRAPCHECK" trace x86.dat --vmlinux vmlinux86 -p "$X86" --format=json \
	-o x86-dat.json 2> /dev/null
rc=$?
check_that "x86 trace.dat (libtracecmd): exit 0, the same sites, MSRs named" \
	'[ $rc -eq 0 ] && python3 -c "$same_sites" x86.json x86-dat.json'
trace-cmd report x86.dat > x86-plugin.txt 2> /dev/null
trace-cmd report -N x86.dat > x86-noplugin.txt 2> /dev/null
"$TRAPCHECK" trace x86-plugin.txt --vmlinux vmlinux86 -p "$X86" \
	--format=json -o x86-plugin.json 2> /dev/null
"$TRAPCHECK" trace x86-noplugin.txt --vmlinux vmlinux86 -p "$X86" \
	--format=json -o x86-noplugin.json 2> /dev/null
check_that "trace-cmd report's text of it, with the kvm plugin's names and without: the same sites" \
	'grep -q "reason EXIT_CPUID rip" x86-plugin.txt &&
	 grep -q "reason cpuid rip" x86-noplugin.txt &&
	 python3 -c "$same_sites" x86.json x86-plugin.json &&
	 python3 -c "$same_sites" x86.json x86-noplugin.json'

# A trace of the first CPUID only: the other warnings are not observed.
grep -m 1 -i "reason cpuid" x86.trace > x86-one.trace
"$TRAPCHECK" trace x86-one.trace --vmlinux vmlinux86 -p "$X86" > one.txt 2> /dev/null
check_that "text: the one trapped line reported, a not-observed line for each trapping warning no trap reached" \
	'[ "$(grep -c ": trapped 1 time (100.0%): CPUID in fault_has_smap(): reported \[trapping-idreg-read, page-fault\]$" one.txt)" -eq 1 ] &&
	 grep -q "^arch/x86/mm/fault.c:[0-9]*: not observed: trapping-idreg-read in fault_pa_bits() \[page-fault\]$" one.txt &&
	 grep -q "^arch/x86/mm/fault.c:[0-9]*: not observed: trapping-msr-read in fault_misc_enable() \[page-fault\]$" one.txt'

# Bad input: a line that is no trace line, a trap event that does not
# parse, a binary trace.dat, no vmlinux.
one_line() {
	[ "$(wc -l < "$1")" -eq 1 ] && grep -q "$2" "$1"
}
{ head -n 5 arm.trace; echo "garbage here"; } > bad1.trace
"$TRAPCHECK" trace bad1.trace --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> bad1.err
rc=$?
check_that "a line that is no trace line: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_line bad1.err "bad1.trace:6: not a trace line"'
printf ' q-1 [000] 1.000001: kvm_sys_access: PC: zz ID_AA64PFR0_EL1 (3,0,0,4,0) read\n' > bad2.trace
"$TRAPCHECK" trace bad2.trace --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> bad2.err
rc=$?
check_that "kvm_sys_access without a PC: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_line bad2.err "bad2.trace:1: kvm_sys_access: no \"PC: <hex>\""'
printf ' q-1 [000] 1.000001: kvm_exit: vcpu 0 reason CPUID\n' > bad3.trace
"$TRAPCHECK" trace bad3.trace --vmlinux vmlinux86 -p "$X86" -q > /dev/null 2> bad3.err
rc=$?
check_that "kvm_exit without a rip: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_line bad3.err "bad3.trace:1: kvm_exit: no"'
printf 'tracing\0data' > trace.dat
"$TRAPCHECK" trace trace.dat --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> dat.err
rc=$?
check_that "a binary file that is no trace.dat: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_line dat.err "trace.dat:1: a NUL byte: not trace text, and no trace.dat"'
head -c 3000 x86.dat > cut.dat
"$TRAPCHECK" trace cut.dat --vmlinux vmlinux86 -p "$X86" -q > /dev/null 2> cut.err
rc=$?
check_that "a trace.dat cut short: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_line cut.err "cut.dat: not a trace.dat libtracecmd can read: .* at byte [0-9]*"'
# Cut anywhere: libtracecmd reads it in a child process, so that its
# crash on a damaged file is an input error (docs/trace.md).
bad=0 cuts=0
for dat in arm.dat x86.dat; do
	size=$(stat -c %s $dat)
	vm=vmlinux tree="$ARM"
	[ $dat = x86.dat ] && vm=vmlinux86 tree="$X86"
	k=1
	while [ $k -lt 40 ]; do
		head -c $((size * k / 40)) $dat > cut.dat
		"$TRAPCHECK" trace cut.dat --vmlinux $vm -p "$tree" -q \
			--format=json -o cut.json 2> cut.err
		rc=$?
		cuts=$((cuts + 1))
		# Exit 2 with one line; or, cut between whole pages, a
		# trace with fewer traps (exit 0), never a crash.
		if ! { [ $rc -eq 2 ] && [ "$(wc -l < cut.err)" -eq 1 ] &&
		       grep -q "^trapcheck: error: cut.dat: " cut.err; } &&
		   ! { [ $rc -eq 0 ] && [ -s cut.json ]; }; then
			bad=$((bad + 1))
			echo "# $dat cut at $((size * k / 40)): exit $rc: $(head -c 200 cut.err)"
		fi
		k=$((k + 1))
	done
done
check_that "trace.dat cut at $cuts places: exit 2 and one line naming it, or the traps before the cut; never a crash" \
	'[ $bad -eq 0 ]'
"$TRAPCHECK" trace /dev/zero --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> zero.err
rc=$?
check_that "/dev/zero as the trace: exit 2 at once, one line (a device)" \
	'[ $rc -eq 2 ] && one_line zero.err "/dev/zero: cannot read the trace: a device, not a regular file"'
mkfifo fifo.trace
timeout 20 "$TRAPCHECK" trace fifo.trace --vmlinux vmlinux -p "$ARM" -q \
	> /dev/null 2> fifo.err
rc=$?
check_that "a FIFO as the trace: exit 2 at once, one line" \
	'[ $rc -eq 2 ] && one_line fifo.err "fifo.trace: cannot read the trace: a FIFO, not a regular file"'
head -c 50000000 /dev/zero | tr '\0' x > long.trace
"$TRAPCHECK" trace long.trace --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> long.err
rc=$?
check_that "a 50 MB line: exit 2, one line (the 64 KiB line limit), not a dropped trace" \
	'[ $rc -eq 2 ] && one_line long.err "long.trace:1: a line longer than 65536 bytes"'
{ cat arm.trace; head -c 10000000 /dev/zero; } > nul.trace
"$TRAPCHECK" trace nul.trace --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> nul.err
rc=$?
check_that "a trace followed by 10 MB of NUL bytes: exit 2, one line naming the line" \
	'[ $rc -eq 2 ] && one_line nul.err "nul.trace:[0-9]*: a NUL byte"'
awk 'BEGIN { for (i = 0; i <= 1000000; i++)
	printf "CPU 0/KVM-1 [000] ..... 1.%06d: kvm_sys_access: PC: %x ID_AA64MMFR1_EL1 (3,0,0,7,1) read\n", i % 1000000, 4096 + 4 * i }' > many.trace
"$TRAPCHECK" trace many.trace --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> many.err
rc=$?
check_that "1,000,001 trapping sites: exit 2, one line (the sites limit), not memory without bound" \
	'[ $rc -eq 2 ] && one_line many.err "many.trace:1000001: more than 1000000 trapping sites"'
"$TRAPCHECK" trace arm.trace --vmlinux nothere -p "$ARM" -q > /dev/null 2> nv.err
rc=$?
check_that "a missing vmlinux: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_line nv.err "nothere: cannot read"'
"$TRAPCHECK" trace arm.trace -p "$ARM" -q > /dev/null 2> nov.err
rc=$?
check_that "no --vmlinux: exit 2, says it is needed" \
	'[ $rc -eq 2 ] && one_line nov.err "vmlinux FILE"'
aarch64-linux-gnu-strip -g -o stripped vmlinux
"$TRAPCHECK" trace arm.trace --vmlinux stripped -p "$ARM" -q > /dev/null 2> nd.err
rc=$?
check_that "a vmlinux without DWARF: exit 2, says so" \
	'[ $rc -eq 2 ] && one_line nd.err "stripped: no DWARF"'
# KASLR: the same trace with every PC moved by an offset of the
# randomisation's granularity (64 KiB on arm64).
awk '{ if (match($0, /PC: [0-9a-f]+/)) {
	pc = substr($0, RSTART + 4, RLENGTH - 4)
	cmd = "printf %x $((0x" pc " + 0x12340000))"; cmd | getline moved; close(cmd)
	$0 = substr($0, 1, RSTART + 3) moved substr($0, RSTART + RLENGTH) }
  print }' arm.trace > arm-kaslr.trace
"$TRAPCHECK" trace arm-kaslr.trace --vmlinux vmlinux -p "$ARM" \
	--format=json -o kaslr.json 2> kaslr.err
rc=$?
check_that "KASLR: the offset inferred from the trace, said on stderr, the same sites" \
	'[ $rc -eq 0 ] && grep -q "KASLR offset 0x12340000 inferred" kaslr.err &&
	 python3 -c "$same_sites" arm.json kaslr.json'
text=$(aarch64-linux-gnu-nm vmlinux | awk '$3 == "_text" { print $1 }')
"$TRAPCHECK" trace arm-kaslr.trace --vmlinux vmlinux -p "$ARM" -q \
	--guest-text "$(printf %x $((0x$text + 0x12340000)))" \
	--format=json -o gtext.json 2> gtext.err
rc=$?
check_that "--guest-text (the guest's _text): the same sites, nothing inferred" \
	'[ $rc -eq 0 ] && [ -n "$text" ] && ! grep -q inferred gtext.err &&
	 python3 -c "$same_sites" arm.json gtext.json'
"$TRAPCHECK" trace arm-kaslr.trace --vmlinux vmlinux -p "$ARM" -q \
	--kaslr-offset 12340000 --format=json -o given.json 2> /dev/null
check_that "--kaslr-offset given: the same sites" \
	'python3 -c "$same_sites" arm.json given.json'
printf ' q-1 [000] 1.000001: kvm_sys_access: PC: 12345678 ID_AA64PFR0_EL1 (3,0,0,4,0) read\n' > nowhere.trace
"$TRAPCHECK" trace nowhere.trace --vmlinux vmlinux -p "$ARM" -q > /dev/null 2> nowhere.err
rc=$?
check_that "a PC on no trapping instruction at any offset: exit 2, asks for --kaslr-offset" \
	'[ $rc -eq 2 ] && one_line nowhere.err "nowhere.trace: cannot infer the guest.s KASLR offset.*--kaslr-offset"'

# --rank=measured: the busiest findings first; the default keeps the
# estimate's order, which differs here.
"$TRAPCHECK" trace arm.trace --vmlinux vmlinux -p "$ARM" -q --rank=measured \
	--format=json -o ranked.json
python3 - arm.json ranked.json <<'PY'
import json, sys
# The trapped lines keep their rule and root set whatever the order.
sa, sr = (json.load(open(f))['sites'] for f in sys.argv[1:])
assert sa == sr, [(x, y) for x, y in zip(sa, sr) if x != y][:2]
a, r = (json.load(open(f))['findings'] for f in sys.argv[1:])
key = lambda f: (f['rule'], f['file'], f['line'], f['function'], f['root'])
assert sorted(map(key, a)) == sorted(map(key, r))
high = [f for f in r if f['confidence'] == 'high']
n = [(f['measured'] or {}).get('count', 0) for f in high]
assert n == sorted(n, reverse=True), n
assert [key(f) for f in a if f['confidence'] == 'high'] != [key(f) for f in high]
PY
check "--rank=measured: the findings by measured count, the default order differs, the lines keep their rule and root" [ $? -eq 0 ]
# x86's reported lines are of two rules: a reordering shows.
"$TRAPCHECK" trace x86.trace --vmlinux vmlinux86 -p "$X86" -q --rank=measured \
	--format=json -o x86-ranked.json
check_that "--rank=measured (x86): the trapped lines keep their rule and root set" \
	'python3 -c "$same_sites" x86.json x86-ranked.json'
"$TRAPCHECK" trace arm.trace --vmlinux vmlinux -p "$ARM" -q --rank=measured > ranked.txt
check_that "text: measured findings say their count and share, busiest first" \
	'grep -E "^[^ ]+:[0-9]+: (measured [0-9]+ traps? \([0-9.]+%\)|not observed): " ranked.txt > r.lines &&
	 [ -s r.lines ] && sed -n "s/.*measured \([0-9]*\) trap.*/\1/p" r.lines > r.n &&
	 sort -rn r.n | cmp -s - r.n'

# SARIF: every finding with what was measured, every missed line a note
# of the trace-missed rule.
"$TRAPCHECK" trace arm.trace --vmlinux vmlinux -p "$ARM" -q --format=sarif \
	-o arm.sarif 2> sarif.err
rc=$?
python3 - arm.sarif arm.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
run = s['runs'][0]
rules = [r['id'] for r in run['tool']['driver']['rules']]
res = run['results']
missed = [r for r in res if r['ruleId'] == 'trace-missed']
want = [x for x in t['sites'] if x['status'] == 'missed']
assert len(missed) == len(want) > 0, (len(missed), len(want))
for r in missed:
    assert r['level'] == 'note' and rules[r['ruleIndex']] == 'trace-missed', r
    assert r['properties']['reason'] and r['properties']['count'] > 0, r
    loc = r['locations'][0]['physicalLocation']
    assert any(x['file'] == loc['artifactLocation']['uri'] and
               x['line'] == loc['region']['startLine'] for x in want), loc
found = [r for r in res if r['ruleId'] != 'trace-missed']
assert found and all('measured' in r['properties'] for r in found)
byline = {(f['file'], f['line']): f['measured'] for f in t['findings']}
for r in found:
    loc = r['locations'][0]['physicalLocation']
    m = byline[(loc['artifactLocation']['uri'], loc['region']['startLine'])]
    assert r['properties']['measured'] == (m and {'count': m['count'], 'share': m['share']}) or \
        (m is None and r['properties']['measured'] is None), (r['properties'], m)
PY
py=$?
check_that "--format=sarif: the findings with measured, the missed lines as trace-missed notes" \
	'[ $rc -eq 0 ] && [ $py -eq 0 ]'
"$TRAPCHECK" -p "$ARM" -q --rank=measured > /dev/null 2> rank.err
rc=$?
check_that "--rank outside trapcheck trace: exit 2, one line" \
	'[ $rc -eq 2 ] && one_line rank.err "trapcheck trace"'
done_testing
