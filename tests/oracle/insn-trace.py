#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The two halves of the plugin oracles around a QEMU run
(tests/oracle/run-qemu-x86.sh, tests/oracle/run-qemu-kvm.sh), for an
x86_64 or an arm64 vmlinux (NM names the binutils: nm or
aarch64-linux-gnu-nm).

  insn-trace.py entries NM VMLINUX ENTRIES OPS.json FUNCTION...
      The address of each FUNCTION in VMLINUX's symbol table (the
      workload's operations: a system call, a decompression, ...), one
      per line to ENTRIES for the insn-count plugin, and the names by
      address to OPS.json; with them, every call instruction whose
      callee is an out-of-line function that holds a CPUID, RDMSR,
      RDRAND, RDSEED or RDPMC (x86), or an MRS of an ID register
      (arm64), found with objdump beside NM, named "call CALLEE": an execution inside
      such a function is one of its callers', and the call site says
      whose. A FUNCTION that is not in the vmlinux (inlined, or
      configured out) is left out, and said so on stderr. nVHE's EL2
      code runs at other addresses than the vmlinux's (kern_hyp_va()):
      its functions are not counted.

  insn-trace.py trace ADDR2LINE VMLINUX OPS.json COUNTS TAG SITES.json
      Reads the plugin's COUNTS ("KIND ADDRESS COUNT"), keeps the kernel's
      addresses (on arm64 also an ID-register MRS below them, which
      runs before the MMU is on or at nVHE's EL2 addresses: kept,
      unplaced), and writes SITES.json: each CPUID, RDMSR, RDRAND,
      RDSEED or ID-register MRS site executed (address, kind, count, the inline chain of
      source lines from addr2line -i, innermost first) and each
      operation's count by function name. Prints one kvm_exit line per
      CPUID, RDMSR and RDPMC execution, as a KVM host traces the exit
      (trace-cmd report's text; the task is named "oracle-emulated", TAG,
      a number, is the timestamp's seconds), for trapcheck trace. RDRAND and
      RDSEED do not exit: they are slow, not trapped, and only counted.
      An arm64 MRS is counted, not traced here (run-qemu.sh's mrs-trace.py
      writes kvm_sys_access lines).
"""
import json
import re
import subprocess
import sys

KERNEL = 0xffff000000000000     # x86_64's and arm64's kernel halves
REASON = {'cpuid': 'CPUID', 'rdmsr': 'MSR_READ', 'rdpmc': 'RDPMC'}
# arm64: an ID group 3 register (TID3), or a cache, revision or tag ID
# register (TID2, TID1, TID5), as objdump names it or by its encoding.
ID_MRS = re.compile(r'^mrs\s+\w+,\s*(id_\w+|s3_0_c0_c[1-7]_[0-7]|ctr_el0|'
                    r'ccsidr2?_el1|clidr_el1|csselr_el1|revidr_el1|'
                    r'aidr_el1|gmid_el1|s3_1_c0_c0_[0124]|s3_3_c0_c0_1|'
                    r's3_2_c0_c0_0|s3_0_c0_c0_6|s3_1_c0_c0_7)$')
# The plugin's kinds of those reads.
A64_KINDS = ('idreg', 'tid2', 'tid1', 'tid5')


FUNC = re.compile(r'^([0-9a-f]+) <([\w.]+)>:$')
CALL = re.compile(r'^[0-9a-f]+ <([\w.]+)>$')
COUNTED = ('cpuid', 'rdmsr', 'rdrand', 'rdseed', 'rdpmc')


def call_sites(objdump, vmlinux):
    """{call PC: callee} of every call of an out-of-line function that
    executes a counted instruction: its executions happen there, and a
    call site says who made them."""
    proc = subprocess.run([objdump, '-d', '--no-show-raw-insn', vmlinux],
                          stdout=subprocess.PIPE, text=True, check=True)
    holders, calls, mrs, here = set(), [], [], None
    for line in proc.stdout.splitlines():
        h = FUNC.match(line)
        if h:
            here = h.group(2)
            continue
        f = line.split('\t')
        if len(f) < 2 or not f[0].strip().endswith(':'):
            continue
        op = ' '.join(f[1:]).split()
        if not op:
            continue
        if op[0] in COUNTED or ID_MRS.match(' '.join(op)):
            holders.add(here)
            if op[0] == 'mrs':
                mrs.append(int(f[0].strip()[:-1], 16))
        elif op[0] in ('call', 'bl'):
            c = CALL.match(' '.join(op[1:]))
            if c:
                calls.append((int(f[0].strip()[:-1], 16), c.group(1)))
    return {pc: callee for pc, callee in calls if callee in holders}, mrs


def entries(nm, vmlinux, out, opsfile, functions):
    calls, mrs = call_sites(nm.replace('nm', 'objdump'), vmlinux)
    proc = subprocess.run([nm, vmlinux], stdout=subprocess.PIPE, text=True,
                          check=True)
    found = {}
    for line in proc.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'Tt' and f[2] in functions:
            found.setdefault(f[2], int(f[0], 16))
    for fn in sorted(set(functions) - set(found)):
        sys.stderr.write('insn-trace: %s is not a symbol of %s: not counted\n'
                         % (fn, vmlinux))
    ops = {'%x' % a: n for n, a in found.items()}
    ops.update({'%x' % pc: 'call ' + callee for pc, callee in calls.items()})
    with open(out, 'w') as f:
        for addr in sorted(int(a, 16) for a in ops):
            f.write('%x\n' % addr)
    # Where the vmlinux has its ID-register MRSs: what an unplaced one is
    # matched against (trace's nVHE offset), not counted as operations.
    ops.update({'%x' % a: 'mrs' for a in mrs if '%x' % a not in ops})
    with open(opsfile, 'w') as f:
        json.dump(ops, f, indent=1, sort_keys=True)


def inline_chains(addr2line, vmlinux, pcs):
    """PC -> [(function, file, line), ...], innermost first."""
    if not pcs:
        return {}
    # A sentinel address after each PC marks where its frames end.
    proc = subprocess.run([addr2line, '-f', '-i', '-a', '-e', vmlinux],
                          input=''.join('%x\n' % pc for pc in pcs),
                          stdout=subprocess.PIPE, text=True, check=True)
    chains, cur = {}, None
    lines = proc.stdout.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x'):
            cur = int(lines[i], 16)
            chains[cur] = []
            i += 1
            continue
        fn = lines[i]
        loc = lines[i + 1] if i + 1 < len(lines) else '??:0'
        path, _, line = loc.rpartition(':')
        line = line.split()[0] if line else '0'
        chains[cur].append({'function': fn, 'file': path,
                            'line': int(line) if line.isdigit() else 0})
        i += 2
    return chains


def relocate(sites, mrs):
    """nVHE's EL2 code runs the vmlinux's instructions at other addresses
    (kern_hyp_va() of their linear-map alias). An ID-register MRS below
    the kernel half is placed by the offset that puts the most of them
    on the vmlinux's own ID-register MRSs (page-aligned, at least two
    agreeing; the others, code that ran before the MMU was on, too),
    and keeps its address as it ran ("ran_at")."""
    low = [s for s in sites if int(s['pc'], 16) < KERNEL]
    votes = {}
    for s in low:
        p = int(s['pc'], 16)
        for d in {p - a for a in mrs if (p - a) % 4096 == 0}:
            votes.setdefault(d, set()).add(p)
    for s in low:
        p = int(s['pc'], 16)
        best = max((d for d in votes if p in votes[d] and
                    len(votes[d]) >= 2),
                   key=lambda d: (len(votes[d]), -abs(d)), default=None)
        if best is not None:
            s['ran_at'] = s['pc']
            s['pc'] = '%x' % (p - best)


def trace(addr2line, vmlinux, opsfile, countfile, tag, sitefile):
    with open(opsfile) as f:
        ops_by_addr = json.load(f)
    sites, calls = [], []
    ops = {n: 0 for n in ops_by_addr.values()
           if not n.startswith('call ') and n != 'mrs'}
    with open(countfile) as f:
        for line in f:
            kind, addr, count = line.split()
            pc, count = int(addr, 16), int(count)
            name = ops_by_addr.get('%x' % pc)
            # Below the kernel half: user space, and on arm64 code that
            # runs before the MMU is on or at nVHE's EL2 addresses (no
            # user space code reads an ID register): kept, unplaced.
            if pc < KERNEL and kind not in A64_KINDS:
                continue
            if kind == 'entry' and name.startswith('call '):
                calls.append({'pc': '%x' % pc, 'kind': 'call',
                              'callee': name[5:], 'count': count})
            elif kind == 'entry':
                ops[name] += count
            else:
                sites.append({'pc': '%x' % pc, 'kind': kind,
                              'count': count})
    relocate(sites, [int(a, 16) for a, n in ops_by_addr.items()
                     if n == 'mrs'])
    chains = inline_chains(addr2line, vmlinux,
                           sorted(int(s['pc'], 16) for s in sites + calls))
    for s in sites + calls:
        s['inline'] = chains.get(int(s['pc'], 16), [])
    sites.sort(key=lambda s: (-s['count'], s['pc']))
    calls.sort(key=lambda s: (-s['count'], s['pc']))
    with open(sitefile, 'w') as f:
        json.dump({'sites': sites, 'calls': calls, 'ops': ops}, f, indent=1,
                  sort_keys=True)
    n = 0
    for s in sorted(sites, key=lambda s: s['pc']):
        if s['kind'] not in REASON:
            continue
        for _ in range(s['count']):
            n += 1
            sys.stdout.write(
                ' oracle-emulated-1     [000] .....  %s.%06d: kvm_exit: '
                'vcpu 0 reason %s rip 0x%s info1 0x0000000000000000 '
                'info2 0x0000000000000000 intr_info 0x00000000 '
                'error_code 0x00000000\n'
                % (tag, n % 1000000, REASON[s['kind']], s['pc']))
    by = {}
    for s in sites:
        by[s['kind']] = by.get(s['kind'], 0) + s['count']
    sys.stderr.write('insn-trace: %s in the kernel\n' % ', '.join(
        '%d %s at %d sites' % (c, k, len([s for s in sites
                                         if s['kind'] == k]))
        for k, c in sorted(by.items())))


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == 'entries':
        entries(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5],
                sys.argv[6:])
    elif len(sys.argv) == 8 and sys.argv[1] == 'trace':
        trace(*sys.argv[2:8])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
