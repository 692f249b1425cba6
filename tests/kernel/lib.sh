# SPDX-License-Identifier: GPL-2.0
# Shared by the real-kernel suites, after tap.sh: the prepared trees and
# one cold trapcheck run per tree, paid once per cache and reused by every
# suite (docs/testing.md).
#
#   TRAPCHECK_KERNEL_CACHE    where trees and databases are kept
#                             (default /var/cache/trapcheck)
#   TRAPCHECK_KERNEL_PROFILE  focus (make check, default) or full (make
#                             check-full): scripts/kernel-tree.sh's
#                             target lists

KCACHE=${TRAPCHECK_KERNEL_CACHE:-/var/cache/trapcheck}
KPROFILE=${TRAPCHECK_KERNEL_PROFILE:-focus}
export TRAPCHECK_KERNEL_CACHE="$KCACHE"

# ktree VERSION: the prepared tree of this profile (built when missing).
ktree() {
	"$TOP/scripts/kernel-tree.sh" "$1" "$KPROFILE" | tail -n 1
}

# kvariant TREE NAME: a hard-linked copy of TREE with one upstream change
# applied or reverted (tests/kernel/tree-variant.py), made under a lock.
kvariant() {
	# Suites run side by side (make check: prove -j2): one makes it.
	(
		flock 9
		"$TOP/tests/kernel/tree-variant.py" "$1" "$1-$2" "$2"
	) 9> "$1-$2.lock"
}

# kcold TREE [FROM-TREE]: the directory of TREE's shared cold run, made
# when missing: facts.db (the database of a cold run at -j$(nproc)),
# cold.json, cold.err (with each parser's bodyskip.h counters), cold.rc
# and cold.seconds. Keyed by the tree, the
# trapcheck binary ($TRAPCHECK) and the shipped root sets: a rebuilt
# trapcheck runs cold again, so stale facts are never reused. With FROM-TREE (the tree a variant was
# copied from), the run starts from a copy of that tree's database and
# parses only the TUs that the variant's change touches. Suites copy
# facts.db before writing to it (kdb). A run that exits 2 or more (an
# error, Ctrl-C) is left in DIR.failed, shown to its caller and made
# again by the next (tests/e2e/kcold.t).
kcold() {
	_bin=$(cat "$TRAPCHECK" "$TOP"/roots/*.roots | sha1sum | cut -c1-12)
	_dir="$KCACHE/db/${1##*/}-$_bin"
	mkdir -p "$KCACHE/db"
	(
		flock 8
		[ -f "$_dir/complete" ] && exit 0
		if [ -n "${2:-}" ]; then
			_from=$(kcold "$2") || exit 1
		fi
		rm -rf "$_dir" "$_dir.tmp" "$_dir.failed"
		# Older binaries' runs of this tree are stale: drop them.
		rm -rf "$KCACHE/db/${1##*/}-"???????????? \
		       "$KCACHE/db/${1##*/}-"????????????.failed
		mkdir -p "$_dir.tmp"
		[ -n "${2:-}" ] && cp "$_from/facts.db" "$_dir.tmp/facts.db"
		_t=$(date +%s)
		TRAPCHECK_BODYSKIP_STATS=1 \
		"$TRAPCHECK" -p "$1" -j"$(nproc)" --db "$_dir.tmp/facts.db" \
			--format=json -o "$_dir.tmp/cold.json" \
			2> "$_dir.tmp/cold.err"
		_rc=$?
		echo $_rc > "$_dir.tmp/cold.rc"
		echo $(( $(date +%s) - _t )) > "$_dir.tmp/cold.seconds"
		# A run that failed or was interrupted (exit 2 and up) is
		# shown to this caller and made again by the next.
		if [ $_rc -gt 1 ]; then
			rm -rf "$_dir.failed"
			mv "$_dir.tmp" "$_dir.failed"
			exit 0
		fi
		touch "$_dir.tmp/complete"
		mv "$_dir.tmp" "$_dir"
	) 8> "$KCACHE/db/${1##*/}.lock" >&2 || return 1
	[ -f "$_dir/complete" ] || _dir="$_dir.failed"
	echo "# shared run of ${1##*/}: $(cat "$_dir/cold.seconds") s when made, exit $(cat "$_dir/cold.rc")" >&2
	echo "$_dir"
}

# konce TREE NAME FILE COMMAND...: COMMAND, which writes FILE, run once per
# tree, trapcheck binary and root sets (kcold's key) and NAME (which names
# every other input, e.g. the hash of a patch): FILE and the exit status
# are kept beside TREE's cold run, and a later suite or run gets them back
# instead of running COMMAND again (a --diff that re-parses every TU that
# includes cpufeature.h takes minutes, and gives the same answer for the
# same binary). Sets rc to COMMAND's exit status.
konce() {
	_d=$(kcold "$1") || return 1
	_k="$_d/once-$2"
	if [ -f "$_k.rc" ]; then
		cp "$_k.out" "$3"
		rc=$(cat "$_k.rc")
		echo "# $2: exit $rc, kept from the run that made it" >&2
		return 0
	fi
	_t=$(date +%s)
	_f=$3
	_n=$2
	shift 3
	"$@"
	rc=$?
	echo "# $_n: exit $rc in $(( $(date +%s) - _t )) s" >&2
	[ -f "$_f" ] || return 0
	cp "$_f" "$_k.out.tmp" && mv "$_k.out.tmp" "$_k.out" &&
		echo "$rc" > "$_k.rc.tmp" && mv "$_k.rc.tmp" "$_k.rc"
}

# patch_key PATCH: a key of PATCH's text for konce, its ---/+++ headers
# dates left out (plain diff -u writes each file's mtime there, and a
# file copied to make the patch has a new one every run).
patch_key() {
	sed '/^\(---\|+++\) /s/\t.*$//' "$1" | sha1sum | cut -c1-12
}

# kdb TREE DEST [FROM-TREE]: a copy of TREE's shared database at DEST.
kdb() {
	_d=$(kcold "$1" "${3:-}") && rm -f "$2" "$2-wal" "$2-shm" &&
		cp "$_d/facts.db" "$2"
}

# kbuildcopy TREE COPY: a copy of TREE that kbuild may build in, made in
# seconds: hard links for the sources (which kbuild only reads), real
# copies of every file the build made (objects, .cmd files, generated
# headers: newer than the unpacking stamp), which kbuild rewrites in
# place. Files a test patches must be written anew (patch(1) and git
# apply do; kbuildcopy_own FILE... otherwise).
kbuildcopy() {
	rm -rf "$2" && cp -al "$1" "$2" &&
		find "$2" -type f -newer "$2/.trapcheck-unpacked" -print0 |
		xargs -0 -r python3 -c '
import os, shutil, sys
for f in sys.argv[1:]:
    shutil.copy2(f, f + ".own")
    os.replace(f + ".own", f)
'
}
# kc2 OUT DB MAKE-ARGS...: kbuild's CHECK protocol: make -s MAKE-ARGS C=2
# CHECK="trapcheck check --db=DB" (DB absolute, made afresh), its output
# in OUT. Sets c2_rc (make's status), c2_nw (flag warnings) and c2_ne
# (TUs parsed with errors), and shows the first of those lines.
kc2() {
	_out=$1
	_db=$2
	shift 2
	rm -f "$_db" "$_db-wal" "$_db-shm"
	_t=$(date +%s)
	make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@" \
		C=2 CHECK="$TRAPCHECK check --db=$_db" > "$_out" 2>&1
	c2_rc=$?
	echo "# $(( $(date +%s) - _t )) s: make C=2 $*" | cut -c1-160
	c2_nw=$(grep -c "unknown compiler flag" "$_out")
	c2_ne=$(grep -c "parsed with [0-9]* error" "$_out")
	grep -e "unknown compiler flag" -e "parsed with" "$_out" |
		head -n 5 | sed 's/^/# /'
}
# ksame TREE DB: TREE's compile-database entries of the TUs the facts
# database DB holds (filled by kc2), as a compile database on stdout;
# fails when TREE's database lacks one of them.
ksame() {
	python3 - "$1" "$2" <<'PY'
import json, os, sqlite3, sys
tree, db = sys.argv[1:]
want = {r[0] for r in sqlite3.connect(db).execute('SELECT path FROM tu')}
out = [e for e in json.load(open(os.path.join(tree, 'compile_commands.json')))
       if os.path.relpath(os.path.join(e['directory'], e['file']), tree)
       in want]
have = {os.path.relpath(os.path.join(e['directory'], e['file']), tree)
        for e in out}
print('# %d TUs checked, %d entries in the compile database' %
      (len(want), len(out)), file=sys.stderr)
assert want == have, sorted(want ^ have)[:5]
print(json.dumps(out))
PY
}
