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
# Usage: tests/oracle/variant.sh VARIANT   (prints the copy's path)

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tree=$("$top/scripts/kernel-tree.sh" 6.12 qemu | tail -n 1)
copy="$tree-$1"
exec 9> "$copy.lock"
flock 9
if [ ! -f "$copy/.trapcheck-variant-built" ]; then
	rm -rf "$copy" "$copy.links"
	python3 "$top/tests/kernel/tree-variant.py" "$tree" "$copy.links" \
		"$1" >&2
	cp -a "$copy.links" "$copy"
	rm -rf "$copy.links"
	cd "$copy"
	echo "variant: building $1's Image" >&2
	unset MAKEFLAGS MFLAGS MAKELEVEL
	make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- -j"$(nproc)" \
		Image >&2
	python3 scripts/clang-tools/gen_compile_commands.py -d . \
		-o compile_commands.json >&2
	touch .trapcheck-variant-built
fi
echo "$copy"
