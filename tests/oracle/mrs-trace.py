#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The oracle's two halves around a QEMU run (tests/oracle/run-qemu.sh).

  mrs-trace.py sites [--all-classes] [--entries FILE] OBJDUMP VMLINUX
                      SITES.json [FUNCTION...]
      Every MRS in VMLINUX's disassembly that reads an ID group 3
      register (op0=3, op1=0, CRn=0, CRm=1..7: the registers HCR_EL2.TID3
      traps, Arm ARM D19.2), decoded from the instruction word, not from
      trapcheck's tables; with --all-classes also the cache, revision and
      tag ID registers (TID2, TID1, TID5: the plugin oracle's classes,
      insn-count.c); the addresses of FILE (insn-trace.py entries: the
      operations' first instructions and call sites), whose executions
      are counted; and every BL to one of the FUNCTIONs (calls
      whose traps happen inside an out-of-line function, counted at the
      call). A FUNCTION written +NAME is a consumer instead: its calls
      are counted per calling function, with the traps and FUNCTION
      calls made while the outermost such call is open (who asked for
      what the traps were taken for). Writes them to SITES.json and
      prints QEMU's -dfilter ranges for them on stdout.

  mrs-trace.py trace SITES.json QEMU.LOG [TAG] [CALLS.json [CONSUMERS.json
                     [COUNTS]]]
      Counts QEMU's -d exec lines ("Trace N: HOST [CS/PC/FLAGS/CFLAGS]")
      at those PCs (one instruction per TB: -singlestep) and prints one
      kvm_sys_access line per MRS execution, as a KVM host with TID3 set
      would have traced the trap (trace-cmd report's text; the task is
      named "oracle-emulated", TAG goes in the timestamp's place). Each
      call's executions, and the MRS executions between it and its
      return on the same CPU (its traps), go to CALLS.json; per calling
      function of the consumers, their calls, traps and FUNCTION calls
      to CONSUMERS.json (a call that is a tail call, or one that never
      returns through its BL, is not seen). COUNTS gets the plugin's
      format, "KIND ADDRESS COUNT" (idreg tid2 tid1 tid5 entry), for
      insn-trace.py trace.
"""
import json
import re
import sys

MRS_MASK = 0xFFF00000
MRS_BITS = 0xD5300000          # MRS Xt, <sysreg>: L=1, op0 bit 1 set


def decode(word):
    """(op0, op1, CRn, CRm, op2) of an MRS instruction word, else None."""
    if word & MRS_MASK != MRS_BITS:
        return None
    return (2 + ((word >> 19) & 1), (word >> 16) & 7, (word >> 12) & 15,
            (word >> 8) & 15, (word >> 5) & 7)


def tid3(enc):
    op0, op1, crn, crm, _ = enc
    return op0 == 3 and op1 == 0 and crn == 0 and 1 <= crm <= 7


# The other ID registers a hypervisor can trap (Arm ARM D19.2, HCR_EL2):
# op0 3, CRn 0, CRm 0 and these (op1, op2), as insn-count.c has them.
OTHER = {(3, 1): 'tid2',    # CTR_EL0
         (1, 0): 'tid2',    # CCSIDR_EL1
         (1, 1): 'tid2',    # CLIDR_EL1
         (1, 2): 'tid2',    # CCSIDR2_EL1
         (2, 0): 'tid2',    # CSSELR_EL1
         (0, 6): 'tid1',    # REVIDR_EL1
         (1, 7): 'tid1',    # AIDR_EL1
         (1, 4): 'tid5'}    # GMID_EL1


def trap_kind(enc, all_classes):
    """The plugin's kind of an MRS that a hypervisor can trap, else None."""
    if tid3(enc):
        return 'idreg'
    op0, op1, crn, crm, op2 = enc
    if all_classes and op0 == 3 and not crn and not crm:
        return OTHER.get((op1, op2))
    return None


LINE = re.compile(r'^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+mrs\s+\w+,\s*(\S+)')
CALL = re.compile(r'^\s*([0-9a-f]+):\s+[0-9a-f]{8}\s+bl\s+[0-9a-f]+ <([\w.]+)>')
FUNC = re.compile(r'^[0-9a-f]+ <([\w.]+)>:$')


def sites(objdump, vmlinux, out, functions, all_classes=False,
          entries=None):
    import subprocess
    proc = subprocess.run([objdump, '-d', vmlinux],
                          stdout=subprocess.PIPE, text=True, check=True)
    found, calls, here = {}, {}, None
    consumers = {f[1:] for f in functions if f.startswith('+')}
    functions = {f for f in functions if not f.startswith('+')}
    for line in proc.stdout.splitlines():
        h = FUNC.match(line)
        if h:
            here = h.group(1)
            continue
        c = CALL.match(line)
        if c and c.group(2) in functions | consumers:
            pc = int(c.group(1), 16)
            kind = 'call' if c.group(2) in functions else 'consumer'
            calls['%x' % pc] = {kind: c.group(2), 'in': here}
            # Where the call returns to: the end of the call.
            calls['%x' % (pc + 4)] = {'return': '%x' % pc}
            continue
        m = LINE.match(line)
        if not m:
            continue
        enc = decode(int(m.group(2), 16))
        kind = enc and trap_kind(enc, all_classes)
        if not kind:
            continue
        found['%x' % int(m.group(1), 16)] = {
            'reg': m.group(3).upper(), 'enc': list(enc), 'kind': kind}
    if not found:
        sys.exit('mrs-trace: no ID-register MRS in %s' % vmlinux)
    for fn in functions - {c.get('call') for c in calls.values()}:
        sys.exit('mrs-trace: no call of %s in %s' % (fn, vmlinux))
    # A consumer only tail-called (b, not bl) has no call to count.
    for fn in sorted(consumers - {c.get('consumer') for c in calls.values()}):
        sys.stderr.write('mrs-trace: no call of %s in %s: not counted\n'
                         % (fn, vmlinux))
    found.update(calls)
    for line in open(entries) if entries else []:
        if line.strip():
            found.setdefault('%x' % int(line, 16), {})['entry'] = True
    with open(out, 'w') as f:
        json.dump(found, f, indent=1, sort_keys=True)
    print(','.join('0x%s+4' % a for a in sorted(found)))


EXEC = re.compile(r'^Trace (\d+): 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')


def consumer_of(found, stack):
    """The outermost open consumer call of a CPU's stack, or None."""
    for pc in stack:
        if 'consumer' in found[pc]:
            return pc
    return None


def trace(sitefile, log, tag, callfile, consumerfile=None, countfile=None):
    with open(sitefile) as f:
        found = json.load(f)
    counts, traps, open_calls, inside, entered = {}, {}, {}, {}, {}
    by = {}     # consumer call PC -> {'traps': n, 'calls': n}
    with open(log, errors='replace') as f:
        for line in f:
            m = EXEC.match(line)
            if not m:
                continue
            pc = '%x' % int(m.group(2), 16)
            if pc not in found:
                continue
            cpu = int(m.group(1))
            stack = open_calls.setdefault(cpu, [])
            s = found[pc]
            if 'entry' in s:
                # An operation's first instruction, or a call site.
                entered[pc] = entered.get(pc, 0) + 1
                if len(s) == 1:
                    continue
            if 'consumer' in s:
                stack.append(pc)
            elif 'call' in s:
                owner = consumer_of(found, stack)
                if owner:
                    o = by.setdefault(owner, {'traps': 0, 'calls': 0})
                    o['calls'] += 1
                stack.append(pc)
            elif 'return' in s:
                # The call returned (an interrupt's calls return first).
                if s['return'] in stack:
                    del stack[stack.index(s['return']):]
                continue
            else:
                owner = consumer_of(found, stack)
                if owner:
                    o = by.setdefault(owner, {'traps': 0, 'calls': 0})
                    o['traps'] += 1
                calls_open = [p for p in stack if 'call' in found[p]]
                if calls_open:
                    # An MRS inside the open call: that call's trap.
                    traps[calls_open[-1]] = traps.get(calls_open[-1],
                                                      0) + 1
                    inside[pc] = inside.get(pc, 0) + 1
            counts[pc] = counts.get(pc, 0) + 1
    out = sys.stdout
    n = 0
    if callfile:
        with open(callfile, 'w') as f:
            calls = {pc: {'call': found[pc]['call'], 'count': c,
                          'traps': traps.get(pc, 0)}
                     for pc, c in sorted(counts.items())
                     if 'call' in found[pc]}
            # The MRS executions that were some call's traps, by PC.
            calls['inside'] = inside
            json.dump(calls, f, indent=1, sort_keys=True)
    if consumerfile:
        per = {}
        for pc, c in counts.items():
            s = found[pc]
            if 'consumer' not in s:
                continue
            k = '%s -> %s' % (s['in'], s['consumer'])
            r = per.setdefault(k, {'caller': s['in'],
                                   'consumer': s['consumer'],
                                   'sites': 0, 'count': 0, 'calls': 0,
                                   'traps': 0})
            r['sites'] += 1
            r['count'] += c
            r['calls'] += by.get(pc, {}).get('calls', 0)
            r['traps'] += by.get(pc, {}).get('traps', 0)
        with open(consumerfile, 'w') as f:
            json.dump(sorted(per.values(), key=lambda r: -r['calls']), f,
                      indent=1)
    if countfile:
        with open(countfile, 'w') as f:
            for pc, c in sorted(counts.items()):
                if 'reg' in found[pc]:
                    f.write('%s %s %d\n' % (found[pc].get('kind', 'idreg'),
                                            pc, c))
            for pc, c in sorted(entered.items()):
                f.write('entry %s %d\n' % (pc, c))
    for pc in sorted(counts):
        s = found[pc]
        if 'reg' not in s:
            continue
        enc = ','.join(str(x) for x in s['enc'])
        for _ in range(counts[pc]):
            n += 1
            out.write(' oracle-emulated-1     [000] .....  %s.%06d: '
                      'kvm_sys_access: PC: %s %s (%s) read\n'
                      % (tag, n % 1000000, pc, s['reg'], enc))
    sys.stderr.write('mrs-trace: %d MRS executions at %d of %d sites\n'
                     % (n, len([p for p in counts if 'reg' in found[p]]),
                        len([p for p in found if 'reg' in found[p]])))


def main():
    a = sys.argv[1:]
    if a and a[0] == 'sites':
        a, all_classes, entries = a[1:], False, None
        while a and a[0].startswith('--'):
            if a[0] == '--all-classes':
                all_classes, a = True, a[1:]
            elif a[0] == '--entries' and len(a) > 1:
                entries, a = a[1], a[2:]
            else:
                sys.exit(__doc__)
        if len(a) < 3:
            sys.exit(__doc__)
        sites(a[0], a[1], a[2], set(a[3:]), all_classes, entries)
    elif len(a) in (3, 4, 5, 6, 7) and a[0] == 'trace':
        trace(a[1], a[2], a[3] if len(a) >= 4 else '1',
              a[4] if len(a) >= 5 else None,
              a[5] if len(a) >= 6 else None,
              a[6] if len(a) == 7 else None)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
