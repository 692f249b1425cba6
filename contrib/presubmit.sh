#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Pre-submit lint: report only the findings a patch adds.
#
#   contrib/presubmit.sh TREE BASE-REV PATCH [trapcheck options...]
#
# TREE is a git work tree with a compile_commands.json (kbuild's, or any
# with "directory" entries pointing into TREE). The tree is checked out at
# BASE-REV and analysed; its findings become the baseline; PATCH is
# applied (git apply) and the tree analysed again; only new findings are
# reported (text on stdout, SARIF in $TRAPCHECK_SARIF if set). The work
# tree is restored to BASE-REV afterwards.
#
# Exit status: trapcheck's (0: nothing new, 1: new findings, 2/3: error).

set -u
tree=$1
base=$2
patch=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
shift 3
trapcheck=${TRAPCHECK:-trapcheck}
work=$(mktemp -d "${TMPDIR:-/tmp}/presubmit.XXXXXX")
trap 'git -C "$tree" checkout -q -f "$base" -- . 2>/dev/null;
      git -C "$tree" clean -q -f 2>/dev/null; rm -rf "$work"' EXIT

git -C "$tree" checkout -q "$base" || exit 2
"$trapcheck" -p "$tree" -q "$@" --write-baseline "$work/base.json" \
	> /dev/null
rc=$?
[ $rc -le 1 ] || exit $rc

git -C "$tree" apply "$patch" || { echo "presubmit: $patch does not apply" >&2; exit 2; }
if [ -n "${TRAPCHECK_SARIF:-}" ]; then
	"$trapcheck" -p "$tree" "$@" --baseline "$work/base.json" \
		--format=sarif -o "$TRAPCHECK_SARIF"
	rc=$?
fi
"$trapcheck" -p "$tree" "$@" --baseline "$work/base.json"
