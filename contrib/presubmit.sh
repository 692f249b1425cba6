#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Pre-submit lint: report only the findings a patch adds.
#
#   contrib/presubmit.sh [-b BUILDDIR] TREE BASE-REV PATCH [trapcheck options...]
#
# TREE is the top of a git work tree with a compile_commands.json (kbuild's
# scripts/clang-tools/gen_compile_commands.py, or any whose entries are
# files of TREE); with -b, the database is BUILDDIR/compile_commands.json
# of a `make O=BUILDDIR` build. BASE-REV is analysed, its findings become
# the baseline, PATCH is applied to BASE-REV and analysed again; only new
# findings are reported (text on stdout, SARIF in $TRAPCHECK_SARIF if set,
# with TREE as its SRCROOT). trapcheck is $TRAPCHECK (default: trapcheck
# on the PATH); the options go to each of its runs. BASE-REV need not be
# what TREE has checked out.
#
# Nothing is ever written into TREE, its .git or BUILDDIR: the work tree,
# uncommitted edits, untracked and ignored files, HEAD and the index stay
# as they are. Git is only asked to read: rev-parse, archive and ls-files,
# none of which writes .git/index (unlike status or diff, which refresh
# it); GIT_OPTIONAL_LOCKS=0 is set all the same. No checkout, stash,
# clean, apply or worktree. Both analyses run on one copy in a
# `mktemp -d` directory under $TMPDIR (default /tmp; not inside TREE or
# BUILDDIR), removed on every exit and on SIGHUP, SIGINT and SIGTERM
# (exit 129, 130, 143) after the running trapcheck is stopped. The copy:
#   - BASE-REV's tracked files, `git -C TREE archive BASE-REV | tar -x`
#     (so export-ignore and export-subst attributes apply, as in a
#     release tarball);
#   - of TREE's untracked files that git ignores, those a parse may read:
#     anything under include/generated/, arch/*/include/generated/ or
#     include/config/, .config, and any *.h, *.c or *.S (generated headers
#     and sources). Not object files, not linker scripts (*.lds: a parse
#     never reads them), nothing else; never over a file BASE-REV tracks;
#     never an untracked file git does not ignore, never an uncommitted
#     edit: the copy is BASE-REV, not the work tree;
#   - the compile database, read from TREE (or BUILDDIR) as it is now,
#     written to the copy's top with every path into TREE rewritten into
#     the copy: directory (a relative one resolved first), file, output
#     and the paths in command or arguments (-I/tree/include,
#     -fmacro-prefix-map=/tree/=, ...).
# A BUILDDIR outside TREE is read where it is: only paths into TREE move,
# the generated headers stay in BUILDDIR. A BUILDDIR inside TREE (make
# O=build, kbuild's srctree then being "..") moves with the copy: its
# files of the kinds above are copied whether git ignores them or not.
#
# PATCH is applied with `git apply -p1` outside any repository: `git diff`
# and `git format-patch` output, and `diff -u`/`diff -urN` output with any
# one leading directory (a/ b/, linux.orig/ linux/). It must apply to
# BASE-REV exactly; that is checked before anything is analysed.
#
# Needs git, tar and python3 (to rewrite the compile database).
#
# Exit status: trapcheck's (0: nothing new, 1: new findings, 2/3/4:
# error), or 2 when presubmit refuses, with a last line on stderr,
# `presubmit: ...`, naming the file (git apply --check's own lines come
# first for a patch that does not apply): TREE not the top of a git work tree,
# BASE-REV not a revision, PATCH unreadable or not applying to BASE-REV,
# no compile database or none whose entries are files of TREE, $TMPDIR
# inside TREE or BUILDDIR or with a space or quote in its path, trapcheck
# not found. A trapcheck error is followed by a `presubmit:` line naming
# the run and what the temporary paths in its message were.

set -u
unset CDPATH
usage() {
	echo "usage: presubmit.sh [-b BUILDDIR] TREE BASE-REV PATCH [trapcheck options...]" >&2
	exit 2
}
die() {
	echo "presubmit: $*" >&2
	exit 2
}

build=
while getopts b: opt; do
	case $opt in
	b) build=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
tree=$1
base=$2
patch=$3
shift 3
trapcheck=${TRAPCHECK:-trapcheck}

# Git only reads TREE's repository: no optional locks (none of the
# commands below takes one; status or diff would refresh .git/index), and
# not a repository named by the environment.
GIT_OPTIONAL_LOCKS=0
export GIT_OPTIONAL_LOCKS
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_COMMON_DIR

command -v git > /dev/null || die "git: not found"
[ -d "$tree" ] || die "$tree: not a directory"
phys=$(cd -P -- "$tree" && pwd) || die "$tree: cannot enter"
logical=$(cd -- "$tree" && pwd) || die "$tree: cannot enter"
top=$(git -C "$tree" rev-parse --show-toplevel 2> /dev/null) ||
	die "$tree: not a git work tree"
top=$(cd -P -- "$top" && pwd)
[ "$top" = "$phys" ] || die "$tree: not the top of a git work tree ($top is)"
rev=$(git -C "$tree" rev-parse -q --verify "$base^{commit}" 2> /dev/null) ||
	die "$base: not a revision of $tree"
if [ -d "$patch" ] || ! (: < "$patch") 2> /dev/null; then
	die "$patch: cannot read the patch"
fi

bphys=
brel=
if [ -n "$build" ]; then
	[ -d "$build" ] || die "$build: not a directory"
	bphys=$(cd -P -- "$build" && pwd) || die "$build: cannot enter"
	case $bphys/ in
	"$phys"/) ;;
	"$phys"/*) brel=${bphys#"$phys"/} ;;
	esac
	db=$build/compile_commands.json
else
	db=$tree/compile_commands.json
fi
if [ ! -f "$db" ] || [ ! -r "$db" ]; then
	die "$db: no compile database (kbuild: scripts/clang-tools/gen_compile_commands.py)"
fi
command -v python3 > /dev/null || die "python3: not found (to rewrite $db)"
command -v tar > /dev/null || die "tar: not found"
command -v "$trapcheck" > /dev/null || die "$trapcheck: not found (\$TRAPCHECK)"

tmp=$(cd -P -- "${TMPDIR:-/tmp}" && pwd) || die "${TMPDIR:-/tmp}: cannot enter"
# The copy's path goes into compile commands unquoted.
case $tmp in
*[!A-Za-z0-9_./+-]*) die "${TMPDIR:-/tmp}: a temporary directory without spaces or quotes in its path is needed" ;;
esac
for d in "$phys" "${bphys:-$phys}"; do
	case $tmp/ in
	"$d"/*) die "${TMPDIR:-/tmp}: the temporary directory would be inside $d" ;;
	esac
done

work=
child=
# shellcheck disable=SC2317 # the EXIT trap's
cleanup() {
	if [ -n "$child" ]; then
		kill "$child" 2> /dev/null
		wait "$child" 2> /dev/null
		child=
	fi
	[ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
work=$(mktemp -d "$tmp/presubmit.XXXXXX") || die "$tmp: cannot make a temporary directory"
copy=$work/tree

# trapcheck runs in the background, so that a signal to this script alone
# is taken at once (wait returns) and the trap stops it.
run() {
	"$@" &
	child=$!
	wait "$child"
	rc=$?
	child=
}

# BASE-REV's tracked files.
mkdir "$copy" || die "$copy: cannot make"
{
	git -C "$top" archive --format=tar "$rev"
	echo $? > "$work/archive.rc"
} | tar -x -f - -C "$copy" || die "$copy: cannot unpack BASE-REV $base"
[ "$(cat "$work/archive.rc")" = 0 ] || die "$tree: git archive $base failed"

# The patch must apply to BASE-REV, before an analysis is spent on it. Git
# looks for no repository above the copy (TMPDIR may be inside one).
apply() {
	(cd "$copy" && GIT_CEILING_DIRECTORIES=$work \
		git apply -p1 --whitespace=nowarn "$@") < "$patch"
}
apply --check || die "$patch does not apply to $base"

# The generated files a parse may read, and the compile database.
git -C "$top" ls-files -z -o -i --exclude-standard > "$work/ignored" ||
	die "$tree: git ls-files failed"
: > "$work/inbuild"
if [ -n "$brel" ]; then
	git -C "$top" ls-files -z -o -- ":(literal)$brel/" > "$work/inbuild" ||
		die "$tree: git ls-files failed"
fi
python3 - "$phys" "$logical" "$copy" "$db" "$work/ignored" "$work/inbuild" \
	<<'PY' || exit 2
import json, os, re, shutil, sys

phys, logical, copy, db, ignored, inbuild = sys.argv[1:]

def fail(msg):
    print('presubmit: ' + msg, file=sys.stderr)
    sys.exit(2)

def under(path, root):
    return path == root or path.startswith(root + '/')

# Untracked files a parse may read: generated headers and sources, the
# kernel configuration. Never over a file BASE-REV tracks, never through
# a symbolic link of the copy that leads out of it.
generated = re.compile(r'(^|/)(include/generated|arch/[^/]+/include/generated'
                       r'|include/config)/|(^|/)\.config$|\.[chS]$')
real_copy = os.path.realpath(copy)
for listing in (ignored, inbuild):
    with open(listing, 'rb') as f:
        names = [n.decode('utf-8', 'surrogateescape')
                 for n in f.read().split(b'\0') if n]
    for name in names:
        dst = os.path.join(copy, name)
        if not generated.search(name) or os.path.lexists(dst):
            continue
        parent = os.path.dirname(dst)
        have = parent
        while not os.path.lexists(have):
            have = os.path.dirname(have)
        if not under(os.path.realpath(have), real_copy):
            continue
        os.makedirs(parent, exist_ok=True)
        try:
            shutil.copy2(os.path.join(phys, name), dst,
                         follow_symlinks=False)
        except OSError as e:
            fail('%s: cannot copy: %s' % (os.path.join(phys, name),
                                          e.strerror))

# The compile database, every path into TREE rewritten into the copy.
try:
    with open(db, encoding='utf-8') as f:
        entries = json.load(f)
except ValueError as e:
    fail('%s: malformed JSON: %s' % (db, e))
except OSError as e:
    fail('%s: cannot read: %s' % (db, e.strerror))

prefixes = sorted({phys, logical}, key=len, reverse=True)
dbdir = os.path.dirname(os.path.abspath(db))

def move(path):
    for p in prefixes:
        if under(path, p):
            return copy + path[len(p):]
    return path

# A TREE path in a command: a word of its own, or after an option letter
# (-I/tree/include), '=' (-fmacro-prefix-map=/tree/=) or ',' (-Wp,...).
in_cmd = re.compile(r'(^|[\s\'"=,:]|(?:^|(?<=[\s\'"]))-[A-Za-z][\w-]*?)('
                    + '|'.join(re.escape(p) for p in prefixes)
                    + r')(?=/|$|[\s\'",:])')

def move_in(s):
    return in_cmd.sub(lambda m: m.group(1) + copy, s)

inside = 0
# Anything that is not a list of objects is left for trapcheck to reject.
for e in entries if isinstance(entries, list) else []:
    if not isinstance(e, dict):
        continue
    d = e.get('directory')
    if isinstance(d, str):
        d = os.path.normpath(os.path.join(dbdir, d))
        e['directory'] = move(d)
        f = e.get('file')
        if isinstance(f, str):
            if os.path.isabs(f):
                e['file'] = f = move(os.path.normpath(f))
            if under(os.path.normpath(os.path.join(e['directory'], f)),
                     copy):
                inside += 1
    if isinstance(e.get('output'), str) and os.path.isabs(e['output']):
        e['output'] = move(os.path.normpath(e['output']))
    if isinstance(e.get('command'), str):
        e['command'] = move_in(e['command'])
    if isinstance(e.get('arguments'), list):
        e['arguments'] = [move_in(a) if isinstance(a, str) else a
                          for a in e['arguments']]
if isinstance(entries, list) and entries and not inside:
    fail('%s: no entry is a file of %s' % (db, logical))

out = os.path.join(copy, 'compile_commands.json')
if os.path.lexists(out):
    os.unlink(out)
with open(out, 'w', encoding='utf-8') as f:
    json.dump(entries, f, indent=1)
PY

# SARIF's SRCROOT: TREE, not the copy that is about to be removed.
srcroot() {
	python3 - "$1" "$copy" "$phys" <<'PY'
import json, sys
path, copy, tree = sys.argv[1:]
with open(path, encoding='utf-8') as f:
    s = f.read()
old = json.dumps('file://%s/' % copy, ensure_ascii=False)
if old in s:
    with open(path, 'w', encoding='utf-8') as f:
        f.write(s.replace(old, json.dumps('file://%s/' % tree,
                                          ensure_ascii=False)))
PY
}

# trapcheck's messages name the copy: say what it was.
failed() {
	echo "presubmit: trapcheck failed (exit $rc) on $1 ($copy was a copy of $tree, its compile database rewritten from $db)" >&2
	exit $rc
}

run "$trapcheck" -p "$copy" -q "$@" --write-baseline "$work/base.json" \
	> /dev/null
[ $rc -le 1 ] || failed "$base"

apply || die "$patch does not apply to $base"
if [ -n "${TRAPCHECK_SARIF:-}" ]; then
	run "$trapcheck" -p "$copy" -q "$@" --baseline "$work/base.json" \
		--format=sarif -o "$TRAPCHECK_SARIF"
	[ $rc -le 1 ] || failed "$base with $patch"
	srcroot "$TRAPCHECK_SARIF" || exit 3
fi
run "$trapcheck" -p "$copy" "$@" --baseline "$work/base.json"
[ $rc -le 1 ] || failed "$base with $patch"
exit $rc
