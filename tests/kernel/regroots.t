#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Roots from registrations on real Linux 6.12 (arm64 defconfig, the
# drivers profile of scripts/kernel-tree.sh: the GICv3, the arch timer,
# virtio-net, virtio-blk, virtio, PSCI cpuidle, PMUv3 and the generic code
# that registers and calls them). --list-roots names each root a
# registration brings with the place it was registered; each place is
# checked against the source: the function is passed or stored there.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$("$TOP/scripts/kernel-tree.sh" 6.12 drivers | tail -n 1)
check "the drivers tree is prepared" [ -f "$tree/compile_commands.json" ]
start=$(date +%s)
"$TRAPCHECK" -p "$tree" --db d.db --no-progress --format=json -o d.json \
	2> d.err
rc=$?
echo "# cold run: exit $rc in $(( $(date +%s) - start )) s"
sed 's/^/# /' d.err | tail -n 2
check_that "the cold run analyses every TU (exit $rc)" \
	'[ $rc -le 1 ] && grep -q "^trapcheck: [0-9]* TUs analysed (0 with errors" d.err'
"$TRAPCHECK" -p "$tree" --db d.db --list-roots > roots.txt 2> /dev/null
n=$(grep -c '	registered$' roots.txt)
echo "# $n functions registered as roots"

# reg SET FUNCTION SLOT-TEXT: the file and line --list-roots gives.
reg() {
	awk -F'\t' -v s="$1" -v f="$2" -v t="$3" \
		'$1 == s && $3 == f && $5 == "registered" && index($4, "registered as " t " at ") {
			sub(/.* at /, "", $4); print $4 }' roots.txt
}
# at FILE:LINE TEXT: does the statement at line LINE of FILE (that line
# and the next three: a call's arguments run on) hold TEXT?
at() {
	sed -n "${1##*:},$((${1##*:} + 3))p" "$tree/${1%:*}" | tr -d '\n\t' |
		grep -qF "$2"
}
gic=$(reg irq gic_handle_irq "argument 0 of set_handle_irq()")
check_that "gic_handle_irq: an irq root, registered by set_handle_irq() at $gic" \
	'[ -n "$gic" ] && sed -n "${gic##*:}p" "$tree/${gic%:*}" | grep -qF "set_handle_irq(gic_handle_irq)"'
vp=$(reg net-rx virtnet_poll "argument 2 of netif_napi_add_weight()")
check_that "virtnet_poll: a net-rx root, registered by netif_napi_add_weight() at $vp" \
	'[ -n "$vp" ] && at "$vp" "netif_napi_add_weight(" && at "$vp" "virtnet_poll"'
tx=$(reg net-tx start_xmit ".ndo_start_xmit of struct net_device_ops")
check_that "virtio-net's start_xmit: a net-tx root, .ndo_start_xmit at $tx" \
	'[ -n "$tx" ] && at "$tx" ".ndo_start_xmit" && at "$tx" "start_xmit"'
qr=$(reg block virtio_queue_rq ".queue_rq of struct blk_mq_ops")
check_that "virtio-blk's virtio_queue_rq: a block root, .queue_rq at $qr" \
	'[ -n "$qr" ] && at "$qr" ".queue_rq" && at "$qr" "virtio_queue_rq"'
eoi=$(reg irq gic_eoi_irq ".irq_eoi of struct irq_chip")
check_that "the GICv3's gic_eoi_irq: an irq root, .irq_eoi at $eoi" \
	'[ -n "$eoi" ] && at "$eoi" ".irq_eoi" && at "$eoi" "gic_eoi_irq"'
tm=$(reg irq arch_timer_handler_virt "argument 1 of request_percpu_irq()")
check_that "the arch timer's virtual timer handler: an irq root, request_percpu_irq() at $tm" \
	'[ -n "$tm" ] && at "$tm" "request_percpu_irq("'
ps=$(reg idle psci_enter_idle_state ".enter of struct cpuidle_state")
check_that "PSCI cpuidle's psci_enter_idle_state: an idle root, .enter at $ps" \
	'[ -n "$ps" ] && at "$ps" "psci_enter_idle_state"'
ck=$(reg timekeeping arch_counter_read ".read of struct clocksource")
check_that "the arch timer's clocksource read: a timekeeping root, .read at $ck" \
	'[ -n "$ck" ] && at "$ck" "arch_counter_read"'

# Every registered root's place holds its function's name: checked for
# all of them, not only the ones above.
awk -F'\t' '$5 == "registered" { f = $3; sub(/.* at /, "", $4); print f, $4 }' \
	roots.txt > places.txt
bad=0
while read -r fn place; do
	at "$place" "$fn" || { bad=$((bad + 1)); echo "# not at $place: $fn"; }
done < places.txt
check_that "each of the $n registrations is at the place --list-roots gives" \
	'[ "$n" -ge 20 ] && [ $bad -eq 0 ]'

# Every shipped set has an entry point in this tree.
python3 - roots.txt <<'PY'
import sys
sets = {}
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('\t')
    sets.setdefault(f[0], []).append(f[4] in ('present', 'registered'))
want = ['irq', 'net-rx', 'net-tx', 'block', 'timekeeping', 'perf',
        'softirq', 'timer', 'idle']
print('# sets:', ', '.join('%s %d/%d' % (s, sum(v), len(v))
                           for s, v in sorted(sets.items()) if s in want))
sys.exit(any(not any(sets.get(s, [])) for s in want))
PY
check "irq, net-rx, net-tx, block, timekeeping, perf, softirq, timer and idle resolve here" \
	[ $? -eq 0 ]

# What the new roots reach: each warning named, its chain from a root.
python3 - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d['findings']:
    print('# %s:%d [%s] %s: %s' % (f['file'], f['line'], f['rule'], f['root'],
          ' -> '.join(s['function'] for s in f['chain'])))
PY

done_testing
