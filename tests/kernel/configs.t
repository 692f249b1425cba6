#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two real configurations of Linux 6.12 joined: arm64 defconfig and
# Debian's cloud-arm64 kernel (linux-config-6.12, olddefconfig), the same
# focus targets. trapcheck report --db defconfig=... --db cloud=...: every
# defconfig site (the __cpu_has_rng() seed site, the KVM ones) carries
# both configurations; a site one configuration has alone names the
# CONFIG_ symbols behind it; no preemption warning comes from the cloud
# kernel's preempt_disable() being barrier() (PREEMPT_VOLUNTARY); the
# rmap walks' rmap_one is the one their caller stored.
#
# Building the cloud tree takes about a quarter of an hour on 2 cores:
# make check-full runs this suite (TRAPCHECK_KERNEL_PROFILE=full), and so
# does make check with TRAPCHECK_KERNEL_CONFIGS=1; otherwise it says it
# skipped.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

if [ "$KPROFILE" != full ] && [ -z "${TRAPCHECK_KERNEL_CONFIGS:-}" ]; then
	echo "1..0 # SKIP the cloud-arm64 tree: make check-full, or TRAPCHECK_KERNEL_CONFIGS=1"
	exit 0
fi

# Both on the focus targets, whatever the profile: a join of different
# target lists would report the difference in targets.
def=$("$TOP/scripts/kernel-tree.sh" 6.12 focus | tail -n 1)
cloud=$(TRAPCHECK_KERNEL_CONFIG=cloud-arm64 \
	"$TOP/scripts/kernel-tree.sh" 6.12 focus | tail -n 1)
check "the cloud tree is Debian's cloud-arm64 config (PREEMPT_VOLUNTARY, no PREEMPT_COUNT)" \
	sh -c "grep -q '^CONFIG_PREEMPT_VOLUNTARY=y' '$cloud/.config' &&
	       ! grep -q '^CONFIG_PREEMPT_COUNT=y' '$cloud/.config' &&
	       grep -q '^CONFIG_PREEMPT_COUNT=y' '$def/.config'"
d=$(kcold "$def")
c=$(kcold "$cloud")
check "both cold runs found something (exit 1)" \
	[ "$(cat "$d/cold.rc")$(cat "$c/cold.rc")" = 11 ]
kdb "$def" def.db
kdb "$cloud" cloud.db

"$TRAPCHECK" report --db defconfig=def.db --db cloud=cloud.db \
	--format=json -o join.json 2> join.err
rc=$?
"$TRAPCHECK" report --db defconfig=def.db --db cloud=cloud.db \
	> join.txt 2> /dev/null
check "report --db defconfig=... --db cloud=...: exit 1" [ $rc -eq 1 ]

python3 - join.json "$d/cold.json" "$c/cold.json" <<'PY'
import json, sys
join = json.load(open(sys.argv[1]))
alone = [json.load(open(p)) for p in sys.argv[2:]]
fs = join['findings'] + join.get('low_confidence', [])
site = lambda f: (f['rule'], f['file'], f['line'])
by_site = {site(f): f for f in fs}
for name, run in zip(('defconfig', 'cloud'), alone):
    for f in run['findings']:
        j = by_site[site(f)]
        assert name in j['configs'], (name, site(f), j['configs'])
# The defconfig sites: the seed's __cpu_has_rng() among them.
d = [by_site[site(f)] for f in alone[0]['findings']]
assert any(f['function'] == '__cpu_has_rng' for f in d), d
# The KVM reads are notes under --outer=kvm (the tree's KVM never runs
# a guest at EL2).
assert sum(f['context'] == 'nested'
           for f in alone[0]['low_confidence']) >= 4, alone[0]
for f in d:
    assert f['configs'] == ['defconfig', 'cloud'], (site(f), f['configs'])
    assert 'config_symbols' not in f, f
print('# %d defconfig sites in both configurations' % len(d))
PY
check "every defconfig finding, the seed site among them, is in both configurations; the KVM reads notes" [ $? -eq 0 ]

python3 - join.json <<'PY'
import json, sys
join = json.load(open(sys.argv[1]))
only = [f for f in join['findings'] if len(f['configs']) == 1]
for f in only:
    print('# %s only: %s:%d %s %s' % (f['configs'][0], f['file'], f['line'],
                                      f['rule'], f.get('config_symbols')))
# PREEMPT_VOLUNTARY: preempt_disable() is barrier(), still a region.
bad = [f for f in only if f['rule'] == 'preempt-guard']
assert not bad, bad
# A site one configuration has alone names the symbols behind it, and
# those differ between the two .config files.
for f in only:
    assert f.get('config_symbols'), f
PY
check "no preempt-guard warning in the cloud kernel alone; the sites it has alone name their CONFIG_ symbols" [ $? -eq 0 ]
grep -q ' (cloud only: CONFIG_[A-Z0-9_]*.*) \[' join.txt
check "... and the text says so: (cloud only: CONFIG_...)" [ $? -eq 0 ]

python3 - join.json "$cloud" <<'PY'
import json, os, re, sys
join = json.load(open(sys.argv[1]))
fs = join['findings'] + join.get('low_confidence', [])
steps = 0
for f in fs:
    for r in [f] + f['also_reached']:
        ch = r['chain']
        for i, s in enumerate(ch):
            via = s.get('via') or ''
            if not via.endswith('.rmap_one') or \
                    via.startswith('rmap_walk_control.'):
                continue
            steps += 1
            # The walk is skipped: the step before is the function whose
            # control block stores this rmap_one (its call site's file).
            src = open(os.path.join(sys.argv[2], ch[i - 1]['file'])).read()
            assert re.search(r'\.rmap_one\s*=\s*%s\b' % s['function'],
                             src), (ch[i - 1], s)
assert steps, 'no chain through a named rmap_walk_control'
print('# %d chain steps through a named rmap_walk_control' % steps)
PY
check "calls through rmap_walk_control.rmap_one: from the function that stored it" [ $? -eq 0 ]

done_testing
