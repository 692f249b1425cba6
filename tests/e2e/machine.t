#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's machine (--machine, docs/diagnostics.md "The guest's
# machine"): drivers' match tables read from the tree (device tree
# compatibles, ACPI ids positional and designated, PCI vendor:device, a
# PCI class match, an IRQCHIP_DECLARE()-style single entry); a read that
# only a driver none of whose devices the profile has reaches is a note
# naming the driver's file and ids, and a function of another file that
# bears the name of a driver's static one is no driver's; a driver is its
# module (KBUILD_MODFILE, -DMODULE): a loadable library module without
# tables that only such drivers call is one of them (a note naming the
# module and its callers), one a present driver calls is not (a warning);
# a driver's static function entered from outside it through one that is
# not static runs without its device (a warning), a function that is not
# static but a root only by the driver's own registration does not (a
# note); --machine=any warns of all of them.
# Expectations are the fixture's tags (check-tags.py).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/machine"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --format=json -o g.json
check "the machine fixture (--machine=guest, the default): exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" g.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its warnings and notes are its tags (8 warnings, 6 notes)" [ $rc -eq 0 ]
python3 - g.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
low = {x['function']: x for x in d['low_confidence']}
assert sorted(low) == ['anic_err_irq', 'anic_irq', 'apple_uart_tx',
                       'dma_line_size', 'intc_irq', 'qwifi_post_buf'], \
    sorted(low)
# Only virt is sourced DMA-coherent: a doubt, not a machine reason.
dma = low['dma_line_size']
assert 'no_device' not in dma, dma
assert dma['machine_doubt'].startswith(
    'it runs only when !dma_kmalloc_safe(dev,dir), which is false for a '
    'dma-coherent device, as every device of virt (hw/arm/virt.c '), dma
assert dma['machine_doubt'].endswith(
    'is; those of cloud are not known to be'), dma['machine_doubt']
assert low['apple_uart_tx']['no_device'] == (
    'it runs only with a device of drivers/tty/serial/apple_uart.c '
    '(of:apple,s5l-uart, of:samsung,exynos4210-uart), which no machine of '
    '--machine=guest has'), low['apple_uart_tx']['no_device']
assert 'pci:106b:1801' in low['anic_irq']['no_device']
assert 'of:vendor,other-intc' in low['intc_irq']['no_device']
assert low['qwifi_post_buf']['no_device'] == (
    'it runs only in module drivers/net/qwifi/qwifi.ko, which only drivers '
    'of devices no machine of --machine=guest has call '
    '(drivers/net/qwifi/pci.c: pci:17cb:1101)'), low['qwifi_post_buf']['no_device']
warned = sorted(x['function'] for x in d['findings'])
assert warned == ['anic_stats_read', 'hwinfo_read', 'nvme_irq', 'pl011_tx',
                  'uart_common_tx', 'vdma_stats', 'vlib_post', 'vnic_irq'], \
    warned
PY
check "JSON no_device names the driver's file and ids, or the unused module and its callers; virtio (1af4), the PL011 (of and ACPI), a class match, a library function a root calls, a module a present driver calls, a static function entered from outside and a read under the positive DMA test stay warnings; a read that needs a device that is not DMA-coherent is a doubt (machine_doubt)" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" > g.txt 2>&1
check_that "text: a note 'not on the guest's machine' for the Apple UART's read" \
	'grep -q "^drivers/tty/serial/apple_uart.c:17:[0-9]*: note: not on the guest.s machine, not warned of: apple_uart_tx() reached from machine, but it runs only with a device of drivers/tty/serial/apple_uart.c (of:apple,s5l-uart, of:samsung,exynos4210-uart), which no machine of --machine=guest has: apple_uart_irq -> apple_uart_tx \[trapping-idreg-read\]$" g.txt'

check_that "text: the unused module's note names it and its callers" \
	'grep -q "^drivers/net/qwifi/core.c:17:[0-9]*: note: not on the guest.s machine, not warned of: qwifi_post_buf() reached from machine, but it runs only in module drivers/net/qwifi/qwifi.ko, which only drivers of devices no machine of --machine=guest has call (drivers/net/qwifi/pci.c: pci:17cb:1101): qwifi_irq -> qwifi_post_buf \[trapping-idreg-read\]$" g.txt'

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --machine=any --format=json \
	-o any.json
python3 - any.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 14 and not d['low_confidence'], d['low_confidence']
PY
check "--machine=any: all 14 reads are warnings" [ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --machine=virt --format=json \
	-o virt.json
python3 - virt.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 8 and len(d['low_confidence']) == 6
low = {x['function']: x for x in d['low_confidence']}
why = low['dma_line_size']['no_device']
assert why.startswith(
    'it runs only when !dma_kmalloc_safe(dev,dir), which is false for a '
    'dma-coherent device, and every device of every machine of '
    '--machine=virt is dma-coherent: virt (hw/arm/virt.c '), why
PY
check "--machine=virt: 8 warnings, 6 notes; every virt device is DMA-coherent: the bounce path's read is a machine note" [ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --machine=cloud --format=json \
	-o cloud.json
python3 - cloud.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 9 and len(d['low_confidence']) == 5
w = [x for x in d['findings'] if x['function'] == 'dma_line_size']
kinds = [c['kind'] for c in w[0]['conditions']]
assert 'machine' in kinds, w[0]['conditions']
PY
check "--machine=cloud: no source says its devices are DMA-coherent: the bounce path's read is a warning (9 warnings, 5 notes), its condition of kind machine" [ $? -eq 0 ]
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" --machine=bogus > bad.out 2> bad.err
rc=$?
check_that "--machine=bogus: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < bad.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: --machine is guest, virt, cloud or any, not .bogus.$" bad.err'
done_testing
