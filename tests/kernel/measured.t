#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The booted-kernel oracle (docs/measured.md): Debian's Linux 6.12 built
# for QEMU's virt machine (scripts/kernel-tree.sh 6.12 qemu), booted under
# qemu-system-aarch64 (TCG, -cpu max) twice, once to power off at once and
# once with tests/oracle/init.c's workload; every executed MRS of an ID
# group 3 register counted by QEMU (tests/oracle/run-qemu.sh) and written
# as kvm_sys_access lines, which trapcheck trace reads like a host's. The
# suite checks the oracle (it saw traps, the workload adds to the boot's,
# trapcheck places every PC) and the join against trapcheck's own run on
# the same tree (the page-fault read in the workload, and every steady
# trapped line trapcheck misses has a reason); measure.py's figures go to
# docs/measured.md.
#
# The kernel takes about a quarter of an hour to make and the two boots
# several minutes (every instruction single-stepped): make check runs
# this suite only when that kernel is in the cache (or with
# TRAPCHECK_KERNEL_ORACLE=1, which makes it), else it says it skipped;
# make check-full always runs it.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

qtree="$KCACHE/linux-6.12-arm64-defconfig-qemu"
if [ "$KPROFILE" != full ] && [ -z "${TRAPCHECK_KERNEL_ORACLE:-}" ] &&
   [ ! -f "$qtree/.trapcheck-built" ]; then
	echo "1..0 # SKIP the oracle kernel is not built: make check-full, TRAPCHECK_KERNEL_ORACLE=1, or scripts/kernel-tree.sh 6.12 qemu"
	exit 0
fi

tree=$("$TOP/scripts/kernel-tree.sh" 6.12 qemu | tail -n 1)
check "the oracle kernel: Image, vmlinux with DWARF, no KASLR" \
	sh -c "[ -f '$tree/arch/arm64/boot/Image' ] &&
	       aarch64-linux-gnu-readelf -S '$tree/vmlinux' | grep -q debug_info &&
	       ! grep -q '^CONFIG_RANDOMIZE_BASE=y' '$tree/.config'"

# QEMU before its version goes into the oracle's key: on a new machine
# the key would lack it, and the next run would boot everything again.
. "$TOP/tests/oracle/lib.sh"
need_packages measured qemu-system-arm

# oracle TREE NAME: the directory of TREE's oracle run, made when missing
# and kept per tree, init, scripts and QEMU (konce's idea): the boots
# take minutes and give the same counts.
oracle() {
	_k=$( { cat "$1/.trapcheck-key" "$TOP/tests/oracle/init.c" \
		"$TOP/tests/oracle/run-qemu.sh" "$TOP/tests/oracle/mrs-trace.py" \
		"$TOP/tests/oracle/insn-trace.py" "$TOP/tests/oracle/lib.sh" \
		"$TOP"/roots/*.roots
		echo "$2 ${ORACLE_ENV:-}"; qemu-system-aarch64 --version; } |
		sha1sum | cut -c1-12)
	_o="$KCACHE/oracle-6.12-$2-$_k"
	if [ ! -f "$_o/seconds" ]; then
		rm -rf "$KCACHE/oracle-6.12-$2-"????????????
		# shellcheck disable=SC2086 # ORACLE_ENV: VAR=VALUE words
		env ${ORACLE_ENV:-} "$TOP/tests/oracle/run-qemu.sh" "$_o" \
			"$1" > /dev/null 2> "oracle-$2.err" ||
			sed 's/^/# /' "oracle-$2.err" >&2
	fi
	echo "$_o"
}

odir=$(oracle "$tree" base)
check_that "the oracle booted twice, each init reached its end" \
	'grep -q "oracle: power off" "$odir/boot.console" &&
	 grep -q "oracle: workload" "$odir/workload.console" &&
	 grep -q "oracle: power off" "$odir/workload.console"'
nb=$(grep -c kvm_sys_access "$odir/boot.trace")
nw=$(grep -c kvm_sys_access "$odir/workload.trace")
echo "# MRS executions: boot $nb, boot with the workload $nw"
# (6.12 reads no ID register per fault or per getrandom(): the workload
# adds nothing, or a read or two of a timer; revert-004 below shows a
# workload's traps being counted.)
check_that "QEMU counted the boot's ID-register reads, the workload run at least as many" \
	'[ "$nb" -gt 0 ] && [ "$nw" -ge "$nb" ]'

d=$(kcold "$tree")
check "trapcheck's cold run of the same tree found something (exit 1)" \
	[ "$(cat "$d/cold.rc")" = 1 ]
for w in boot workload; do
	"$TRAPCHECK" trace "$odir/$w.trace" --vmlinux "$tree/vmlinux" \
		--db "$d/facts.db" --format=json -o "$w.json" 2> "$w.err"
	echo $? > "$w.rc"
done
check_that "trapcheck trace reads both, infers no KASLR offset, places every PC" \
	'[ "$(cat boot.rc)" = 0 ] && [ "$(cat workload.rc)" = 0 ] &&
	 ! grep -q inferred workload.err &&
	 python3 -c "import json, sys; sys.exit(any(json.load(open(f))[\"summary\"][\"unplaced\"] for f in sys.argv[1:]))" boot.json workload.json'

python3 "$TOP/tests/oracle/measure.py" "$odir" "$d/cold.json" boot.json \
	workload.json "$tree/vmlinux" "$tree" summary.json > measured.md
rc=$?
sed -n '/^- /s/^/# /p' measured.md
check "measure.py: the table and the figures" [ $rc -eq 0 ]

# The page fault's hardware read (cpu_has_hw_af(), arch_has_hw_pte_young
# or the prefault path) is not in 6.12 (commit a89c6bcdac22 reads the
# sanitised copy): no line in the memory code traps steadily while
# trapcheck is silent about it.
python3 - summary.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rows = s['rows']
for r in rows:
    if r['workload'] > 0 and r['status'] == 'missed':
        assert r['reason'], r
missed_mm = [r for r in rows if r['workload'] > 0 and r['status'] == 'missed'
             and r['file'].startswith('mm/')]
assert not missed_mm, missed_mm
assert s['summary']['lines'] > 0
PY
check "every steadily trapped line trapcheck misses says why; none in mm/" \
	[ $? -eq 0 ]
python3 - summary.json "$tree/arch/arm64/include/asm/archrandom.h" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
# __cpu_has_rng()'s this_cpu_has_cap(ARM64_HAS_RNG), found in the source.
line = [i for i, l in enumerate(open(sys.argv[2]), 1)
        if 'this_cpu_has_cap(ARM64_HAS_RNG)' in l][0]
r = [r for r in s['rows'] if r['file'] == 'arch/arm64/include/asm/archrandom.h'
     and r['line'] == line]
assert r and r[0]['boot'] > 0 and r[0]['status'] == 'reported', r
print('# __cpu_has_rng(): %d traps in the boot, reported' % r[0]['boot'])
PY
check "the upstream seed's site: this_cpu_has_cap(ARM64_HAS_RNG) traps in the boot, counted at its call, reported" \
	[ $? -eq 0 ]

# The single-stepped oracle again, as a guest of a plain CPU
# (cortex-a72: no RNDR, no IDC/DIC), exec-heavy (init's "exec": 2,000
# processes and 200 fresh copies of init), every class a hypervisor can
# trap counted per PC (TID3, TID2, TID1, TID5: mrs-trace.py
# --all-classes), the root sets' functions counted at their entry; the
# runs recorded in docs/measured.json (record.py single) beside
# trapcheck's findings for that machine.
ORACLE_ENV="TRAPCHECK_ORACLE_CPU=cortex-a72 TRAPCHECK_ORACLE_CLASSES=all TRAPCHECK_ORACLE_RUNS=boot,workload,exec"
adir=$(oracle "$tree" a72-exec)
ORACLE_ENV=
tr -d '\r' < "$adir/exec.console" > a72exec.txt
check_that "single-stepped, cortex-a72: the exec run's 2,000 processes and 200 fresh copies of init ran" \
	'grep -q "oracle: exec: processes run 2000$" a72exec.txt &&
	 grep -q "oracle: exec: fresh copies run 200$" a72exec.txt'
# record CPU DIR: DIR's runs into m.json (record.py single), beside
# trapcheck's findings for that machine (--features off its boot log).
record() {
	_feat=$(python3 "$TOP/tests/oracle/features.py" "$tree" \
		"$2/boot.console")
	_machine() {
		kdb "$tree" feat.db && "$TRAPCHECK" -p "$tree" --db feat.db \
			--features="$_feat" --format=json -o "static-$1.json" \
			2> "static-$1.err"
	}
	konce "$tree" "features-$(echo "$_feat" | sha1sum | cut -c1-12)" \
		"static-$1.json" _machine "$1" &&
	python3 "$TOP/tests/oracle/record.py" single m.json "$1" "$2" \
		"$tree" "static-$1.json"
}
record max "$odir" && record cortex-a72 "$adir"
check "record.py single: both single-stepped oracles' runs (max; cortex-a72 with exec) and trapcheck's findings for each machine recorded" \
	[ $? -eq 0 ]
python3 - m.json "$TOP/docs/measured.json" <<'PY'
import json, sys
m, doc = (json.load(open(p)) for p in sys.argv[1:3])
runs = {r['run']: r for r in m['runs']
        if r['variant'] == 'single-cortex-a72'}
b, ex = runs['boot'], runs['exec']
ops = lambda r, fn: r['operations'].get(fn, 0) - b['operations'].get(fn, 0)
assert ops(ex, '__arm64_sys_execve') >= 2200, ex['operations']
# No ID group 3 read after boot, whatever the work.
for r in runs.values():
    if r['run'] != 'boot':
        assert not [s for s in r['sites'] if s['kind'] == 'idreg' and
                    s['steady'] > 0], r['name']
# Every other class counted: the cache type register, at the cache
# maintenance of each fresh executable page, twice per maintenance (the
# D- and I-cache line sizes of one macro line: trapcheck's two sites),
# within 1% (another caller of caches_clean_inval_pou() may add one).
ctr = sum(s['steady'] for s in ex['sites'] if s['kind'] == 'tid2' and
          s['file'] == 'arch/arm64/mm/cache.S' and
          'caches_clean_inval_pou' in s['in'])
n = ops(ex, 'sync_icache_aliases')
print('# single-stepped exec: %d CTR_EL0 reads in cache.S for %d '
      'sync_icache_aliases() calls' % (ctr, n))
assert n >= 300 and abs(ctr - 2 * n) <= max(2, n // 100), (ctr, n)
key = lambda x: sorted((r['name'], s['file'], s['line'], s['kind'],
                        s['count'])
                       for r in x['runs']
                       if r['variant'].startswith('single-')
                       for s in r['sites'])
assert key(m) == key(doc), 'docs/measured.json: record.py single again'
PY
check "single-stepped, cortex-a72, exec: no ID group 3 read after boot; CTR_EL0 twice per cache maintenance of a fresh executable page; docs/measured.json records these runs" \
	[ $? -eq 0 ]

# The seedless boot of the upstream fix ("arm64: archrandom: avoid
# trapping ID register read in __cpu_has_rng()", about 200,000 traps per
# boot there): Debian's early users of random numbers in the kernel
# (tests/oracle/seedless.config), a CPU without FEAT_RNG (cortex-a72), no
# rng-seed in the device tree, a direct boot. Until the CRNG is seeded
# every get_random_*() runs extract_entropy(), whose __cpu_has_rng()
# calls this_cpu_has_cap() (a trap each) until the capabilities are
# final. Then the same tree with trapcheck --fix applied, booted alike.
seedless() {
	ORACLE_ENV="TRAPCHECK_ORACLE_CPU=cortex-a72 TRAPCHECK_ORACLE_MACHINE=virt,dtb-randomness=off"
	stree=$("$TOP/scripts/kernel-tree.sh" 6.12 qemu-seedless | tail -n 1)
	sodir=$(oracle "$stree" seedless)
	ftree=$("$TOP/tests/oracle/variant.sh" trapcheck-fix qemu-seedless |
		tail -n 1)
	fodir=$(oracle "$ftree" seedless-fix)
	ORACLE_ENV=
	check_that "seedless: both boots reached init's end, the CRNG not seeded before init" \
		'grep -q "oracle: power off" "$sodir/boot.console" &&
		 grep -q "oracle: power off" "$fodir/boot.console" &&
		 ! grep -B1000 "Run /init" "$sodir/boot.console" | grep -q "crng init done"'
	check_that "seedless: trapcheck --fix rewrote __cpu_has_rng() and kept its !preemptible() guard" \
		'grep -q "^+.*read_sanitised_ftr_reg(SYS_ID_AA64ISAR0_EL1)" "$ftree.fix.diff" &&
		 grep -q "^+.*!system_capabilities_finalized() && !preemptible()" "$ftree.fix.diff"'
	python3 - "$sodir" "$fodir" "$stree" <<'PY'
import json, subprocess, sys
base, fixed, tree = sys.argv[1:4]
src = tree + '/arch/arm64/include/asm/archrandom.h'
line = [i for i, l in enumerate(open(src), 1)
        if 'this_cpu_has_cap(ARM64_HAS_RNG)' in l][0]
calls = json.load(open(base + '/boot.calls.json'))
pcs = sorted(p for p in calls if p != 'inside')
out = subprocess.run(['aarch64-linux-gnu-addr2line', '-e',
                      tree + '/vmlinux'] + ['0x' + p for p in pcs],
                     stdout=subprocess.PIPE, text=True,
                     check=True).stdout.split()
at = [p for p, loc in zip(pcs, out)
      if loc.endswith('archrandom.h:%d' % line)]
traps = sum(calls[p]['traps'] for p in at)
cons = json.load(open(base + '/boot.consumers.json'))
by = sum(c['traps'] for c in cons)
fcons = json.load(open(fixed + '/boot.consumers.json'))
ftraps = sum(c['traps'] for c in fcons)
print('# __cpu_has_rng(): %d traps at its %d calls in the seedless boot; '
      '%d inside get_random_*() calls; the fixed kernel: %d' %
      (traps, len(at), by, ftraps))
for c in cons[:3]:
    print('#   %(caller)s -> %(consumer)s: %(count)d calls, %(traps)d traps'
          % c)
assert traps >= 10000, traps
assert by >= 0.99 * traps, (by, traps)
assert ftraps <= 10, ftraps
PY
	check "seedless: at least 10,000 traps at __cpu_has_rng()'s calls, each one's consumer known; trapcheck's fix leaves at most 10" \
		[ $? -eq 0 ]
}
if [ "$KPROFILE" = full ] || [ -n "${TRAPCHECK_KERNEL_ORACLE:-}" ] ||
   [ -f "$KCACHE/linux-6.12-arm64-defconfig-qemu-seedless/.trapcheck-built" ]; then
	seedless
else
	echo "# the seedless boot: make check-full or TRAPCHECK_KERNEL_ORACLE=1"
fi

# The same kernel with a89c6bcdac22 reverted: cpu_has_hw_af() reads
# ID_AA64MMFR1_EL1 on the page-fault path again. Its build takes as long
# as the tree's (every TU includes cpufeature.h): make check-full,
# TRAPCHECK_KERNEL_ORACLE=1, or when it is in the cache already.
if [ "$KPROFILE" != full ] && [ -z "${TRAPCHECK_KERNEL_ORACLE:-}" ] &&
   [ ! -f "$tree-revert-004/.trapcheck-variant-built" ]; then
	echo "# revert-004 under QEMU: make check-full or TRAPCHECK_KERNEL_ORACLE=1"
	done_testing
	exit
fi
vtree=$("$TOP/tests/oracle/variant.sh" revert-004 | tail -n 1)
vodir=$(oracle "$vtree" revert-004)
dv=$(kcold "$vtree" "$tree")
for w in boot workload; do
	"$TRAPCHECK" trace "$vodir/$w.trace" --vmlinux "$vtree/vmlinux" \
		--db "$dv/facts.db" --format=json -o "v-$w.json" 2> /dev/null
done
python3 "$TOP/tests/oracle/measure.py" "$vodir" "$dv/cold.json" v-boot.json \
	v-workload.json "$vtree/vmlinux" "$vtree" v-summary.json > v-measured.md
sed -n '/^- /s/^/# revert-004: /p' v-measured.md
hw=$(grep -n 'read_cpuid(ID_AA64MMFR1_EL1)' \
	"$vtree/arch/arm64/include/asm/cpufeature.h" | head -n 1 | cut -d: -f1)
python3 - v-summary.json "$hw" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
hw = int(sys.argv[2])
r = [r for r in s['rows'] if r['file'] == 'arch/arm64/include/asm/cpufeature.h'
     and r['line'] == hw]
assert len(r) == 1, r
r = r[0]
# tests/oracle/init.c maps 4 x 1,024 pages of a file: fault-around
# (filemap_map_pages() -> set_pte_range()) asks cpu_has_hw_af() about
# each page it maps (anonymous faults do not): about one read a page.
assert r['workload'] >= 1024, r
assert r['workload'] == max(x['workload'] for x in s['rows']), r
assert r['status'] == 'reported', r
assert s['summary']['recall_steady'] == 1.0, s['summary']
print('# cpu_has_hw_af(): %d traps in the workload, %d in the boot' %
      (r['workload'], r['boot']))
PY
check "revert-004: the page-fault read traps most in the workload, and trapcheck reports it and every steady line" \
	[ $? -eq 0 ]
done_testing
