#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Capabilities and sanitised registers read from the analysed tree, on
# real Linux 6.12 and 6.1 (arm64 defconfig), checked against the source.
# The facts come from each tree's shared cold run (tests/kernel/lib.sh).
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

for ver in 6.12 6.1; do
	tree=$(ktree "$ver")
	kdb "$tree" "k-$ver.db"
	start=$(date +%s)
	"$TRAPCHECK" -p "$tree" --db "k-$ver.db" --list-caps > "caps-$ver.txt" \
		2> "caps-$ver.err"
	rc=$?
	echo "# $ver: --list-caps exit $rc in $(( $(date +%s) - start )) s"
	sed 's/^/# /' "caps-$ver.err" | grep 'from the tree'
	check "$ver: --list-caps runs" [ $rc -eq 0 ]
	check "$ver: ARM64_HAS_RNG resolves to ID_AA64ISAR0_EL1.RNDR, sanitised" \
		grep -q "^ARM64_HAS_RNG	SYSTEM	has_cpuid_feature	ID_AA64ISAR0_EL1	RNDR	[A-Z0-9]*	HCR_EL2.TID3	yes	sys_reg	arch/arm64/kernel/cpufeature.c:" "caps-$ver.txt"
	check "$ver: ARM64_WORKAROUND_1463225 resolves to a MIDR match" \
		grep -q "^ARM64_WORKAROUND_1463225	LOCAL_CPU	has_cortex_a76_erratum_1463225	MIDR_EL1	-	-	none	" "caps-$ver.txt"
	python3 "$TOP/tests/kernel/caps-check.py" "$tree" "caps-$ver.txt"
	check "$ver: a dozen capabilities agree with the source" [ $? -eq 0 ]
	# Entries are ARM64_FTR_REG*(SYS_X, ...) or { SYS_CTR_EL0, ... }.
	n=$(sed -n '/} arm64_ftr_regs\[\] = {/,/^};/p' \
		"$tree/arch/arm64/kernel/cpufeature.c" | grep -c 'SYS_[A-Z0-9_]*')
	check "$ver: every arm64_ftr_regs[] entry of the source is read ($n)" \
		grep -q "^# arm64_ftr_regs\[\] ($n):" "caps-$ver.txt"
	check "$ver: unresolved capabilities are named in the summary" \
		grep -q '^trapcheck: from the tree: [0-9]* capabilities ([0-9]* unresolved: ARM64_' "caps-$ver.err"

	# The root sets against this tree (the database: seconds).
	"$TRAPCHECK" -p "$tree" --db "k-$ver.db" -q --list-roots > "roots-$ver.txt"
	awk -F'\t' '$5 == "missing" { print "# " v ": root not in the tree: " $1 " " $3 }' \
		v="$ver" "roots-$ver.txt"
	python3 - "roots-$ver.txt" "$KPROFILE" "$TOP/roots" <<'PY'
import glob, os, sys
sets = {}
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('\t')
    sets.setdefault(f[0], []).append(f[4])
# A set whose "config:" options the tree's .config leaves unset has no
# entry point there ("unbuilt").
unbuilt = [s for s, v in sets.items() if set(v) == {'unbuilt'}]
print('# unbuilt here:', unbuilt)
# The focus trees build only the directories of the asserted chains:
# a set built by some options only (its "config:" line; compress: fs/,
# drivers/block/zram/) is checked on the full trees (make check-full).
if sys.argv[2] != 'full':
    for path in glob.glob(os.path.join(sys.argv[3], '*.roots')):
        name = os.path.basename(path)[:-len('.roots')]
        if any(l.startswith('config:') for l in open(path)):
            print('# %s: options-dependent, left to the full tree' % name)
            unbuilt.append(name)
# Sets whose entry points live in directories this profile does not
# build: the drivers tree checks them (tests/kernel/regroots.t).
elsewhere = {'net-rx', 'net-tx'} | ({'block', 'perf', 'softirq',
                                     'timekeeping'}
                                    if sys.argv[2] != 'full' else set())
print('# left to the drivers tree:', ', '.join(sorted(elsewhere)))
sets = {s: [st in ('present', 'registered') for st in v]
        for s, v in sets.items() if s not in unbuilt and s not in elsewhere}
bad = [s for s, v in sets.items() if not any(v)]
print('# sets:', ', '.join('%s %d/%d' % (s, sum(v), len(v))
                           for s, v in sorted(sets.items())))
sys.exit(1 if bad or len(sets) < 9 else 0)
PY
	check "$ver: every root set resolves to existing functions" [ $? -eq 0 ]
done

done_testing
