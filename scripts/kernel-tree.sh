#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prepare a real arm64 kernel tree with a kbuild compile database, cached
# outside the repository. Idempotent: each step is skipped once its stamp
# exists, so a second call returns in a second.
#
# Usage: scripts/kernel-tree.sh [VERSION] [DIRS...]
#   VERSION  Debian linux-source version (default 6.12)
#   DIRS     directories whose objects are built (default: the core set)
# Environment:
#   TRAPCHECK_KERNEL_CACHE  cache directory (default /var/cache/trapcheck)
#   JOBS                    make -j (default: nproc)
# Prints the tree's path on its last line.

set -eu

ver=${1:-6.12}
[ $# -gt 0 ] && shift
dirs=${*:-"arch/arm64/ mm/ kernel/ drivers/char/ lib/"}
cache=${TRAPCHECK_KERNEL_CACHE:-/var/cache/trapcheck}
jobs=${JOBS:-$(nproc)}
tree="$cache/linux-source-$ver"
tarball="/usr/src/linux-source-$ver.tar.xz"
kmake="make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- -j$jobs"

here=$(cd "$(dirname "$0")" && pwd)
"$here/install-deps.sh" --kernel "$ver" >&2

mkdir -p "$cache"
if [ ! -f "$tree/.trapcheck-unpacked" ]; then
	echo "kernel-tree: unpacking $tarball" >&2
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xf "$tarball" -C "$tree.tmp"
	mv "$tree.tmp/linux-source-$ver" "$tree"
	rmdir "$tree.tmp"
	touch "$tree/.trapcheck-unpacked"
fi

cd "$tree"
if [ ! -f .trapcheck-prepared ]; then
	echo "kernel-tree: defconfig prepare" >&2
	$kmake defconfig >&2
	$kmake prepare >&2
	touch .trapcheck-prepared
fi

stamp=".trapcheck-built-$(echo "$dirs" | tr -c 'A-Za-z0-9\n' _)"
if [ ! -f "$stamp" ]; then
	echo "kernel-tree: building objects in $dirs" >&2
	# -k: an object that fails to build must not stop the others; the
	# compile database is made from whatever was built.
	# shellcheck disable=SC2086
	$kmake -k $dirs >&2 || echo "kernel-tree: some objects failed" >&2
	python3 scripts/clang-tools/gen_compile_commands.py -d . \
		-o compile_commands.json.tmp >&2
	mv compile_commands.json.tmp compile_commands.json
	touch "$stamp"
fi
echo "$tree"
