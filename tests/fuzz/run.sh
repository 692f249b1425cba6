#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# Build the libFuzzer targets of tests/fuzz/ (clang, -fsanitize=fuzzer,
# address,undefined; every UBSan report aborts) against the library
# sources; replay each target's tests/fuzz/regressions/<target>/ inputs
# (bugs found before: each must pass), then run each one for SECONDS
# (default 10) on a scratch copy of its seed corpus. One line per target
# (a failing regression input counts as a crash):
#
#	fuzz <target>: <execs> execs, <cov> cov, <n> crashes
#
# Exit status: 0 when no target crashed, leaked, timed out or ran out of
# memory; 1 otherwise (the reproducer is kept in the build directory and
# named); 2 when the targets could not be built.
#
# Environment:
#	FUZZ_BUILD   build directory (default: build-fuzz/ in the repository,
#	             ignored by git through /build-*/)
#	FUZZ_JOBS    targets run at the same time (default: the CPUs)
#	FUZZ_CORPUS  where the seed corpora are (default: tests/fuzz/corpus;
#	             each target reads <dir>/<target>/, copied, never written)
#	CLANG        the compiler (default: clang)
#	LLVM_CONFIG  (default: llvm-config-14 or llvm-config)
#	TRAPCHECK_FUZZ_LAX_MESSAGES=1
#	             do not check that error messages are one line (a known
#	             bug: jansson's error text quotes the input, newline
#	             included), to keep fuzzing for memory errors
#
# A long run, e.g. for docs/reliability.md: tests/fuzz/run.sh 360
# (targets run $FUZZ_JOBS at a time, so 9 targets take 5 x 360 s on 2 CPUs).
#
# The seed corpora in tests/fuzz/corpus/ are never written to: new inputs
# go to $FUZZ_BUILD/run/<target>/corpus, crashes to
# $FUZZ_BUILD/run/<target>/crash-*.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-10}
[ $# -gt 0 ] && shift
case $SECS in
''|*[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
ALL="compdb flags checkargs roots waivers baseline guards paths factsio trace db tracedat"
TARGETS=${*:-$ALL}
BUILD=${FUZZ_BUILD:-$TOP/build-fuzz}
SEEDS=${FUZZ_CORPUS:-$TOP/tests/fuzz/corpus}
CLANG=${CLANG:-clang}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
LLVM_CONFIG=${LLVM_CONFIG:-$(command -v llvm-config-14 || command -v llvm-config)}
LLVM_INCDIR=$($LLVM_CONFIG --includedir)
LLVM_LIBDIR=$($LLVM_CONFIG --libdir)
LLVM_VERSION=$($LLVM_CONFIG --version)

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
CFLAGS="-std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE"
CPPFLAGS="-I$TOP/include -I$TOP/checker -I$LLVM_INCDIR $(pkg-config --cflags libtracecmd)"
RES="-DCLANG_RESOURCE_INCLUDE=\"$LLVM_LIBDIR/clang/$LLVM_VERSION/include\""
LIBS="-L$LLVM_LIBDIR -Wl,-rpath,$LLVM_LIBDIR -lclang -ljansson -lsqlite3 -ldw -lelf $(pkg-config --libs libtracecmd) -lgit2 -lpthread"

die() {
	echo "fuzz: $*" >&2
	exit 2
}

for t in $TARGETS; do
	[ -f "$TOP/tests/fuzz/fuzz-$t.c" ] || die "no target '$t' ($ALL)"
done
mkdir -p "$BUILD/obj" || die "cannot create $BUILD"

# checker/output/emit.c includes the generated rule help.
make -s -C "$TOP" checker/output/rule-help.inc || die "cannot generate checker/output/rule-help.inc"

# The library, instrumented; an object is rebuilt when its source, or
# any header or table, is newer.
newest_dep=$(ls -t "$TOP"/include/trapcheck/*/*.h "$TOP"/checker/*/*.def \
	"$TOP"/checker/*/*.h "$TOP"/checker/arch/*.def "$TOP"/checker/arch/*/*.def \
	"$TOP"/checker/arch/*/*.h "$TOP"/checker/*/*.inc "$0" 2>/dev/null |
	head -n 1)
# The architectures' objects are linked whole, as the Makefile does: they
# register themselves (checker/arch/arches.c), and nothing pulls them in.
objs=
arch_objs=
for src in "$TOP"/checker/*/*.c "$TOP"/checker/arch/*.c "$TOP"/checker/arch/*/*.c; do
	name=$(basename "$src" .c)
	case $src in */checker/programs/*) continue ;; esac
	obj="$BUILD/obj/$name.o"
	case $src in
	*/checker/arch/*) arch_objs="$arch_objs $obj" ;;
	*) objs="$objs $obj" ;;
	esac
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_dep" -nt "$obj" ]; then
		echo "$src $obj"
	fi
done > "$BUILD/stale"
# Up to $JOBS compilers at once.
# (-w: the library's warnings are the Makefile's business.)
compile() {
	$CLANG $SAN -fsanitize=fuzzer-no-link $CFLAGS -w $CPPFLAGS "$RES" \
		-c -o "$2.tmp" "$1" && mv "$2.tmp" "$2"
}
n=0
while read -r src obj; do
	compile "$src" "$obj" &
	n=$((n + 1))
	[ $((n % JOBS)) -eq 0 ] && wait
done < "$BUILD/stale"
wait
for obj in $objs $arch_objs; do
	[ -f "$obj" ] || die "the library did not build ($obj)"
done
rm -f "$BUILD/libtrapcheck-fuzz.a"
ar rcs "$BUILD/libtrapcheck-fuzz.a" $objs || die "ar failed"

# The targets, linked $JOBS at a time.
link() {
	rm -f "$BUILD/fuzz-$1"
	$CLANG $SAN -fsanitize=fuzzer $CFLAGS -Wall -Wextra $CPPFLAGS \
		-o "$BUILD/fuzz-$1.tmp" "$TOP/tests/fuzz/fuzz-$1.c" \
		$arch_objs "$BUILD/libtrapcheck-fuzz.a" $LIBS &&
		mv "$BUILD/fuzz-$1.tmp" "$BUILD/fuzz-$1"
}
n=0
for t in $TARGETS; do
	link "$t" &
	n=$((n + 1))
	[ $((n % JOBS)) -eq 0 ] && wait
done
wait
for t in $TARGETS; do
	[ -x "$BUILD/fuzz-$t" ] || die "fuzz-$t did not build"
done

# One target: its regression inputs once each, then a fresh scratch
# corpus for $SECS seconds; the summary line goes to $dir/result.
run_one() {
	t=$1
	dir="$BUILD/run/$t"
	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	: > "$dir/regressions"
	for r in "$TOP/tests/fuzz/regressions/$t/"*; do
		[ -f "$r" ] || continue
		(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
		 exec "$BUILD/fuzz-$t" "$r" > "$dir/regression.log" 2>&1) &
		fpid=$!
		if ! wait $fpid; then
			echo "  regression $r fails:" >> "$dir/regressions"
			grep -m 2 -E 'fuzz-check:|ERROR: |runtime error' \
				"$dir/regression.log" | sed 's/^/    /' >> "$dir/regressions"
		fi
		rm -f /tmp/trapcheck-fuzz-$fpid-*
	done
	cp "$SEEDS/$t/"* "$dir/corpus/" 2>/dev/null
	max_len=4096
	[ "$t" = compdb ] && max_len=16384
	# Whole files: a small database (512-byte pages), trace.dat pages.
	[ "$t" = db ] || [ "$t" = tracedat ] && max_len=65536
	# exec: the subshell's pid is the fuzzer's, which names its files.
	(cd "$dir" &&
	 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	 exec "$BUILD/fuzz-$t" -max_total_time="$SECS" -max_len=$max_len \
		-timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/" corpus > log 2>&1) &
	fpid=$!
	wait $fpid
	rc=$?
	# What a crashed input left behind.
	rm -f /tmp/trapcheck-fuzz-$fpid-*
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
	cov=$(sed -n 's/^#[0-9]*[	 ]*DONE .*cov: \([0-9]*\).*/\1/p' "$dir/log" | tail -n 1)
	[ -n "$cov" ] || cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' "$dir/log" | tail -n 1)
	crashes=$(ls "$dir" | grep -c '^\(crash\|leak\|timeout\|oom\)-')
	if [ $rc -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1	# died without an artifact: see the log
	fi
	failed=$(grep -c '^  regression ' "$dir/regressions")
	crashes=$((crashes + failed))
	[ "$failed" -gt 0 ] && rc=1
	echo "fuzz $t: ${execs:-0} execs, ${cov:-0} cov, $crashes crashes" > "$dir/result"
	echo $rc > "$dir/rc"
}

running=0
for t in $TARGETS; do
	run_one "$t" &
	running=$((running + 1))
	if [ $running -ge "$JOBS" ]; then
		wait
		running=0
	fi
done
wait

status=0
for t in $TARGETS; do
	dir="$BUILD/run/$t"
	cat "$dir/result"
	cat "$dir/regressions"
	if [ "$(cat "$dir/rc")" != 0 ]; then
		status=1
		for a in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*; do
			[ -e "$a" ] && echo "  reproducer: $a (run: $BUILD/fuzz-$t $a)"
		done
		[ -s "$dir/regressions" ] && continue
		echo "  log: $dir/log"
		grep -m 4 -E 'fuzz-check:|ERROR: (Address|Leak)Sanitizer|runtime error|SUMMARY' \
			"$dir/log" | sed 's/^/  /'
	fi
done
exit $status
