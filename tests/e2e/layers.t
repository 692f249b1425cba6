#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The layers of docs/design.md, checked from what the compiler includes
# (gcc -MM): only the clang layer (extract*.c, tables.c, tokens.c,
# bodyskip.c) and the pipeline that drives it (analyze*.c) see
# <clang-c/Index.h>; only the pipeline and the programs see analyze.h;
# no rule, emitter or storage module sees either. A file added without
# its place in the picture fails here.
. "$(dirname "$0")/../tap.sh"
cd "$TOP" || exit 1
LLVM_CONFIG=$(command -v llvm-config-14 || command -v llvm-config)
CLANG_INC=$($LLVM_CONFIG --includedir)

# deps FILE: the headers FILE includes, directly or not
deps() {
	gcc -MM -Iinclude -Ichecker -I"$CLANG_INC" \
		$(pkg-config --cflags jansson sqlite3 2>/dev/null) "$1" |
		tr ' \\' '\n\n'
}

n_files=0
for f in checker/*.c; do
	n_files=$((n_files + 1))
	b=$(basename "$f" .c)
	d=$(deps "$f") || { fail "$f: gcc -MM failed"; continue; }
	case $b in
	extract | extract-* | tables | tokens | bodyskip | analyze | analyze-*)
		may_clang=1 ;;
	*)	may_clang=0 ;;
	esac
	case $b in
	analyze | analyze-* | fix | verify | patchlint | prog | main | cmd-*)
		may_analyze=1 ;;
	*)	may_analyze=0 ;;
	esac
	if [ $may_clang = 0 ] && echo "$d" | grep -q 'clang-c/'; then
		fail "$f includes libclang's headers (layer: not clang)"
		continue
	fi
	if [ $may_analyze = 0 ] &&
	   echo "$d" | grep -q 'trapcheck/analyze\.h'; then
		fail "$f includes analyze.h (layer: below the pipeline)"
		continue
	fi
	ok "$f stays in its layer"
done
check_that "checker/ has modules to check ($n_files)" '[ $n_files -gt 40 ]'
check "the rules include rules.h and see no libclang" \
	sh -c '! grep -l "clang-c\|analyze.h" checker/rule-*.c'
unnamed=
for f in checker/*.c; do
	b=$(basename "$f")
	case $b in rule-*) b='rule-\*\.c' ;; esac
	grep -q "$b" docs/design.md || unnamed="$unnamed $f"
done
check_that "every checker/*.c is named in docs/design.md:$unnamed" \
	'[ -z "$unnamed" ]'
done_testing
