#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The trapping-idreg-read fix reads the fields a function tests: a field
# the register's arm64_ftr_bits array does not describe reads as 0 in the
# sanitised copy (Linux 6.12's TraceBuffer of ID_AA64DFR0_EL1, tested by
# kvm_arch_vcpu_load_debug_state_flags()), so no patch; nor for a
# FTR_NONSTRICT field (PMSVer: each CPU's own, the sanitised value is the
# system-wide safe one); an array with a numeric shift says nothing of the
# fields it leaves out. The warning's advice says the same. Expectations: // CHECK: and
# // FIX: tags in tests/fixtures/fields.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/fields"
cd "$SCRATCH" || exit 1

cp -rL "$FX" tree	# the header links resolved
SOURCE_DATE_EPOCH=0 "$TRAPCHECK" -p tree -q --roots "$FX/roots/fields.roots" \
	--fix-dir out --format=json -o f.json
check "the fields fixture: findings, exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" f.json
check "findings match the CHECK tags (file, line, rule, root set, chain)" \
	[ $? -eq 0 ]

# FIX: tags: each finding's fix note starts with (or, for "fix: (X)", is
# a written patch whose text names X or, for FTR_STRICT, does not name
# FTR_NONSTRICT).
python3 - "$FX" f.json <<'PY'
import json, os, re, sys
tree, js = sys.argv[1:]
by_site = {(f['file'], f['line']): f for f in json.load(open(js))['findings']}
n = 0
for root, _, files in os.walk(tree):
    for name in files:
        if not name.endswith('.c'):
            continue
        path = os.path.join(root, name)
        rel = os.path.relpath(path, tree)
        for i, line in enumerate(open(path), 1):
            m = re.search(r'// FIX: (.*)$', line)
            if not m:
                continue
            n += 1
            want, f = m.group(1), by_site.get((rel, i))
            assert f, '%s:%d: no finding' % (rel, i)
            note = f.get('fix') or ''
            w = re.match(r'fix: \((\w+)\)$', want)
            if w:
                assert note.startswith('fix: '), (rel, i, note)
                text = open(note[5:]).read()
                if w.group(1) == 'FTR_NONSTRICT':
                    assert 'FTR_NONSTRICT' in text, (rel, i)
                else:
                    assert 'FTR_NONSTRICT' not in text, (rel, i)
                print('# %s:%d: %s' % (rel, i, note))
            else:
                assert note.startswith(want), (rel, i, note, want)
                print('# %s:%d: %s' % (rel, i, note[:90]))
assert n == 9, n
PY
check "fix notes match the FIX tags: 5 refused (TraceBuffer: _SHIFT, SYS_FIELD_GET on one and two lines, _MASK; PMSVer: FTR_NONSTRICT), 2 patches (one for a register whose array has a numeric shift)" [ $? -eq 0 ]
# ADVICE: tags: the warning's advice (its message after the last "; "
# ends with the tag's text) for the line after the tag's comment lines:
# the sanitised copy only for fields it answers; per-CPU data for a field
# it leaves out or a FTR_NONSTRICT one; in hyp code, the host's copy only
# where only an nVHE host runs the code, else per-CPU host data.
python3 - "$FX" f.json <<'PY'
import json, os, re, sys
tree, js = sys.argv[1:]
by_site = {(f['file'], f['line']): f for f in json.load(open(js))['findings']}
n = 0
for root, _, files in os.walk(tree):
    for name in files:
        path = os.path.join(root, name)
        rel = os.path.relpath(path, tree)
        want = None
        for i, line in enumerate(open(path), 1):
            m = re.search(r'// ADVICE: (.*)$', line)
            if m:
                want = m.group(1)
                continue
            if want is None or line.strip().startswith('//'):
                continue
            n += 1
            f = by_site.get((rel, i))
            assert f, '%s:%d: no finding' % (rel, i)
            assert f['message'].endswith(want), (rel, i, f['message'], want)
            print('# %s:%d: %s' % (rel, i, want[:80]))
            want = None
assert n == 9, n
PY
check "advice matches the ADVICE tags: per-CPU for a field the copy leaves out or a FTR_NONSTRICT one (in hyp code too), the host's copy in nVHE-only code, per-CPU host data in code a VHE host runs too, the value kept where it is written for context state" [ $? -eq 0 ]
check "the refusal says why and what to do instead (without cpuinfo.c, which the fixture lacks)" \
	grep -q 'read_sanitised_ftr_reg() returns 0 there; keep this CPU.s value, cached at CPU bring-up (arch/arm64/kernel/cpuinfo.c, where the kernel keeps its per-CPU copies, cannot be read)' f.json

# The written patches apply and the file still builds with the kernel's
# cross compiler and the fixture's flags.
(cd tree && cat ../out/*.patch | git apply) &&
	(cd tree && aarch64-linux-gnu-gcc -fsyntax-only -nostdinc \
		-I./arch/arm64/include -I./include \
		-include ./include/linux/kconfig.h \
		-include ./include/linux/compiler_types.h -D__KERNEL__ \
		arch/arm64/kvm/debug.c)
check "the patches apply (git apply) and debug.c builds (aarch64-linux-gnu-gcc)" \
	[ $? -eq 0 ]
"$TRAPCHECK" -p tree -q --roots "$FX/roots/fields.roots" --format=json \
	-o after.json
python3 - after.json <<'PY'
import json, sys
fs = sorted(f['function'] for f in json.load(open(sys.argv[1]))['findings'])
print('# left:', fs)
assert fs == ['amu_here', 'load_spe_state', 'load_trace_state',
              'load_trace_state_get', 'load_trace_state_mask',
              'load_trace_state_split', 'ras_shared', 'save_csselr',
              'scoped_by_encoding', 'scoped_mmfr0'], fs
PY
check "after the patches: only the seven refused reads (five fields, two reads that ask about their CPU), the two in shared hyp bodies (no kvm_host.h in the fixture) and the context register's are left; the nVHE-only read took the host's copy" [ $? -eq 0 ]

# With the copies cpuinfo.c keeps (tests/fixtures/fields-cpuinfo over the
# fixture; percpu.def CPUINFO), the five reads refused above read this
# CPU's copy instead: one patch for the file, the include it needs added.
cp -rL "$FX" tree2 && cp -r "$TOP/tests/fixtures/fields-cpuinfo/arch" tree2/
SOURCE_DATE_EPOCH=0 "$TRAPCHECK" -p tree2 -q --roots "$FX/roots/fields.roots" \
	--fix-dir out2 --format=json -o f2.json
python3 - f.json f2.json <<'PY'
import json, sys
before = {(f['file'], f['line']): f for f in json.load(open(sys.argv[1]))['findings']}
after = {(f['file'], f['line']): f for f in json.load(open(sys.argv[2]))['findings']}
per_cpu = [k for k, f in before.items() if f['file'] == 'arch/arm64/kvm/debug.c'
           and (f.get('fix') or '').startswith('no fix: ') and
           ('a field the tree' in f['fix'] or 'FTR_NONSTRICT' in f['fix'])]
assert len(per_cpu) == 5, per_cpu
notes = {after[k]['fix'] for k in per_cpu}
assert len(notes) == 1, notes
p = notes.pop()
assert p.startswith('fix: out2/') and 'Use-this-CPU-s-copy-of-ID_AA64DFR0_EL1' in p, p
text = open(p[5:]).read()
assert text.count('+') and \
    text.count('this_cpu_read(cpu_data.reg_id_aa64dfr0)') == 5, text
assert '\n+#include <asm/cpu.h>\n' in text, text
assert 'Subject: [PATCH] KVM: arm64: Use this CPU\'s copy of ID_AA64DFR0_EL1 in debug.c\n' in text
assert 'load_spe_state() tests PMSVer, a FTR_NONSTRICT field' in text.replace('\n', ' ')
print('# %d sites, one patch: %s' % (len(per_cpu), p))
# The read that asks about its CPU gets no copy, cpuinfo's neither: such
# code runs while a CPU comes up, before its copy is stored.
sc = [f for f in json.load(open(sys.argv[2]))['findings']
      if f['function'] == 'scoped_mmfr0']
assert len(sc) == 1 and sc[0]['fix'] == (
    "no fix: scoped_mmfr0() asks about the CPU it runs on (it reads the "
    "register under scope==SCOPE_LOCAL_CPU): the sanitised copy, the "
    "system-wide value, is not its answer; keep this read: such code "
    "runs while a CPU comes up, before its copy is stored "
    "(check_local_cpu_capabilities() before cpuinfo_store_cpu()), and a "
    "hot caller should ask for the system instead"), sc
PY
check "with cpuinfo's per-CPU copies: the five per-CPU reads become this_cpu_read(cpu_data.reg_id_aa64dfr0), one verified patch with the include, each reason in its message; the read that asks about its CPU gets no copy (it may run before the copy is stored)" \
	[ $? -eq 0 ]
# The include's hunk has three lines of context on each side: GNU patch
# applies it without fuzz (a hunk with four before and three after needed
# fuzz 1; verify_applies() now runs patch -F0).
(cd tree2 && patch -p1 -F0 --dry-run --silent < "$(ls ../out2/*Use-this-CPU*.patch)")
check "the patch applies with patch -F0 (no fuzz)" [ $? -eq 0 ]
# A secondary CPU runs check_local_cpu_capabilities() before its copy is
# stored (percpu.def STORED_BY): a read it reaches through direct calls
# keeps its trap (the copy would read 0 there), said; called after the
# store instead, the patch is written.
for when in early late; do
	rm -rf "tree-$when" && cp -r tree2 "tree-$when" &&
		cp -r "$TOP/tests/fixtures/fields-bringup/arch" "tree-$when/" &&
		rm -rf "tree-$when/out2"
	python3 - "tree-$when" "$when" <<'PY'
import json, sys
p = sys.argv[1] + '/compile_commands.json'
d = json.load(open(p))
e = dict(d[0])
e['command'] = e['command'].replace('cpufeature', 'smp') + \
    (' -DFIELDS_LATE' if sys.argv[2] == 'late' else '')
e['file'] = e['file'].replace('cpufeature', 'smp')
d.append(e)
json.dump(d, open(p, 'w'))
PY
	"$TRAPCHECK" -p "tree-$when" -q --roots "$FX/roots/fields.roots" \
		--fix-dir "out-$when" --format=json -o "f-$when.json"
done
python3 - f-early.json f-late.json <<'PY'
import json, sys
early, late = ({(f['file'], f['line']): f.get('fix') or ''
                for f in json.load(open(p))['findings']}
               for p in sys.argv[1:3])
k = ('arch/arm64/kvm/debug.c', 29)
assert early[k].endswith("; keep this CPU's value: load_trace_state() may "
                         "run in secondary_start_kernel() before this "
                         "CPU's copy is stored, where cpu_data would read "
                         "0"), early[k]
assert late[k].startswith('fix: out-late/'), late[k]
PY
check "a read a CPU runs before its copy is stored (secondary_start_kernel() before cpuinfo_store_cpu()) keeps its trap, said; after it, the patch" [ $? -eq 0 ]
done_testing
