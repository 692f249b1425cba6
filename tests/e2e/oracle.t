#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/oracle/record.py on two consoles of the same kernel's decisions:
# in the second, kernel lines came between chunks of init's lines (the
# i8042 probe in the middle of "oracle: io: squashfs bytes read"), as a
# serial console interleaves them; the firmware's output and its
# control sequences come before the kernel's first line. The decisions
# compared line for line by record.py fix are the same; its console
# command joins init's lines.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/oracle"
cd "$SCRATCH" || exit 1

python3 "$TOP/tests/oracle/record.py" console "$FX/after.console" > c.txt
check_that "record.py console: init's lines joined again, the kernel's apart and without stamps" \
	'grep -qx "oracle: io: squashfs bytes read 8388608" c.txt &&
	 grep -qx "oracle: io: zram pages written and read 2048" c.txt &&
	 grep -qx "random: crng init done" c.txt &&
	 grep -qx "input: ImExPS/2 Generic Explorer Mouse as /devices/platform/i8042/serio1/input/input2" c.txt &&
	 ! grep -q "^8388608" c.txt && [ "$(wc -l < c.txt)" = 10 ] &&
	 ! grep -q "$(printf "\033")" c.txt'

PYTHONPATH="$TOP/tests/oracle" python3 - "$FX" <<'PY'
import sys
import record
b = record.decisions(sys.argv[1] + '/before.console')
a = record.decisions(sys.argv[1] + '/after.console')
assert a == b, (b, a)
assert 'oracle: io: squashfs bytes read 8388608' in a, a
# Init's first line, after the firmware's clearing of the screen.
assert 'oracle: vulnerabilities: meltdown: Not affected' in a, a
assert len([x for x in a if x.startswith('x86/fpu: ')]) == 2, a
PY
check "record.py decisions: the same on both consoles, the I/O's results among them" \
	[ $? -eq 0 ]
# The oracles' keys hold QEMU's version: each suite installs QEMU before
# it asks for the version (a new machine's first key lacked it, so the
# next run booted every oracle again).
for t in measured measured-x86 measured-kvm; do
	check "$t.t installs QEMU before its oracle key asks for its version" \
		awk '/need_packages .*qemu-system-/ && !v { n = NR }
		     /qemu-system-[a-z0-9_]* --version/ && !v { v = NR }
		     END { exit !(n && v && n < v) }' \
		"$TOP/tests/kernel/$t.t"
done
done_testing
