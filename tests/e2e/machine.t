#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's machine (--machine, docs/diagnostics.md "The guest's
# machine"): drivers' match tables read from the tree (device tree
# compatibles, ACPI ids positional and designated, PCI vendor:device, a
# PCI class match, an IRQCHIP_DECLARE()-style single entry); a read that
# only a driver none of whose devices the profile has reaches is a note
# naming the driver's file and ids, and a function of another file that
# bears the name of a driver's static one is no driver's; --machine=any
# warns of all of them.
# Expectations are the fixture's tags (check-tags.py).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/machine"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --format=json -o g.json
check "the machine fixture (--machine=guest, the default): exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" g.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its warnings and notes are its tags (5 warnings, 3 notes)" [ $rc -eq 0 ]
python3 - g.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = {x['function']: x for x in d['low_confidence']}
assert sorted(low) == ['anic_irq', 'apple_uart_tx', 'intc_irq'], sorted(low)
assert low['apple_uart_tx']['no_device'] == (
    'it runs only with a device of drivers/tty/serial/apple_uart.c '
    '(of:apple,s5l-uart, of:samsung,exynos4210-uart), which no machine of '
    '--machine=guest has'), low['apple_uart_tx']['no_device']
assert 'pci:106b:1801' in low['anic_irq']['no_device']
assert 'of:vendor,other-intc' in low['intc_irq']['no_device']
warned = sorted(x['function'] for x in d['findings'])
assert warned == ['hwinfo_read', 'nvme_irq', 'pl011_tx', 'uart_common_tx',
                  'vnic_irq'], warned
PY
check "JSON no_device names the driver's file and ids; virtio (1af4), the PL011 (of and ACPI), a class match and a library function a root calls stay warnings" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" > g.txt 2>&1
check_that "text: a note 'not on the guest's machine' for the Apple UART's read" \
	'grep -q "^drivers/tty/serial/apple_uart.c:17:[0-9]*: note: not on the guest.s machine, not warned of: apple_uart_tx() reached from machine, but it runs only with a device of drivers/tty/serial/apple_uart.c (of:apple,s5l-uart, of:samsung,exynos4210-uart), which no machine of --machine=guest has: apple_uart_irq -> apple_uart_tx \[trapping-idreg-read\]$" g.txt'

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --machine=any --format=json \
	-o any.json
python3 - any.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 8 and not d['low_confidence'], d['low_confidence']
PY
check "--machine=any: all 8 reads are warnings" [ $? -eq 0 ]
for m in virt cloud; do
	"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --machine=$m \
		--format=json -o $m.json
	python3 - $m.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 5 and len(d['low_confidence']) == 3
PY
	check "--machine=$m: the same 5 warnings and 3 notes" [ $? -eq 0 ]
done
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" --machine=bogus > bad.out 2> bad.err
rc=$?
check_that "--machine=bogus: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < bad.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: --machine is guest, virt, cloud or any, not .bogus.$" bad.err'
done_testing
