#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The oracle of docs/measured.md: boot a real arm64 6.12 kernel under QEMU
# (TCG, -cpu max) and count every execution of an MRS that reads an ID
# group 3 register, the reads a KVM host with HCR_EL2.TID3 set traps.
#
# Usage: tests/oracle/run-qemu.sh [OUTDIR [TREE]]
#   Makes (or reuses) the tree of scripts/kernel-tree.sh 6.12 qemu (or
#   boots TREE, a built copy of it with a change, e.g. revert-004), builds
#   tests/oracle/init.c with the tree's nolibc, boots the kernel twice
#   (init "boot": power off at once; init "workload": page faults,
#   getrandom(), system calls, exec, then power off), and writes to OUTDIR
#   (default $TRAPCHECK_KERNEL_CACHE/oracle-6.12, kept between runs):
#     sites.json      the MRS sites found in vmlinux's disassembly
#     boot.trace      one kvm_sys_access line per execution, boot only
#     workload.trace  the same for the boot with the workload
#     boot.calls.json, workload.calls.json  each this_cpu_has_cap() call
#                     site and how often it ran
#     boot.console, workload.console  what the guest printed
#     seconds         how long each boot took
#     boot.consumers.json, workload.consumers.json  per function that
#                     calls get_random_*(): its calls, and the
#                     this_cpu_has_cap() calls and ID-register reads made
#                     inside them (mrs-trace.py's consumers)
#   The traces are emulated: QEMU executed the instruction; a KVM host
#   would have trapped it and traced the same PC and register.
# Environment (the seedless boot of docs/measured.md sets them):
#   TRAPCHECK_ORACLE_CPU      QEMU's CPU model (default max, which has
#                             FEAT_RNG; cortex-a72 has not)
#   TRAPCHECK_ORACLE_MACHINE  QEMU's machine (default virt; virt,dtb-
#                             randomness=off leaves rng-seed out of the
#                             device tree)
#   TRAPCHECK_ORACLE_APPEND   more kernel command line
#   TRAPCHECK_ORACLE_RUNS     init's runs, the boot first, split by blanks
#                             or commas (default "boot workload"; "exec":
#                             2,000 processes and 200 fresh copies of
#                             init, tests/oracle/init.c)
#   TRAPCHECK_ORACLE_CLASSES  "all": count and trace the cache, revision
#                             and tag ID registers too (TID2, TID1, TID5),
#                             as the plugin oracle does; default the ID
#                             group 3 only
# Each run also gets WHAT.sites.json, the plugin oracle's format
# (insn-trace.py trace): every trapped site with its inline chain, and
# the operations (the root sets' functions, counted at their entry).
# Prints OUTDIR on its last line.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${TRAPCHECK_KERNEL_CACHE:-/var/cache/trapcheck}
. "$here/lib.sh"
tree=${2:-$("$top/scripts/kernel-tree.sh" 6.12 qemu | tail -n 1)}
out=${1:-$cache/oracle-6.12}
mkdir -p "$out"

for p in qemu-system-arm binutils-aarch64-linux-gnu; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="${missing:-} $p"
done
if [ -n "${missing:-}" ]; then
	echo "run-qemu: installing$missing" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# init: static, with the kernel's nolibc and UAPI headers.
# (headers_standalone installs into OUTPUT/sysroot/include.)
make -s -C "$tree/tools/include/nolibc" ARCH=arm64 \
	OUTPUT="$work/" headers_standalone >/dev/null
aarch64-linux-gnu-gcc -Os -static -nostdlib -fno-stack-protector \
	-fno-asynchronous-unwind-tables -I"$work/sysroot/include" \
	-include nolibc.h -o "$work/init" "$here/init.c" -lgcc
cat > "$work/cpio.list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init $work/init 0755 0 0
EOF
"$tree/usr/gen_init_cpio" "$work/cpio.list" > "$work/initramfs.cpio"

# this_cpu_has_cap(): its reads happen inside cpufeature.c's out-of-line
# code, where a host trace cannot tell which call made them; its calls
# are counted where they are made.
# The CRNG's entry points: who asks for random numbers, counted per
# calling function.
consumers=$(aarch64-linux-gnu-nm "$tree/vmlinux" | awk '$2 ~ /^[Tt]$/ &&
	$3 ~ /^(get_random_(bytes|u8|u16|u32|u64)|__get_random_u32_below)$/ {
	print "+" $3 }' | sort -u)
# The operations, counted at their first instruction (as the plugin
# oracle counts them): every function the shipped root sets name.
count_entries aarch64-linux-gnu-nm "$tree/vmlinux" "$work" \
	__arm64_sys_execve sync_icache_aliases
classes=
[ "${TRAPCHECK_ORACLE_CLASSES:-}" = all ] && classes=--all-classes
filter=$(python3 "$here/mrs-trace.py" sites $classes \
	--entries "$work/entries" aarch64-linux-gnu-objdump \
	"$tree/vmlinux" "$work/sites.json" this_cpu_has_cap $consumers)
cpu=${TRAPCHECK_ORACLE_CPU:-max}
machine=${TRAPCHECK_ORACLE_MACHINE:-virt}
append=${TRAPCHECK_ORACLE_APPEND:-}

: > "$work/seconds"
n=0
runs=$(echo "${TRAPCHECK_ORACLE_RUNS:-boot workload}" | tr , ' ')
for what in $runs; do
	n=$((n + 1))
	t=$(date +%s)
	# -singlestep: one instruction per translation block, so -d exec
	# logs the MRS itself; nochain: every block's execution is logged.
	timeout 3600 qemu-system-aarch64 -M "$machine" -cpu "$cpu" -smp 2 \
		-m 512M -nographic -nic none -no-reboot \
		-kernel "$tree/arch/arm64/boot/Image" \
		-initrd "$work/initramfs.cpio" \
		-append "console=ttyAMA0 panic=-1 $append -- $what" \
		-singlestep -d exec,nochain -dfilter "$filter" \
		-D "$work/$what.log" < /dev/null > "$work/$what.console" 2>&1 ||
		{ echo "run-qemu: qemu failed ($what), see $work/$what.console" >&2
		  tail -n 20 "$work/$what.console" >&2; trap - EXIT; exit 1; }
	echo "$what $(( $(date +%s) - t ))" >> "$work/seconds"
	grep -q "oracle: power off" "$work/$what.console" ||
		{ echo "run-qemu: $what: init did not finish, see $work/$what.console" >&2
		  trap - EXIT; exit 1; }
	python3 "$here/mrs-trace.py" trace "$work/sites.json" \
		"$work/$what.log" "$n" "$work/$what.calls.json" \
		"$work/$what.consumers.json" "$work/$what.counts" \
		> "$work/$what.trace"
	rm -f "$work/$what.log"
	python3 "$here/insn-trace.py" trace aarch64-linux-gnu-addr2line \
		"$tree/vmlinux" "$work/ops.json" "$work/$what.counts" "$n" \
		"$work/$what.sites.json" > /dev/null
done

for what in $runs; do
	for f in trace calls.json consumers.json console sites.json; do
		mv "$work/$what.$f" "$out/$what.$f"
	done
done
mv "$work/sites.json" "$work/seconds" "$out/"
echo "$out"
