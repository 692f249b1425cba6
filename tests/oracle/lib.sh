# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the plugin oracles (tests/oracle/run-qemu-x86.sh,
# run-qemu-kvm.sh); needs $cache, $here and $top.
#
# need_packages WHO PACKAGE...: the Debian packages, installed if missing.
need_packages() {
	_who=$1
	shift
	_missing=
	for _p in "$@"; do
		dpkg-query -W -f='${Status}' "$_p" 2>/dev/null |
			grep -q 'ok installed' || _missing="$_missing $_p"
	done
	[ -z "$_missing" ] && return 0
	echo "$_who: installing$_missing" >&2
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $_missing >/dev/null
}

# build_initramfs TREE ARCH CC WORK: tests/oracle/init.c built static with
# TREE's nolibc for ARCH (its tools/include/nolibc name) by CC, as /init
# of WORK/initramfs.cpio.
build_initramfs() {
	make -s -C "$1/tools/include/nolibc" ARCH="$2" OUTPUT="$4/" \
		headers_standalone >/dev/null
	"$3" -Os -static -nostdlib -fno-stack-protector \
		-fno-asynchronous-unwind-tables -I"$4/sysroot/include" \
		-include nolibc.h -o "$4/init" "$here/init.c" -lgcc
	cat > "$4/cpio.list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init $4/init 0755 0 0
EOF
	"$1/usr/gen_init_cpio" "$4/cpio.list" > "$4/initramfs.cpio"
}

# count_entries NM VMLINUX WORK [FUNCTION...]: the operations the plugin
# counts at their entry, every function the shipped root sets name and
# the FUNCTIONs, into WORK/entries and WORK/ops.json (insn-trace.py
# entries; the ones the vmlinux lacks in WORK/entries.err).
count_entries() {
	_nm=$1 _vmlinux=$2 _work=$3
	shift 3
	_roots=$(sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)\([ \t].*\)\{0,1\}$/\1/p' \
		"$top"/roots/*.roots | sort -u)
	# shellcheck disable=SC2086 # one word per function
	python3 "$here/insn-trace.py" entries "$_nm" "$_vmlinux" \
		"$_work/entries" "$_work/ops.json" "$@" $_roots \
		2> "$_work/entries.err"
}

# build_plugin PACKAGE OUT builds tests/oracle/insn-count.c into OUT
# against the qemu-plugin.h of the QEMU that PACKAGE installed. Debian
# ships no development package for that header; QEMU's source package of
# the same version has it: fetched once into $cache/qemu-plugin-VERSION
# (a deb-src entry for Debian's own archive is added when apt has none).

build_plugin() {
	_qver=$(dpkg-query -W -f='${source:Version}' "$1")
	_hdir="$cache/qemu-plugin-$_qver"
	if [ ! -f "$_hdir/qemu-plugin.h" ]; then
		echo "oracle: fetching qemu $_qver's source for qemu-plugin.h" >&2
		if ! apt-get source --print-uris -qq "qemu=$_qver" \
		     >/dev/null 2>&1; then
			cat > /etc/apt/sources.list.d/trapcheck-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
			apt-get update -qq >&2
		fi
		_src=$(mktemp -d "$cache/qemu-src.XXXXXX")
		(cd "$_src" &&
		 apt-get source -qq --download-only "qemu=$_qver" >&2 &&
		 tar -xJf qemu_*.orig.tar.xz --wildcards \
			'*/include/qemu/qemu-plugin.h') ||
			{ rm -rf "$_src"; return 1; }
		mkdir -p "$_hdir.tmp"
		cp "$_src"/*/include/qemu/qemu-plugin.h "$_hdir.tmp/"
		rm -rf "$_src" "$_hdir"
		mv "$_hdir.tmp" "$_hdir"
	fi
	gcc -O2 -Wall -shared -fPIC -I"$_hdir" -o "$2" "$here/insn-count.c"
}
