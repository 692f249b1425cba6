#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Prepare a real arm64 (or x86_64) kernel tree with a kbuild compile
# database, cached outside the repository. Idempotent: each step is
# skipped once its stamp exists, so a second call returns in a second.
#
# Usage: scripts/kernel-tree.sh [VERSION] [PROFILE | TARGETS...]
#   VERSION  Debian linux-source version (default 6.12)
#   PROFILE  focus (default): the kbuild targets the make check assertions
#            need (docs/testing.md says why each). 6.12: arch/arm64/ mm/
#            kernel/sched/ kernel/time/hrtimer.o drivers/char/random.o.
#            Other versions (6.1) serve the table, root set, ASan and
#            coccicheck checks only: arch/arm64/kernel/, the objects that
#            define a root of each root set, and drivers/char/random.o.
#            full: arch/arm64/ mm/ kernel/ drivers/char/ lib/ fs/ block/
#            init/ (the whole-subset runs of make check-full, bench/run)
#            drivers: the drivers a guest's interrupts, timer, network,
#            block I/O, idle and PMU run through (GICv3, arch timer,
#            virtio-net, virtio-blk, virtio, cpuidle, PMUv3, PSCI) with the
#            generic code that registers and calls them, arm64's kernel/
#            and mm/ (tests/kernel/regroots.t)
#            all: the whole build, vmlinux and modules (every C file
#            of it: 9,508 for 6.12's arm64 defconfig, 1,307 of them the
#            .mod.c that modpost writes), made in about 3 minutes at -j2
#            without compiling a C file: scripts/kbuild-stub-cc stands in
#            for the compiler, so kbuild's .cmd files, and the compile
#            database, hold the command lines of a real build (31
#            minutes); the link of vmlinux fails on the empty objects
#            (tests/whole/whole.t, bench/run --whole)
#            outoftree: a make O= build (tests/kernel/outoftree.t): the
#            source in TREE/src, untouched by the build, the objects and
#            compile_commands.json in TREE/build (printed instead of the
#            tree); the objects of the seed chains and the vDSO:
#            arch/arm64/kernel/cpufeature.o arch/arm64/kernel/vdso/
#            arch/arm64/mm/fault.o drivers/char/random.o mm/memory.o
#            qemu: a whole kernel that boots on QEMU's virt machine
#            (tests/oracle/run-qemu.sh, docs/measured.md): tinyconfig,
#            then every option of arch/Kconfig, arch/arm64/Kconfig,
#            mm/Kconfig and kernel/Kconfig.{preempt,hz} that defconfig
#            sets to y, then tests/oracle/qemu.config (serial console,
#            initramfs, ELF, DWARF, no KASLR); builds Image, vmlinux and
#            usr/gen_init_cpio; its compile database is every C file of
#            that kernel
#            With TRAPCHECK_KERNEL_ARCH=x86: the same from
#            x86_64_defconfig, arch/x86/Kconfig and
#            tests/oracle/qemu-x86.config (8250 console, virtio disk,
#            squashfs and zram with zstd), bzImage
#            (tests/oracle/run-qemu-x86.sh)
#            qemu-kvm: the arm64 one with tests/oracle/kvm.config (a
#            KVM host, for the nested oracle: tests/oracle/run-qemu-kvm.sh)
#            qemu-seedless: the same with tests/oracle/seedless.config
#            (the early users of random numbers of Debian's arm64
#            kernel: freelist randomisation, page shuffling, KFENCE...)
#   TARGETS  any other list of kbuild targets (directories or objects)
# Environment:
#   TRAPCHECK_KERNEL_CACHE  cache directory (default /var/cache/trapcheck)
#   TRAPCHECK_KERNEL_CONFIG defconfig (default) or a Debian kernel
#                           configuration of the arm64 linux-config-VERSION
#                           package, e.g. cloud-arm64 (the config of
#                           Debian's cloud kernel, config.arm64_none_
#                           cloud-arm64.xz), made with olddefconfig; the
#                           package is downloaded, not installed (dpkg
#                           learns the arm64 architecture for it)
#   TRAPCHECK_KERNEL_ARCH   arm64 (default) or x86: x86_64_defconfig with
#                           KVM (Intel and AMD), zram, zswap, zstd and the
#                           file systems that use it (btrfs, squashfs,
#                           erofs) enabled, built with the host's gcc;
#                           PROFILE focus is then the x86 set: the page
#                           fault, entry, CPU, interrupt (APIC, IRQ, SMP),
#                           context switch and KVM code, lib/zstd/, zram,
#                           mm/memory.o, mm/zswap.o, the scheduler core
#                           and idle loop, kernel/time/ and
#                           drivers/char/random.o; PROFILE full is
#                           arch/x86/ mm/ kernel/ lib/ fs/ drivers/char/
#                           drivers/block/ (outoftree is arm64's)
#   JOBS                    make -j (default: nproc)
# Prints the tree's path on its last line.
#
# Each (version, Debian package version, config, target list) has a tree
# of its own, $CACHE/linux-VERSION-arm64-CONFIG-NAME, NAME being the
# profile or a hash of the targets: its compile_commands.json holds the
# objects of those targets and nothing else. The key is written in the
# tree's .trapcheck-key; a tree whose key differs (a new Debian upload of
# the source package) is made again. Concurrent calls for one tree wait
# for each other (flock).

set -eu

ver=${1:-6.12}
[ $# -gt 0 ] && shift
arch=${TRAPCHECK_KERNEL_ARCH:-arm64}
case $arch in
arm64|x86) ;;
*)	echo "kernel-tree: arch '$arch': arm64 or x86" >&2
	exit 2 ;;
esac
case "${*:-focus}" in
focus)	name=focus
	if [ "$arch" = x86 ]; then
		targets="arch/x86/mm/ arch/x86/entry/ arch/x86/kernel/cpu/
			 arch/x86/kvm/ arch/x86/kernel/apic/
			 arch/x86/kernel/irq.o arch/x86/kernel/smp.o
			 arch/x86/kernel/process.o arch/x86/kernel/process_64.o
			 lib/zstd/ drivers/block/zram/ drivers/char/random.o
			 mm/memory.o mm/zswap.o kernel/sched/core.o
			 kernel/sched/build_policy.o kernel/time/"
	elif [ "$ver" = 6.12 ]; then
		targets="arch/arm64/ mm/ kernel/sched/ kernel/time/hrtimer.o
			 drivers/char/random.o"
	else
		targets="arch/arm64/kernel/ arch/arm64/kvm/arm.o
			 arch/arm64/kvm/handle_exit.o mm/memory.o
			 kernel/sched/core.o kernel/sched/build_policy.o
			 kernel/time/hrtimer.o drivers/char/random.o"
	fi
	targets=$(echo $targets)
	;;
full)	name=full
	if [ "$arch" = x86 ]; then
		targets="arch/x86/ mm/ kernel/ lib/ fs/ drivers/char/
			 drivers/block/"
	else
		targets="arch/arm64/ mm/ kernel/ drivers/char/ lib/ fs/ block/
			 init/"
	fi
	targets=$(echo $targets)
	;;
drivers)
	# The drivers a guest's hot paths run through, with the code that
	# registers and calls them (roots from registrations,
	# tests/kernel/regroots.t): the GICv3 and its ITS, the architected
	# timer, virtio-net, virtio-blk and the virtio core, PSCI cpuidle,
	# the PMUv3 driver, PSCI firmware calls; the generic interrupt, timer,
	# softirq, NAPI and blk-mq code; arm64's kernel/ (its capability
	# tables) and mm/.
	name=drivers
	if [ "$arch" = x86 ]; then
		echo "kernel-tree: profile 'drivers' is arm64's" >&2
		exit 2
	fi
	targets="arch/arm64/kernel/ arch/arm64/mm/ drivers/irqchip/irq-gic-v3.o
		 drivers/irqchip/irq-gic-v3-its.o drivers/irqchip/irq-gic-common.o
		 drivers/clocksource/arm_arch_timer.o drivers/net/virtio_net.o
		 drivers/block/virtio_blk.o drivers/virtio/ drivers/cpuidle/
		 drivers/perf/arm_pmu.o drivers/perf/arm_pmuv3.o
		 drivers/firmware/psci/ kernel/irq/
		 kernel/time/ kernel/softirq.o net/core/dev.o block/blk-mq.o
		 mm/memory.o drivers/char/random.o"
	targets=$(echo $targets)
	;;
all)	# Every C object of vmlinux and the modules, made with
	# scripts/kbuild-stub-cc: kbuild's own command lines without
	# compiling the C files (their objects are empty).
	name=all
	targets="vmlinux modules"
	;;
outoftree)
	name=outoftree
	targets="arch/arm64/kernel/cpufeature.o arch/arm64/kernel/vdso/
		 arch/arm64/mm/fault.o drivers/char/random.o mm/memory.o"
	targets=$(echo $targets)
	;;
qemu|qemu-seedless|qemu-kvm)
	name=$1
	targets="Image"
	[ "$arch" = x86 ] && targets="bzImage"
	;;
*)	targets=$*
	name=$(printf '%s\n' $targets | sort -u | md5sum | cut -c1-8)
	;;
esac
# The outoftree, qemu-seedless and qemu-kvm profiles are arm64's; qemu
# is both's.
qemu=
case $name in qemu|qemu-seedless|qemu-kvm) qemu=1 ;; esac
if [ "$arch" = x86 ] && { [ "$name" = outoftree ] || [ "$name" = qemu-seedless ] ||
			  [ "$name" = qemu-kvm ]; }; then
	echo "kernel-tree: profile '$name' is arm64's; x86: focus, full, all, qemu or a target list" >&2
	exit 2
fi
config=${TRAPCHECK_KERNEL_CONFIG:-defconfig}
case $arch-$config in
*-defconfig|arm64-[a-z]*-arm64) ;;
*)	echo "kernel-tree: config '$config': defconfig or a Debian arm64 flavour (cloud-arm64)" >&2
	exit 2 ;;
esac
outoftree=
[ "$name" = outoftree ] && outoftree=1
cache=${TRAPCHECK_KERNEL_CACHE:-/var/cache/trapcheck}
jobs=${JOBS:-$(nproc)}
tree="$cache/linux-$ver-$arch-$config-$name"
tarball="/usr/src/linux-source-$ver.tar.xz"
unset MAKEFLAGS MFLAGS MAKELEVEL
if [ "$arch" = x86 ]; then
	kmake="make -s ARCH=x86_64 -j$jobs"
else
	kmake="make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- -j$jobs"
fi

here=$(cd "$(dirname "$0")" && pwd)
"$here/install-deps.sh" --kernel "$ver" >&2

pkgver=$(dpkg-query -W -f='${Version}' "linux-source-$ver")
# A Debian configuration: from the arm64 linux-config package of the same
# upload as the source, downloaded and unpacked into the cache.
if [ "$config" != defconfig ]; then
	cfgdir="$cache/linux-config-$ver-$pkgver"
	cfgfile="$cfgdir/usr/src/linux-config-$ver/config.arm64_none_$config.xz"
	if [ ! -f "$cfgfile" ]; then
		mkdir -p "$cfgdir.tmp"
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			dpkg --add-architecture arm64 >&2
			apt-get update >&2
		fi
		(cd "$cfgdir.tmp" &&
		 apt-get download "linux-config-$ver:arm64=$pkgver" >&2 &&
		 dpkg-deb -x linux-config-*.deb .) ||
			{ echo "kernel-tree: cannot fetch linux-config-$ver:arm64 $pkgver" >&2; exit 1; }
		rm -rf "$cfgdir"
		mv "$cfgdir.tmp" "$cfgdir"
	fi
	[ -f "$cfgfile" ] ||
		{ echo "kernel-tree: no $cfgfile in linux-config-$ver:arm64" >&2; exit 1; }
	config="$config sha1=$(sha1sum < "$cfgfile" | cut -c1-12)"
fi
if [ -n "$qemu" ]; then
	[ "$config" = defconfig ] ||
		{ echo "kernel-tree: profile $name derives its own config from defconfig" >&2; exit 2; }
	frag="$here/../tests/oracle/qemu.config"
	[ "$arch" = x86 ] && frag="$here/../tests/oracle/qemu-x86.config"
	[ "$name" = qemu-seedless ] &&
		frag="$frag $here/../tests/oracle/seedless.config"
	[ "$name" = qemu-kvm ] &&
		frag="$frag $here/../tests/oracle/kvm.config"
	# shellcheck disable=SC2086 # $frag: one or two paths
	config="defconfig-qemu sha1=$(cat $frag | sha1sum | cut -c1-12)"
fi
key="version=$ver package=$pkgver arch=$arch config=$config targets=$targets${outoftree:+ O=build}"
config=${config%% *}

mkdir -p "$cache"
exec 9> "$tree.lock"
flock 9

if [ -f "$tree/.trapcheck-key" ] &&
   [ "$(cat "$tree/.trapcheck-key")" != "$key" ]; then
	echo "kernel-tree: $tree was made for another key; making it again" >&2
	rm -rf "$tree"
fi

if [ ! -f "$tree/.trapcheck-unpacked" ]; then
	echo "kernel-tree: unpacking $tarball" >&2
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xf "$tarball" -C "$tree.tmp"
	if [ -n "$outoftree" ]; then
		mkdir "$tree.tmp/tree"
		mv "$tree.tmp/linux-source-$ver" "$tree.tmp/tree/src"
		mkdir "$tree.tmp/tree/build"
		mv "$tree.tmp/tree" "$tree"
	else
		mv "$tree.tmp/linux-source-$ver" "$tree"
	fi
	rmdir "$tree.tmp"
	printf '%s\n' "$key" > "$tree/.trapcheck-key"
	touch "$tree/.trapcheck-unpacked"
fi

# make O=BUILD: kbuild runs from the source tree and writes only to BUILD.
stamps=$tree
if [ -n "$outoftree" ]; then
	cd "$tree/src"
	kmake="$kmake O=$tree/build"
	out=$tree/build
else
	cd "$tree"
	out=.
fi
if [ ! -f "$stamps/.trapcheck-prepared" ]; then
	echo "kernel-tree: $config prepare" >&2
	if [ -n "$qemu" ]; then
		# The architecture, memory and scheduling options of
		# defconfig on a tinyconfig: the paths trapcheck follows as
		# defconfig has them, without defconfig's hundreds of drivers.
		$kmake defconfig >&2
		mv .config .config.defconfig
		$kmake tinyconfig >&2
		kdir=arm64
		[ "$arch" = x86 ] && kdir=x86
		sed -n 's/^\(menu\)\{0,1\}config \([A-Z0-9_]*\)$/\2/p' \
			arch/Kconfig arch/$kdir/Kconfig mm/Kconfig \
			kernel/Kconfig.preempt kernel/Kconfig.hz | sort -u |
		while read -r sym; do
			grep -qx "CONFIG_$sym=y" .config.defconfig &&
				echo "CONFIG_$sym=y" || :
		done > .config.derived
		# shellcheck disable=SC2086 # $frag: one or two paths
		scripts/kconfig/merge_config.sh -m .config .config.derived \
			$frag >&2
		$kmake olddefconfig >&2
	elif [ "$config" = defconfig ] && [ "$arch" = x86 ]; then
		$kmake defconfig >&2
		scripts/config --file "$out/.config" \
			-e KVM -e KVM_INTEL -e KVM_AMD -e ZRAM -e ZSWAP \
			-e ZSTD_COMPRESS -e ZSTD_DECOMPRESS -e BTRFS_FS \
			-e SQUASHFS -e SQUASHFS_ZSTD -e EROFS_FS \
			-e EROFS_FS_ZIP -e EROFS_FS_ZIP_ZSTD >&2
		$kmake olddefconfig >&2
	elif [ "$config" = defconfig ]; then
		$kmake defconfig >&2
	else
		# Debian's certificates are not in the source package: no
		# trusted keys, a signing key made by the build.
		xz -dc "$cfgfile" > "$out/.config"
		scripts/config --file "$out/.config" \
			--set-str SYSTEM_TRUSTED_KEYS "" \
			--set-str SYSTEM_REVOCATION_KEYS "" \
			--set-str MODULE_SIG_KEY certs/signing_key.pem \
			--disable DEBUG_INFO_BTF >&2
		$kmake olddefconfig >&2
	fi
	$kmake prepare >&2
	touch "$stamps/.trapcheck-prepared"
fi

if [ ! -f "$stamps/.trapcheck-built" ]; then
	echo "kernel-tree: building $targets" >&2
	# -k: an object that fails to build must not stop the others; the
	# compile database is made from whatever was built.
	if [ "$name" = all ]; then
		# scripts/trapcheck-compdb, the CI templates' own: kbuild's
		# command lines with the stand-in compiler, a compile
		# database with paths relative to the tree.
		if [ "$arch" = x86 ]; then
			karch=x86_64 kcross=
		else
			karch=arm64 kcross=aarch64-linux-gnu-
		fi
		# shellcheck disable=SC2086
		ARCH=$karch CROSS_COMPILE=$kcross \
			"$here/trapcheck-compdb" -j "$jobs" $targets >&2 ||
			exit 1
	else
		# shellcheck disable=SC2086
		$kmake -k $targets >&2 ||
			echo "kernel-tree: some objects failed" >&2
	fi
	if [ "$name" != all ]; then
		python3 scripts/clang-tools/gen_compile_commands.py -d "$out" \
			-o "$out/compile_commands.json.tmp" >&2
		mv "$out/compile_commands.json.tmp" \
			"$out/compile_commands.json"
	fi
	touch "$stamps/.trapcheck-built"
fi
if [ -n "$outoftree" ]; then
	echo "$tree/build"
else
	echo "$tree"
fi
