# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the plugin oracles (tests/oracle/run-qemu-x86.sh,
# run-qemu-kvm.sh): build_plugin PACKAGE OUT builds tests/oracle/
# insn-count.c into OUT against the qemu-plugin.h of the QEMU that
# PACKAGE installed. Debian ships no development package for that
# header; QEMU's source package of the same version has it: fetched once
# into $cache/qemu-plugin-VERSION (a deb-src entry for Debian's own
# archive is added when apt has none). Needs $cache and $here.

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
