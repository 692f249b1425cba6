#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The real kernel: Debian's linux-source-6.12, arm64 defconfig, the objects
# of the profile's targets built by kbuild and its compile_commands.json
# (scripts/kernel-tree.sh caches the tree outside the repository, in
# $TRAPCHECK_KERNEL_CACHE or /var/cache/trapcheck; tests/kernel/lib.sh).
# make check: the focus profile; make check-full: the full one.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$(ktree 6.12)
check "kernel tree prepared with a compile database" \
	[ -s "$tree/compile_commands.json" ]
rev=$(kvariant "$tree" revert-004)
check "a89c6bcdac22 reverted in a hard-linked copy" \
	grep -q 'mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);' \
	"$rev/arch/arm64/include/asm/cpufeature.h"

start=$(date +%s)
# The tree's shared cold run (lib.sh) fills the database; this run and
# the fix verification and --diff below re-parse only what a change
# touches.
kdb "$tree" k.db
# The author as git's environment names one (the tree is no repository):
# the patches are signed off as git commit -s would.
GIT_AUTHOR_NAME="Kernel Tester" GIT_AUTHOR_EMAIL=tester@example.org \
"$TRAPCHECK" -p "$tree" --db k.db --format=json -o real.json --fix-dir fixes \
	2> real.err
rc=$?
echo "# 6.12 run: exit $rc in $(( $(date +%s) - start )) s"
sed 's/^/# /' real.err | tail -n 12
check "findings on the real tree: exit status 1" [ $rc -eq 1 ]
# The KVM host reads trap only on a host that is itself a guest run at
# EL2, which 6.12's KVM never does: notes under --outer=kvm (trust.t),
# and no patch. Their patches are for a KVM that does (--outer=kvm-nested:
# the same KVM, as if it ran nested hosts), from the same database.
GIT_AUTHOR_NAME="Kernel Tester" GIT_AUTHOR_EMAIL=tester@example.org \
"$TRAPCHECK" -p "$tree" --db k.db -q --outer=kvm-nested --fix-dir fixes-nested \
	> /dev/null 2> any.err
check "--outer=kvm-nested --fix-dir: exit status 1" [ $? -eq 1 ]

# The line of the __cpu_has_rng() bug, read from the tree itself.
rng_line=$(grep -n 'return this_cpu_has_cap(ARM64_HAS_RNG);' \
	"$tree/arch/arm64/include/asm/archrandom.h" | cut -d: -f1)
check "archrandom.h:65 is this_cpu_has_cap(ARM64_HAS_RNG) in 6.12" \
	[ "$rng_line" = 65 ]

python3 - real.json "$rng_line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
line = int(sys.argv[2])
hits = [f for f in d['findings']
        if f['file'] == 'arch/arm64/include/asm/archrandom.h' and
        f['line'] == line and f['rule'] == 'local-cap-check' and
        f['root'] == 'crng']
assert len(hits) == 1, hits
f = hits[0]
assert f['function'] == '__cpu_has_rng' and f['capability'] == 'ARM64_HAS_RNG'
assert f['register'] == 'ID_AA64ISAR0_EL1' and f['field'] == 'RNDR', f
assert f['sanitised'] is True and f['trap_class'] == 'HCR_EL2.TID3', f
assert f['phase'] == 'boot', f
names = [s['function'] for s in f['chain']]
print('# chain:', ' -> '.join(names))
tail = names[-4:]
assert tail[:2] == ['crng_make_state', 'extract_entropy'], names
assert tail[2] in ('arch_get_random_seed_longs', 'arch_get_random_longs')
assert tail[3] == '__cpu_has_rng'
PY
check "the __cpu_has_rng() patch: __cpu_has_rng's this_cpu_has_cap from crng through extract_entropy, boot phase" [ $? -eq 0 ]

# Right as stated: a read before the capabilities are finalized is shown
# from an entry the kernel calls, never one user space enters (crng.roots
# "user:"); the advice asks what the code asks (the fields it tests
# against the tree's arm64_ftr_bits) in every mode the line runs in.
python3 - real.json "$TOP/roots/crng.roots" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
users = set()
for line in open(sys.argv[2]):
    m = re.match(r'user:(.*)', line.split('#')[0])
    if m:
        users |= set(m.group(1).split())
assert 'get_random_bytes_user' in users, users
by = {(f['file'], f['line']): f for f in d['findings']}
rng = by[('arch/arm64/include/asm/archrandom.h', 65)]
assert rng['chain'][0]['function'] not in users, rng['chain']
for o in rng.get('other_chains', []):
    assert o[0]['function'] not in users, o
print('# __cpu_has_rng from', rng['chain'][0]['function'])
# The KVM host ones are notes (--outer=kvm); their advice is the same.
dbg = [f for f in d['findings'] + d['low_confidence']
       if f['file'] == 'arch/arm64/kvm/debug.c' and
       f['function'] == 'kvm_arch_vcpu_load_debug_state_flags']
assert len(dbg) == 1, dbg
m = dbg[0]['message']
assert 'the sanitised copy is' not in m, m
assert 'tests TraceBuffer, a field the tree' in m and \
    "read this CPU's value once at CPU bring-up" in m, m
amu = [f for f in d['findings'] + d['low_confidence']
       if f['function'] == 'cpu_has_amu']
assert len(amu) == 1, amu
m = amu[0]['message']
assert 'kvm_nvhe_sym' not in m and 'FTR_NONSTRICT' in m and \
    'host_data_ptr()' in m, m
PY
check "__cpu_has_rng() from an in-kernel entry; kvm_arch_vcpu_load_debug_state_flags() and cpu_has_amu() told this CPU's value, not a copy that does not answer" [ $? -eq 0 ]

python3 - real.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f for f in d['findings']
       if f['file'] == 'arch/arm64/kernel/cpuinfo.c']
assert not bad, bad
PY
check "nothing reported in arch/arm64/kernel/cpuinfo.c" [ $? -eq 0 ]

python3 - real.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [f for f in d['findings']
            if f['capability'] == 'ARM64_WORKAROUND_1418040'], d
PY
check "this_cpu_has_cap(ARM64_WORKAROUND_1418040) in __switch_to: MIDR, no trap, no finding" [ $? -eq 0 ]

python3 - real.json "$KPROFILE" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
print('# summary:', {k: v for k, v in s.items() if k != 'errors'})
assert s['tus_analysed'] + s['tus_skipped'] == s['entries'], s
# focus: arch/arm64/ and mm/ alone are over 240 C TUs; full: 1,262.
assert s['tus_analysed'] >= {'focus': 240, 'full': 1200}[sys.argv[2]], s
for e in s['errors']:
    assert e['file'] and e['first_error'], e
    print('# TU with errors:', e['file'], '-', e['first_error'])
PY
check "every TU processed; those with errors named with their first error" \
	[ $? -eq 0 ]

python3 - real.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [f for f in d['findings'] if f['function'] == 'cpu_has_hw_af']
PY
check "6.12 (a89c6bcdac22 applied): cpu_has_hw_af() not reported" [ $? -eq 0 ]

start=$(date +%s)
kdb "$rev" r.db "$tree"
# Verifying the cpufeature.h rewrite re-parses every TU that includes it
# (all of them, 3 minutes on the focus tree): make check-full does.
[ "$KPROFILE" = full ] && verify= || verify=--no-verify
"$TRAPCHECK" -p "$rev" --db r.db -q --format=json -o rev.json \
	--fix-dir fixes-004 $verify
echo "# reverted run: exit $? in $(( $(date +%s) - start )) s"
python3 - rev.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [f for f in d['findings']
        if f['function'] == 'cpu_has_hw_af' and f['root'] == 'page-fault']
assert len(hits) == 1, hits
f = hits[0]
assert f['rule'] == 'trapping-idreg-read'
assert f['register'] == 'ID_AA64MMFR1_EL1' and f['sink'] == 'read_cpuid'
assert f['file'] == 'arch/arm64/include/asm/cpufeature.h'
ok = False
for c in [f['chain']] + f['other_chains']:
    names = [s['function'] for s in c]
    print('# chain:', ' -> '.join(s['function'] +
          (' (as %s)' % s['via'] if s.get('via') else '') for s in c))
    if names[-2:] == ['set_pte_range', 'cpu_has_hw_af'] and \
            c[-1].get('via') == 'arch_wants_old_prefaulted_pte':
        ok = True
assert ok
# The first chain shown is a common one (the fewest rare conditions):
# through set_pte_range(), not the copy-on-write of a PFN mapping in
# __wp_page_copy_user(), whose read runs only when !likely(src).
first = [s['function'] for s in f['chain']]
assert 'set_pte_range' in first and '__wp_page_copy_user' not in first, \
    first
wp = [c for c in f['other_chains']
      if any(s['function'] == '__wp_page_copy_user' for s in c)]
for c in wp:
    conds = [x for s in c for x in s.get('conditions', [])]
    assert any(x['kind'] == 'rare' and 'likely(src)' in x['text']
               for x in conds), conds
print('# chains through __wp_page_copy_user, each under !likely(src):',
      len(wp))
# Also through the ops table: filemap_map_pages via vm_ops->map_pages.
inferred = [c for c in f['other_chains']
            if any(s['function'] == 'filemap_map_pages' and
                   s.get('inferred') and
                   s.get('via') == 'vm_operations_struct.map_pages'
                   for s in c)]
print('# inferred chains through filemap_map_pages:', len(inferred))
assert inferred
PY
check "a89c6bcdac22 reverted: read_cpuid(ID_AA64MMFR1_EL1) from page-fault via set_pte_range as arch_wants_old_prefaulted_pte, the first chain shown; __wp_page_copy_user's under !likely(src)" [ $? -eq 0 ]

UP="$TOP/tests/fixtures/upstream"
p000=$(grep -l '^Subject: .* in __cpu_has_rng()$' fixes/*.patch 2>/dev/null | head -n 1)
check "a verified patch for __cpu_has_rng is written" [ -s "$p000" ]
# Hyp code: one patch reads each ID register once per CPU at KVM's init
# into kvm_host_data (checker/arch/arm64/percpu.def) for every hyp site.
phyp=$(grep -l '^Subject: \[PATCH\] KVM: arm64: Read ID registers once per CPU for hyp code$' fixes-nested/*.patch 2>/dev/null | head -n 1)
check_that "one patch for the hyp reads: the field in kvm_host.h, the copies in arm.c's cpu_hyp_init_context(), debug-sr.h's two reads and switch.h's cpu_has_amu()" \
	'[ -s "$phyp" ] &&
	 [ "$(grep -c "^+++ b/" "$phyp")" -eq 4 ] &&
	 grep -q "^+++ b/arch/arm64/include/asm/kvm_host.h$" "$phyp" &&
	 grep -q "^ static void cpu_hyp_init_context(void)$" "$phyp" &&
	 [ "$(grep -c "^+	aa64dfr0 = \*host_data_ptr(id_regs.id_aa64dfr0_el1);$" "$phyp")" -eq 2 ] &&
	 grep -q "^+	u64 pfr0 = \*host_data_ptr(id_regs.id_aa64pfr0_el1);$" "$phyp" &&
	 grep -q "^  arch/arm64/kvm/hyp/include/hyp/switch.h:144 (rule trapping-idreg-read)$" "$phyp"'
# Host code that needs this CPU's answer (TraceBuffer, which the
# sanitised copy lacks): this CPU's copy that cpuinfo keeps.
pdbg=$(grep -l '^+++ b/arch/arm64/kvm/debug.c$' fixes-nested/*.patch 2>/dev/null | head -n 1)
check_that "kvm_arch_vcpu_load_debug_state_flags() reads cpu_data's copy, asm/cpu.h included" \
	'[ -s "$pdbg" ] &&
	 grep -q "^+	dfr0 = this_cpu_read(cpu_data.reg_id_aa64dfr0);$" "$pdbg" &&
	 grep -q "^+#include <asm/cpu.h>$" "$pdbg" &&
	 [ "$(grep -c "^+++ b/" "$pdbg")" -eq 1 ]'
check "its subject" grep -q '^Subject: \[PATCH\] arm64: archrandom: avoid trapping ID register read in __cpu_has_rng()$' "$p000"
(cd "$tree" && perl scripts/checkpatch.pl --no-tree "$SCRATCH"/fixes/*.patch \
	"$SCRATCH"/fixes-nested/*.patch) > checkpatch.out 2>&1
sed -n 's/^total: /# checkpatch: /p' checkpatch.out
check_that "the kernel's checkpatch.pl finds no error in any patch" \
	'[ -s "$p000" ] && grep -q "^total: 0 errors" checkpatch.out &&
	 ! grep -q "^ERROR:" checkpatch.out &&
	 [ "$(grep -c "^total: 0 errors" checkpatch.out)" = "$(ls fixes/*.patch fixes-nested/*.patch | wc -l)" ]'
python3 "$TOP/tests/upstream-diff.py" "$p000" "$UP/cpu_has_rng-review.txt" reviewed
check "its diff is the reviewed upstream form of the __cpu_has_rng() patch" [ $? -eq 0 ]
p004=$(grep -l '^Subject: .* in cpu_has_hw_af()$' fixes-004/*.patch 2>/dev/null | head -n 1)
python3 "$TOP/tests/upstream-diff.py" "$p004" "$UP/a89c6bcdac22-v2.txt" first
check "with a89c6bcdac22 reverted, the cpu_has_hw_af patch is a89c6bcdac22's change" \
	[ $? -eq 0 ]

# Apply the patch to a copy kbuild may write in (lib.sh: hard-linked
# sources, copied objects) and build what includes archrandom.h with the
# real cross compiler.
build="$tree-fix-build"
kbuildcopy "$tree" "$build"
(cd "$build" && for p in "$p000" "$phyp" "$pdbg"; do
	git apply --check "$SCRATCH/$p" && git apply "$SCRATCH/$p" || exit 1
 done)
check "the patches apply with git apply" [ $? -eq 0 ]
start=$(date +%s)
make -s -C "$build" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	-j"$(nproc)" drivers/char/random.o arch/arm64/kernel/ \
	arch/arm64/kvm/ > build.log 2>&1
rc=$?
echo "# kbuild of the patched tree: exit $rc in $(( $(date +%s) - start )) s"
tail -n 5 build.log | sed 's/^/# /'
check "the patched tree builds drivers/char/random.o, arch/arm64/kernel/ and arch/arm64/kvm/ (VHE and nVHE hyp objects)" \
	[ $rc -eq 0 ]
check "random.o was rebuilt from the patched header" \
	[ "$build/drivers/char/random.o" -nt "$build/arch/arm64/include/asm/archrandom.h" ]
check_that "the VHE and the nVHE world switch, arm.o and debug.o were rebuilt from the patched files" \
	'[ "$build/arch/arm64/kvm/hyp/vhe/switch.o" -nt "$build/arch/arm64/kvm/hyp/include/hyp/switch.h" ] &&
	 [ "$build/arch/arm64/kvm/hyp/nvhe/switch.nvhe.o" -nt "$build/arch/arm64/kvm/hyp/include/hyp/debug-sr.h" ] &&
	 [ "$build/arch/arm64/kvm/arm.o" -nt "$build/arch/arm64/include/asm/kvm_host.h" ] &&
	 [ "$build/arch/arm64/kvm/debug.o" -nt "$build/arch/arm64/kvm/debug.c" ]'

# kbuild's CHECK protocol on that tree with the fix's !preemptible() taken
# out (written anew: the hard link to the cached tree is not written
# through): make C=2 prints the preempt-guard warning of the one TU;
# CF=-Wno-preempt-guard drops it and nothing else; CF=-Werror=preempt-guard
# makes it an error and fails the build, as sparse's -Werror does.
ar=arch/arm64/include/asm/archrandom.h
sed 's/!system_capabilities_finalized() && !preemptible()/!system_capabilities_finalized()/' \
	"$build/$ar" > "$build/$ar.new" && mv "$build/$ar.new" "$build/$ar"
kc2 pg.out "$SCRATCH/pg.db" -C "$build" drivers/char/random.o
pg_rc=$c2_rc
sed 's/^/# /' pg.out | head -n 8
PG='^\([^ ]*/\)\{0,1\}arch/arm64/include/asm/archrandom\.h:[0-9]*:[0-9]*: warning: read_sanitised_ftr_reg() stands in for a per-CPU check before capabilities are finalized but !preemptible() does not guard it: .*\[preempt-guard\]$'
check_that "make C=2 on random.o without the guard: the preempt-guard warning in archrandom.h, make exit 0" \
	'! grep -q "!preemptible()" "$build/$ar" && [ $pg_rc -eq 0 ] &&
	 [ "$(grep -c "$PG" pg.out)" = 1 ]'
kc2 nopg.out "$SCRATCH/nopg.db" -C "$build" CF=-Wno-preempt-guard \
	drivers/char/random.o
check_that "... CF=-Wno-preempt-guard: that warning gone, every other line the same, exit 0" \
	'[ $c2_rc -eq 0 ] && ! grep -q "\[preempt-guard\]" nopg.out &&
	 grep -v "$PG" pg.out | cmp -s - nopg.out'
kc2 werr.out "$SCRATCH/werr.db" -C "$build" CF=-Werror=preempt-guard \
	drivers/char/random.o
check_that "... CF=-Werror=preempt-guard: the same line as an error, make fails" \
	'[ $c2_rc -ne 0 ] &&
	 grep -q "$(echo "$PG" | sed "s/: warning: /: error: /")" werr.out'
rm -rf "$build"

# the __cpu_has_rng() fix, as reviewed, and the same without !preemptible().
for v in fix-000 fix-000-nopreempt; do
	vt=$(kvariant "$tree" "$v")
	start=$(date +%s)
	kdb "$tree" "$v.db"
	"$TRAPCHECK" -p "$vt" --db "$v.db" -q --format=json -o "$v.json"
	echo "# $v run: exit $? in $(( $(date +%s) - start )) s"
done
python3 - fix-000.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f for f in d['findings']
       if f['file'] == 'arch/arm64/include/asm/archrandom.h' or
       f['rule'] == 'preempt-guard' and f['function'] == '__cpu_has_rng']
assert not bad, bad
PY
check "__cpu_has_rng() fixed as reviewed: no finding in archrandom.h, no preempt-guard" [ $? -eq 0 ]
python3 - fix-000-nopreempt.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [f for f in d['findings'] if f['rule'] == 'preempt-guard' and
        f['file'] == 'arch/arm64/include/asm/archrandom.h' and
        f['function'] == '__cpu_has_rng' and
        f['sink'] == 'read_sanitised_ftr_reg']
print('# preempt-guard:', [(f['line'], f['root'], f['phase']) for f in hits])
assert len(hits) == 1, hits
PY
check "__cpu_has_rng() fixed without !preemptible(): one preempt-guard finding" [ $? -eq 0 ]

diff -u "$tree/arch/arm64/include/asm/archrandom.h" \
	"$tree-fix-000-nopreempt/arch/arm64/include/asm/archrandom.h" |
	sed -e "1s#^--- [^	]*#--- a/arch/arm64/include/asm/archrandom.h#" \
	    -e "2s#^+++ [^	]*#+++ b/arch/arm64/include/asm/archrandom.h#" \
	> nopreempt.patch
"$TRAPCHECK" -p "$tree" --db k.db -q --diff nopreempt.patch > lint.txt
check "--diff on the real tree: the patch dropping !preemptible() is reported by the preempt-guard rule" \
	grep -q '^arch/arm64/include/asm/archrandom.h:[0-9]*:[0-9]*: warning: read_sanitised_ftr_reg() stands in for a per-CPU check before capabilities are finalized but !preemptible() does not guard it: .*\[preempt-guard\]$' lint.txt

# The cpu_has_hw_af() regression as a plain diff -u (no function in the
# hunk headers, no a/ b/): the patched tree analysed, cpufeature.h
# re-parsed in every TU that includes it.
CF=arch/arm64/include/asm/cpufeature.h
(cd "$(dirname "$tree")" && diff -u "${tree##*/}/$CF" "${rev##*/}/$CF") > hw_af.patch
konce "$tree" "diff-hw_af-$(patch_key hw_af.patch)" hw_af.json \
	"$TRAPCHECK" -p "$tree" --db k.db -q --diff hw_af.patch --format=json \
	-o hw_af.json
python3 - hw_af.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [f for f in d['findings'] if f['function'] == 'cpu_has_hw_af']
assert hits, [f['function'] for f in d['findings']]
f = hits[0]
assert f['root'] == 'page-fault' and f['rule'] == 'trapping-idreg-read', f
assert f['estimate']['value'] > 0, f['estimate']
print('# chain:', ' -> '.join(s['function'] for s in f['chain']))
assert len(d['findings']) == 1, [g['function'] for g in d['findings']]
PY
py=$?
check_that "--diff: the cpu_has_hw_af() regression as plain diff -u: reported from page-fault, a non-zero estimate, nothing else" \
	'[ $rc -eq 1 ] && [ $py -eq 0 ]'

# A new function with a trapping read, called from extract_crng()'s path.
cp -a "$tree/drivers/char/random.c" random.c.new
python3 - random.c.new <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
m = re.search(r'\nstatic void crng_reseed\(', s) or \
    re.search(r'\nvoid get_random_bytes\(', s)
new = ('\nstatic noinline unsigned long trapcheck_probe(void)\n{\n'
       '\treturn read_sysreg_s(SYS_ID_AA64ISAR1_EL1);\n}\n')
s = s[:m.start()] + new + s[m.start():]
a = 'void get_random_bytes(void *buf, size_t len)\n{\n'
assert a in s
s = s.replace(a, a + '\ttrapcheck_probe();\n', 1)
open(p, 'w').write(s)
PY
diff -u --label a/drivers/char/random.c --label b/drivers/char/random.c \
	"$tree/drivers/char/random.c" random.c.new > newfn.patch
"$TRAPCHECK" -p "$tree" --db k.db -q --diff newfn.patch --format=json \
	-o newfn.json
rc=$?
python3 - newfn.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d['findings'] if f['function'] == 'trapcheck_probe']
assert len(f) == 1 and f[0]['root'] == 'crng', d['findings']
print('# chain:', ' -> '.join(s['function'] for s in f[0]['chain']))
PY
py=$?
check_that "--diff: a patch adding a new function with a trapping read on a hot path: reported" \
	'[ $rc -eq 1 ] && [ $py -eq 0 ]'

if [ "$KPROFILE" = full ]; then
	(cd "$(dirname "$tree")" && diff -up "${tree##*/}/$CF" "${rev##*/}/$CF") > up.patch
	"$TRAPCHECK" -p "$tree" --db k.db -q --diff up.patch --format=json -o up.json
	rc=$?
	check_that "--diff (full): the same regression as diff -up: the same finding" \
		'[ $rc -eq 1 ] && python3 -c "import json,sys; d=json.load(open(\"up.json\")); sys.exit(not [f for f in d[\"findings\"] if f[\"function\"] == \"cpu_has_hw_af\" and f[\"root\"] == \"page-fault\"])"'
	(cd "$(dirname "$tree")" && diff -up "${rev##*/}/$CF" "${tree##*/}/$CF") > reverse.patch
	"$TRAPCHECK" -p "$rev" --db r.db -q --diff reverse.patch --format=json -o reverse.json
	rc=$?
	check_that "--diff (full): the reverse patch, on the tree with the read: nothing, exit 0" \
		'[ $rc -eq 0 ] && python3 -c "import json,sys; sys.exit(len(json.load(open(\"reverse.json\"))[\"findings\"]))"'
fi

done_testing
