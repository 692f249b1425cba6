#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The nested oracle of docs/measured.md: an arm64 6.12 kernel with KVM
# (scripts/kernel-tree.sh 6.12 qemu-kvm) booted at the EL2 that QEMU's
# virt machine gives with virtualization=on (TCG, -cpu max), where it is
# a KVM host; init (tests/oracle/init.c "kvm") runs a one-vCPU VM whose
# every KVM_RUN is one MMIO exit (and again with the guest's monitor
# debug on, "kvm-debug": KVM then switches the debug registers on every
# world switch). Under nested virtualisation the host's
# own ID-register reads trap to the outer hypervisor: the TCG plugin
# (tests/oracle/insn-count.c) counts each MRS of an ID group 3 register
# per address, and the calls of every root set's functions, in both KVM
# modes: VHE (the default where the CPU has it) and nVHE
# (kvm-arm.mode=nvhe: the world switch runs in the EL2 hypervisor code,
# at addresses of its own, where its reads are counted but not placed).
#
# Usage: tests/oracle/run-qemu-kvm.sh [OUTDIR [TREE]]
#   Writes to OUTDIR (default $TRAPCHECK_KERNEL_CACHE/oracle-6.12-kvm):
#     MODE-boot.sites.json, MODE-kvm.sites.json, MODE-kvm-debug.sites.json
#                      (MODE vhe or nvhe) the
#                      ID-register MRS sites executed, the calls of the
#                      functions that hold one, each operation's count
#                      (insn-trace.py); MODE-boot powers off at once
#     MODE-WHAT.console  what the guest printed
#     seconds          how long each boot took
# Environment:
#   TRAPCHECK_ORACLE_MODES  the modes to boot (default "vhe nvhe"); mode
#                           guest boots the same kernel at EL1 (no
#                           virtualization=on: a guest of the machine)
#                           three times, init "boot", "workload" and
#                           "exec" (2,000 short-lived processes), as
#                           guest-WHAT.*
#   TRAPCHECK_ORACLE_CPU    QEMU's CPU model (default max; cortex-a72
#                           lacks the optional features a cloud host may
#                           lack: FEAT_RNG, FGT, AMU, ...)
# Every run counts the ID group 3 MRS (kind idreg) and the cache,
# revision and tag ID registers (tid2: CTR_EL0, CCSIDR_EL1, CLIDR_EL1,
# CCSIDR2_EL1, CSSELR_EL1; tid1: REVIDR_EL1, AIDR_EL1; tid5: GMID_EL1).
# Prints OUTDIR on its last line.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${TRAPCHECK_KERNEL_CACHE:-/var/cache/trapcheck}
tree=${2:-$("$top/scripts/kernel-tree.sh" 6.12 qemu-kvm | tail -n 1)}
out=${1:-$cache/oracle-6.12-kvm}
mkdir -p "$out"

. "$here/lib.sh"
need_packages run-qemu-kvm qemu-system-arm binutils-aarch64-linux-gnu

work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
build_plugin qemu-system-arm "$work/insn-count.so"

build_initramfs "$tree" arm64 aarch64-linux-gnu-gcc "$work"

# The operations: every function the shipped root sets name. nVHE's
# world switch runs at EL2 addresses of its own, not counted: there, each
# switch's exit is counted at handle_exit().
count_entries aarch64-linux-gnu-nm "$tree/vmlinux" "$work" \
	__arm64_sys_execve sync_icache_aliases

: > "$work/seconds"
n=0
modes=${TRAPCHECK_ORACLE_MODES:-vhe nvhe}
cpu=${TRAPCHECK_ORACLE_CPU:-max}
runs() {
	if [ "$1" = guest ]; then
		echo boot workload exec
	else
		echo boot kvm kvm-debug
	fi
}
for mode in $modes; do
	extra=
	machine=virt,virtualization=on,gic-version=3
	[ "$mode" = nvhe ] && extra="kvm-arm.mode=nvhe"
	[ "$mode" = guest ] && machine=virt,gic-version=3
	for what in $(runs "$mode"); do
		n=$((n + 1))
		t=$(date +%s)
		# printk.time=1: kernel lines stamped, told apart from init's
		# (tests/oracle/record.py console_lines()).
		timeout 1800 qemu-system-aarch64 \
			-M "$machine" -cpu "$cpu" \
			-smp 2 -m 512M -accel tcg,thread=single -nographic \
			-nic none -no-reboot \
			-kernel "$tree/arch/arm64/boot/Image" \
			-initrd "$work/initramfs.cpio" \
			-append "console=ttyAMA0 panic=-1 printk.time=1 $extra -- $what" \
			-plugin "$work/insn-count.so,out=$work/$mode-$what.counts,entries=$work/entries" \
			< /dev/null > "$work/$mode-$what.console" 2>&1 ||
			{ echo "run-qemu-kvm: qemu failed ($mode $what), see $work/$mode-$what.console" >&2
			  tail -n 20 "$work/$mode-$what.console" >&2; trap - EXIT; exit 1; }
		echo "$mode-$what $(( $(date +%s) - t ))" >> "$work/seconds"
		if ! grep -q "oracle: power off" "$work/$mode-$what.console" ||
		   grep -q "oracle: kvm: cannot" "$work/$mode-$what.console"; then
			echo "run-qemu-kvm: $mode $what: init did not finish its work, see $work/$mode-$what.console" >&2
			tail -n 20 "$work/$mode-$what.console" >&2
			trap - EXIT
			exit 1
		fi
		python3 "$here/insn-trace.py" trace aarch64-linux-gnu-addr2line \
			"$tree/vmlinux" "$work/ops.json" "$work/$mode-$what.counts" \
			"$n" "$work/$mode-$what.sites.json" > /dev/null
	done
done

for mode in $modes; do
	for what in $(runs "$mode"); do
		for f in sites.json console; do
			mv "$work/$mode-$what.$f" "$out/$mode-$what.$f"
		done
	done
done
mv "$work/seconds" "$work/entries.err" "$out/"
echo "$out"
