#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The x86 oracle of docs/measured.md: boot a real x86_64 6.12 kernel under
# QEMU (TCG, -cpu max) and count every execution of CPUID and RDMSR (the
# instructions a KVM host takes as exits) and of RDRAND and RDSEED (slow,
# not trapped), per address, with a TCG plugin (tests/oracle/insn-count.c),
# together with how often the workload's operations ran.
#
# Usage: tests/oracle/run-qemu-x86.sh [OUTDIR [TREE]]
#   Makes (or reuses) the tree of TRAPCHECK_KERNEL_ARCH=x86
#   scripts/kernel-tree.sh 6.12 qemu (or boots TREE, a built copy of it
#   with a change, tests/oracle/variant.sh), builds the plugin against
#   the qemu-plugin.h of the installed QEMU (from Debian's qemu source
#   package, fetched once into the cache), init (tests/oracle/init.c)
#   with the tree's nolibc, a zstd-compressed squashfs image, and boots
#   the kernel three times: init "boot" (restart at once), "workload"
#   (page faults, getrandom(), system calls, exec) and "io" (the squashfs
#   image read after dropping the page cache, zram pages written and
#   read, getrandom()), each a fresh boot. Writes to OUTDIR (default
#   $TRAPCHECK_KERNEL_CACHE/oracle-6.12-x86, kept between runs):
#     WHAT.sites.json  each CPUID, RDMSR, RDRAND, RDSEED site executed in
#                      the kernel (address, count, addr2line's inline
#                      chain) and each operation's count (insn-trace.py)
#     WHAT.trace       one kvm_exit line per CPUID and RDMSR execution,
#                      for trapcheck trace
#     WHAT.console     what the guest printed
#     seconds          how long each boot took
#     entries.err      the functions named that the vmlinux has not
#   The traces are emulated: QEMU executed the instruction; a KVM host
#   would have taken the exit and traced the same RIP.
# Prints OUTDIR on its last line.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${TRAPCHECK_KERNEL_CACHE:-/var/cache/trapcheck}
tree=${2:-$(TRAPCHECK_KERNEL_ARCH=x86 "$top/scripts/kernel-tree.sh" 6.12 qemu | tail -n 1)}
out=${1:-$cache/oracle-6.12-x86}
mkdir -p "$out"

. "$here/lib.sh"
need_packages run-qemu-x86 qemu-system-x86 squashfs-tools binutils xz-utils

work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
build_plugin qemu-system-x86 "$work/insn-count.so"

build_initramfs "$tree" x86 gcc "$work"

# The image: 32 files of 256 KiB of text, zstd, 128 KiB blocks (64
# blocks, each one decompression when read after the cache is dropped).
mkdir "$work/image"
python3 - "$work/image" <<'PY'
import random, sys
r = random.Random(6012)
words = ['trap', 'cpuid', 'zstd', 'block', 'guest', 'host', 'exit', 'page']
for i in range(32):
    text = ' '.join(r.choice(words) for _ in range(60000)).encode()
    open('%s/f%02d' % (sys.argv[1], i), 'wb').write(text[:262144])
PY
mksquashfs "$work/image" "$work/image.sqfs" -comp zstd -b 131072 \
	-noappend -all-root -no-xattrs -mkfs-time 0 -all-time 0 \
	-quiet -no-progress >/dev/null

# The operations, counted at their entry: every function the shipped
# root sets name (a finding's rate is per call of its chain's root), and
# the workload's system calls and stream set-ups. Absent ones are left
# out (inlined, or not built).
count_entries nm "$tree/vmlinux" "$work" __x64_sys_getrandom \
	__x64_sys_getppid zstd_init_dstream zstd_init_cstream

: > "$work/seconds"
n=0
for what in boot workload io; do
	n=$((n + 1))
	t=$(date +%s)
	# printk.time=1: the kernel's lines stamped, so that one printed
	# between two chunks of a line of init's is told apart from it
	# (record.py console_lines()).
	timeout 1800 qemu-system-x86_64 -M pc -cpu max -smp 2 -m 512M \
		-accel tcg,thread=single -nographic -nic none -no-reboot \
		-kernel "$tree/arch/x86/boot/bzImage" \
		-initrd "$work/initramfs.cpio" \
		-drive "file=$work/image.sqfs,if=virtio,format=raw,readonly=on" \
		-append "console=ttyS0 panic=-1 printk.time=1 ${TRAPCHECK_ORACLE_APPEND:-} -- $what" \
		-plugin "$work/insn-count.so,out=$work/$what.counts,entries=$work/entries" \
		< /dev/null > "$work/$what.console" 2>&1 ||
		{ echo "run-qemu-x86: qemu failed ($what), see $work/$what.console" >&2
		  tail -n 20 "$work/$what.console" >&2; trap - EXIT; exit 1; }
	echo "$what $(( $(date +%s) - t ))" >> "$work/seconds"
	grep -q "oracle: power off" "$work/$what.console" ||
		{ echo "run-qemu-x86: $what: init did not finish, see $work/$what.console" >&2
		  tail -n 20 "$work/$what.console" >&2; trap - EXIT; exit 1; }
	if grep -q "oracle: io: cannot" "$work/$what.console"; then
		echo "run-qemu-x86: $what: $(grep -m1 'oracle: io: cannot' "$work/$what.console")" >&2
		trap - EXIT
		exit 1
	fi
	python3 "$here/insn-trace.py" trace addr2line "$tree/vmlinux" \
		"$work/ops.json" "$work/$what.counts" "$n" \
		"$work/$what.sites.json" > "$work/$what.trace"
done

for what in boot workload io; do
	for f in sites.json trace console; do
		mv "$work/$what.$f" "$out/$what.$f"
	done
done
mv "$work/seconds" "$work/entries.err" "$out/"
echo "$out"
