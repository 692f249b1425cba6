#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package that building and testing trapcheck needs.
# Idempotent: packages already present are not fetched again, and apt-get
# update runs only when something is missing.
#
# Usage: scripts/install-deps.sh [--run | --runtime] [--kernel [VERSION] | --kernel-build]
#   --run           only what building and running trapcheck needs (a CI
#                   job: no test tools, no browser)
#   --runtime       only what running an installed trapcheck needs (a CI
#                   job that installs the pipeline's built trapcheck;
#                   make install puts this script in DATADIR for it)
#   --kernel        also install what the real-kernel test needs (Debian's
#                   linux-source-VERSION, default 6.12, the arm64 cross
#                   compiler, bc, flex, bison, ...).
#   --kernel-build  also what building an arm64 kernel tree needs (the
#                   cross compiler, bc, flex, bison, ...), no kernel source

set -eu

pkgs="build-essential pkg-config llvm-14 llvm-14-dev clang-14 libclang-14-dev
libjansson-dev libsqlite3-dev libdw-dev libtracecmd-dev libtracefs-dev libgit2-dev
libtraceevent-dev libcmocka-dev trace-cmd coccinelle sparse git
python3 python3-yaml patch gcc-aarch64-linux-gnu graphviz chromium time
groff-base"
kernel_pkgs="build-essential gcc-aarch64-linux-gnu bc flex bison libssl-dev libelf-dev
xz-utils rsync cpio kmod"

run_pkgs="build-essential pkg-config llvm-14 llvm-14-dev clang-14 libclang-14-dev
libjansson-dev libsqlite3-dev libdw-dev libtracecmd-dev libtracefs-dev
libtraceevent-dev libgit2-dev git python3"

# The libraries trapcheck links with, clang (it preprocesses assembly
# sources), libclang's own headers, patch (--fix checks its diffs).
runtime_pkgs="clang-14 libclang1-14 libclang-common-14-dev libjansson4
libsqlite3-0 libdw1 libgit2-1.5 libtracecmd1 libtracefs1 libtraceevent1 git
python3 patch ca-certificates"

while [ $# -gt 0 ]; do
	case $1 in
	--run) pkgs=$run_pkgs ;;
	--runtime) pkgs=$runtime_pkgs ;;
	--kernel-build) pkgs="$pkgs $kernel_pkgs" ;;
	--kernel)
		case ${2:-} in
		[0-9]*) ver=$2; shift ;;
		*) ver=6.12 ;;
		esac
		pkgs="$pkgs $kernel_pkgs linux-source-$ver" ;;
	*) echo "usage: $0 [--run | --runtime] [--kernel [VERSION] | --kernel-build]" >&2
	   exit 2 ;;
	esac
	shift
done

# missing_of PACKAGE...: those not installed, space-separated.
missing_of() {
	for p; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
				grep -q 'ok installed'; then
			printf ' %s' "$p"
		fi
	done
}

# shellcheck disable=SC2086
missing=$(missing_of $pkgs)

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "install-deps: missing packages:$missing (run as root)" >&2
		exit 2
	fi
else
	SUDO=
fi

# Suites run side by side (make check: prove -j2), and each may need
# packages: one apt-get at a time, the others wait for it (and for any
# other apt-get on the machine: dpkg's lock, up to 10 minutes), then
# look again at what is still missing.
lock=${TMPDIR:-/tmp}/trapcheck-install-deps.lock
exec 9> "$lock"
flock 9
# shellcheck disable=SC2086
still=$(missing_of $missing)
[ -n "$still" ] || exit 0

echo "install-deps: installing$still"
export DEBIAN_FRONTEND=noninteractive
wait_lock="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
$SUDO apt-get $wait_lock update -qq
# shellcheck disable=SC2086
$SUDO apt-get $wait_lock install -y -qq --no-install-recommends $still >/dev/null
