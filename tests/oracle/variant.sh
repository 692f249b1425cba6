#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A built copy of the oracle kernel with one upstream change applied or
# reverted (tests/kernel/tree-variant.py's names, e.g. revert-004: the
# page-fault path's cpu_has_hw_af() reads ID_AA64MMFR1_EL1 again), for
# tests/oracle/run-qemu.sh OUTDIR COPY. The copy is a real one, not hard
# links (kbuild rewrites objects in place), made once and kept beside
# the tree; its Image, vmlinux and compile_commands.json are its own.
#
# VARIANT trapcheck-fix: the copy with what trapcheck --fix proposes for
# the tree applied (the diff kept beside it as COPY.fix.diff), made again
# when the trapcheck binary changes. Of the qemu-kvm tree with
# --outer=kvm-nested: its oracle (tests/oracle/run-qemu-kvm.sh) runs the
# KVM host at EL2 under QEMU's TCG, an outer hypervisor that does what
# 6.12's KVM does not (run a guest at EL2), so its KVM host reads are
# warnings there.
#
# Usage: tests/oracle/variant.sh VARIANT [PROFILE]   (prints the copy's path)
#   PROFILE: qemu (default) or qemu-seedless (scripts/kernel-tree.sh);
#   with TRAPCHECK_KERNEL_ARCH=x86, the x86 qemu tree and its bzImage
#   (tests/oracle/run-qemu-x86.sh OUTDIR COPY)

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tree=$("$top/scripts/kernel-tree.sh" 6.12 "${2:-qemu}" | tail -n 1)
copy="$tree-$1"
exec 9> "$copy.lock"
flock 9
# trapcheck-fix: made again when trapcheck changed (its fixes may have).
stamp=
outer=
[ "${2:-qemu}" = qemu-kvm ] && outer=--outer=kvm-nested
[ "$1" = trapcheck-fix ] &&
	stamp=$( { cat "$top/trapcheck"; echo "$outer"; } | sha1sum |
		cut -c1-12)
if [ ! -f "$copy/.trapcheck-variant-built" ] ||
   [ "$(cat "$copy/.trapcheck-variant-built")" != "$stamp" ]; then
	rm -rf "$copy" "$copy.links"
	# The facts database of --fix is another binary's: one of another
	# schema is refused (exit 2), so it goes with the copy.
	rm -f "$copy.fix.db" "$copy.fix.db-wal" "$copy.fix.db-shm"
	if [ "$1" = trapcheck-fix ]; then
		python3 "$top/tests/kernel/tree-variant.py" "$tree" \
			"$copy.links" plain >&2
	else
		python3 "$top/tests/kernel/tree-variant.py" "$tree" \
			"$copy.links" "$1" >&2
	fi
	cp -a "$copy.links" "$copy"
	rm -rf "$copy.links"
	if [ "$1" = trapcheck-fix ]; then
		rc=0
		# shellcheck disable=SC2086 # $outer: no word or one
		"$top/trapcheck" -p "$tree" -q --db "$copy.fix.db" $outer --fix \
			> "$copy.fix.diff.tmp" || rc=$?
		[ "$rc" -le 1 ] && [ -s "$copy.fix.diff.tmp" ] ||
			{ echo "variant: trapcheck --fix on $tree: exit $rc, no diff" >&2
			  exit 1; }
		mv "$copy.fix.diff.tmp" "$copy.fix.diff"
		patch -s -d "$copy" -p1 < "$copy.fix.diff" >&2
	fi
	cd "$copy"
	unset MAKEFLAGS MFLAGS MAKELEVEL
	if [ "${TRAPCHECK_KERNEL_ARCH:-arm64}" = x86 ]; then
		echo "variant: building $1's bzImage" >&2
		make -s ARCH=x86_64 -j"$(nproc)" bzImage >&2
	else
		echo "variant: building $1's Image" >&2
		make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			-j"$(nproc)" Image >&2
	fi
	python3 scripts/clang-tools/gen_compile_commands.py -d . \
		-o compile_commands.json >&2
	printf '%s' "$stamp" > .trapcheck-variant-built
fi
echo "$copy"
