#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/fuzz/coverage.sh [TARGET...]
#
# Source-based line coverage of the functions each fuzz target is aimed
# at, over the corpus the last tests/fuzz/run.sh left in
# $FUZZ_BUILD/run/<target>/corpus (or the seed corpus when there is
# none). Builds uninstrumented-for-ASan copies with
# -fprofile-instr-generate -fcoverage-mapping in $FUZZ_BUILD/cov/, replays
# the corpus once (-runs=0) and prints llvm-cov's per-function table.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
ALL="compdb flags checkargs roots waivers baseline guards paths"
TARGETS=${*:-$ALL}
BUILD=${FUZZ_BUILD:-$TOP/build-fuzz}
COV=$BUILD/cov
CLANG=${CLANG:-clang}
LLVM_CONFIG=${LLVM_CONFIG:-$(command -v llvm-config-14 || command -v llvm-config)}
LLVM_BINDIR=$($LLVM_CONFIG --bindir)
LLVM_INCDIR=$($LLVM_CONFIG --includedir)
LLVM_LIBDIR=$($LLVM_CONFIG --libdir)
LLVM_VERSION=$($LLVM_CONFIG --version)
PROF="-fprofile-instr-generate -fcoverage-mapping"
CFLAGS="-std=gnu11 -g -O0 -D_GNU_SOURCE -w"
CPPFLAGS="-I$TOP/include -I$TOP/checker -I$LLVM_INCDIR"
RES="-DCLANG_RESOURCE_INCLUDE=\"$LLVM_LIBDIR/clang/$LLVM_VERSION/include\""
LIBS="-L$LLVM_LIBDIR -Wl,-rpath,$LLVM_LIBDIR -lclang -ljansson -lsqlite3 -lpthread"

die() {
	echo "coverage: $*" >&2
	exit 2
}

# What each target is aimed at: file and functions.
aim() {
	case $1 in
	compdb) echo "compdb.c compdb_load load_entry compdb_split_command flags.c flags_translate" ;;
	flags) echo "compdb.c compdb_split_command flags.c flags_classify flags_target_for flags_translate" ;;
	checkargs) echo "checkargs.c check_args_parse our_option takes_value check_flag_classify flags.c flags_translate" ;;
	roots) echo "roots.c roots_load_file" ;;
	waivers) echo "baseline.c waivers_load" ;;
	baseline) echo "baseline.c baseline_apply" ;;
	guards) echo "guards.c guard_atoms guard_join guards_have strip split negate is_primary" ;;
	paths) echo "util.c path_normalize path_join path_relative" ;;
	esac
}

mkdir -p "$COV" || die "cannot create $COV"
make -s -C "$TOP" checker/output/rule-help.inc || die "cannot generate checker/output/rule-help.inc"
objs=
arch_objs=
for src in "$TOP"/checker/*/*.c "$TOP"/checker/arch/*.c "$TOP"/checker/arch/*/*.c; do
	name=$(basename "$src" .c)
	case $src in */checker/programs/*) continue ;; esac
	$CLANG $PROF $CFLAGS $CPPFLAGS "$RES" -c -o "$COV/$name.o" "$src" ||
		die "$src did not build"
	# The architectures register themselves: linked whole (run.sh).
	case $src in
	*/checker/arch/*) arch_objs="$arch_objs $COV/$name.o" ;;
	*) objs="$objs $COV/$name.o" ;;
	esac
done
rm -f "$COV/lib.a" && ar rcs "$COV/lib.a" $objs || die "ar failed"

for t in $TARGETS; do
	$CLANG $PROF -fsanitize=fuzzer $CFLAGS $CPPFLAGS -o "$COV/fuzz-$t" \
		"$TOP/tests/fuzz/fuzz-$t.c" $arch_objs "$COV/lib.a" $LIBS ||
		die "fuzz-$t did not build"
	corpus=$BUILD/run/$t/corpus
	[ -d "$corpus" ] || corpus=$TOP/tests/fuzz/corpus/$t
	rm -f "$COV/$t.profraw"
	(cd "$COV" && TRAPCHECK_FUZZ_LAX_MESSAGES=1 \
	 LLVM_PROFILE_FILE="$COV/$t.profraw" "$COV/fuzz-$t" -runs=0 \
		"$corpus" > "$COV/$t.log" 2>&1) ||
		echo "coverage: fuzz-$t failed on its corpus: $COV/$t.log" >&2
	"$LLVM_BINDIR/llvm-profdata" merge -o "$COV/$t.profdata" \
		"$COV/$t.profraw" || die "no profile for $t"
	set -- $(aim "$t")
	echo "== $t ($(ls "$corpus" | wc -l) inputs from $corpus)"
	file=
	for w in "$@"; do
		case $w in
		*.c) file=$w ;;
		*) "$LLVM_BINDIR/llvm-cov" report -show-functions \
			-instr-profile="$COV/$t.profdata" "$COV/fuzz-$t" \
			"$TOP/checker/$file" 2> /dev/null |
			awk -v f="$w" '$1 == f || $1 ~ (":" f "$") { printf "  %-24s lines %s of %s covered (%s), branches %s\n", $1, $5 - $6, $5, $7, $10 }' ;;
		esac
	done
done
