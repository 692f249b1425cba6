#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a text trace's KVM events into a trace.dat, as trace-cmd record
would have stored them: trace-cmd's version 6 file layout (trace-cmd.dat.v6
(5)), the host's event formats (tests/fixtures/tracefs), one stream of
ring-buffer pages per CPU (header_page, header_event). What `trapcheck
trace` then reads with libtracecmd, and trace-cmd report must read too.

Usage: trace-dat.py FORMATDIR TEXT OUT
  FORMATDIR  the event formats, *.format (header_page and header_event
             are in its parent)
  TEXT       trace lines "task-pid [CPU] ... SECS.USECS: EVENT: PAYLOAD"
             of kvm_sys_access, kvm_entry (arm64, FORMATDIR kvm-arm64/)
             or kvm_exit, kvm_msr, kvm_entry (x86, FORMATDIR kvm/);
             other lines are left out
"""
import glob
import os
import re
import struct
import sys

PAGE = 4096
# kvm_exit's reasons (arch/x86/include/uapi/asm/vmx.h, svm.h): isa 1 VMX,
# 2 SVM.
VMX = {'CPUID': 10, 'HLT': 12, 'RDPMC': 15, 'MSR_READ': 31, 'MSR_WRITE': 32}
SVM = {'rdpmc': 0x6f, 'cpuid': 0x72, 'msr': 0x7c, 'hlt': 0x78}


def formats(d):
    """{event name: (id, {field: (offset, size)}, text)}"""
    out = {}
    for path in sorted(glob.glob(os.path.join(d, '*.format'))):
        text = open(path).read()
        name = re.search(r'^name: (\S+)', text, re.M).group(1)
        ident = int(re.search(r'^ID: (\d+)', text, re.M).group(1))
        fields = {}
        for m in re.finditer(r'field:[^;]*?(\w+)(\[\d*\])?;\s*offset:(\d+);'
                             r'\s*size:(\d+);', text):
            fields[m.group(1)] = (int(m.group(3)), int(m.group(4)))
        out[name] = (ident, fields, text)
    return out


LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):'
                  r'\s+(\w+):\s+(.*)$')


def values(event, payload):
    """The fields of one event, from its printed payload."""
    v = {}
    if event == 'kvm_sys_access':
        m = re.match(r'PC: ([0-9a-f]+) \S+ \((\d+),(\d+),(\d+),(\d+),(\d+)\)'
                     r' (read|write)$', payload)
        v['vcpu_pc'] = int(m.group(1), 16)
        for k, i in (('Op0', 2), ('Op1', 3), ('CRn', 4), ('CRm', 5),
                     ('Op2', 6)):
            v[k] = int(m.group(i))
        v['is_write'] = m.group(7) == 'write'
        v['name'] = 0          # a host kernel pointer: not in the file
    elif event == 'kvm_entry':
        m = re.search(r'(?:PC|rip):? (0x)?([0-9a-f]+)', payload)
        v['vcpu_pc'] = v['rip'] = int(m.group(2), 16)
    elif event == 'kvm_exit':
        m = re.search(r'reason (\S+) rip 0x([0-9a-f]+)', payload)
        reason = m.group(1)
        v['isa'] = 1 if reason in VMX else 2
        v['exit_reason'] = VMX.get(reason, SVM.get(reason))
        v['guest_rip'] = int(m.group(2), 16)
        vcpu = re.search(r'vcpu (\d+)', payload)
        v['vcpu_id'] = int(vcpu.group(1)) if vcpu else 0
        info1 = re.search(r'info1 0x([0-9a-f]+)', payload)
        v['info1'] = int(info1.group(1), 16) if info1 else 0
    elif event == 'kvm_msr':
        m = re.match(r'msr_(read|write) ([0-9a-f]+) = 0x([0-9a-f]+)',
                     payload)
        v['write'] = m.group(1) == 'write'
        v['ecx'] = int(m.group(2), 16)
        v['data'] = int(m.group(3), 16)
    return v


def record(fmt, pid, v):
    ident, fields, _ = fmt
    size = max(o + s for o, s in fields.values())
    size = (size + 3) & ~3
    data = bytearray(size)
    v = dict(v, common_type=ident, common_pid=pid)
    for name, val in v.items():
        if name not in fields:
            continue        # kvm_entry: arm64's vcpu_pc, x86's rip
        off, sz = fields[name]
        data[off:off + sz] = int(val).to_bytes(sz, 'little')
    return bytes(data)


def pages(events):
    """Ring-buffer pages of (ns, data) events, in time order."""
    out, page, start, last = [], b'', 0, 0
    for ns, data in events:
        assert len(data) <= 112
        delta = ns - last
        if page and (len(page) + 4 + len(data) > PAGE - 16 or
                     delta >= 1 << 27):
            out.append((start, page))
            page = b''
        if not page:
            start, delta = ns, 0
        page += struct.pack('<I', len(data) // 4 | delta << 5) + data
        last = ns
    if page:
        out.append((start, page))
    return b''.join(struct.pack('<QQ', ts, len(p)) + p +
                    b'\0' * (PAGE - 16 - len(p)) for ts, p in out)


def main():
    fdir, text, out = sys.argv[1:4]
    fmts = formats(fdir)
    cpus, comms = {}, {}
    for line in open(text):
        m = LINE.match(line.rstrip('\n'))
        if not m or m.group(6) not in fmts:
            continue
        comm, pid, cpu = m.group(1).strip(), int(m.group(2)), int(m.group(3))
        ns = int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, '0')[:9])
        comms[pid] = comm
        cpus.setdefault(cpu, []).append(
            (ns, record(fmts[m.group(6)], pid,
                        values(m.group(6), m.group(7)))))
    ncpu = max(cpus) + 1 if cpus else 1
    data = [pages(sorted(cpus.get(c, []), key=lambda e: e[0]))
            for c in range(ncpu)]

    def sized(tag, body, width='<Q'):
        return tag + struct.pack(width, len(body)) + body

    head = b'\x17\x08\x44tracing' + b'6\0' + b'\0' + b'\x08' + \
        struct.pack('<I', PAGE)
    hdir = os.path.dirname(os.path.abspath(fdir))
    for h in ('header_page', 'header_event'):
        head += sized(h.encode() + b'\0',
                      open(os.path.join(hdir, h), 'rb').read())
    head += struct.pack('<I', 0)                     # ftrace formats
    head += struct.pack('<I', 1) + b'kvm\0' + struct.pack('<I', len(fmts))
    for name in sorted(fmts):
        head += sized(b'', fmts[name][2].encode())
    head += struct.pack('<I', 0)                     # kallsyms
    head += struct.pack('<I', 0)                     # printk formats
    head += sized(b'', ''.join('%d %s\n' % (p, c)
                               for p, c in sorted(comms.items())).encode())
    head += struct.pack('<I', ncpu) + b'flyrecord\0'
    table = len(head) + 16 * ncpu
    off = (table + PAGE - 1) // PAGE * PAGE
    for d in data:
        head += struct.pack('<QQ', off, len(d))
        off += len(d)
    body = head + b'\0' * ((table + PAGE - 1) // PAGE * PAGE - table)
    with open(out, 'wb') as f:
        f.write(body + b''.join(data))


if __name__ == '__main__':
    main()
