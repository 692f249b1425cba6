#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The real-kernel suites' shared cold run (tests/kernel/lib.sh kcold):
# a run that ends in findings is made once and reused; one that fails or
# is interrupted (exit 2 and up) is shown to its caller, not kept as
# done, and made again by the next caller.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1

# A stand-in trapcheck: counts its runs, exits with $FAKE_RC.
cat > fake-trapcheck <<'SH'
#!/bin/sh
echo run >> "$FAKE_RUNS"
out=
while [ $# -gt 0 ]; do
	[ "$1" = -o ] && out=$2
	shift
done
[ -n "$out" ] && echo '{}' > "$out"
exit "$FAKE_RC"
SH
chmod +x fake-trapcheck
mkdir -p cache tree
export TRAPCHECK_KERNEL_CACHE="$SCRATCH/cache" FAKE_RUNS="$SCRATCH/runs"
TRAPCHECK="$SCRATCH/fake-trapcheck"
. "$TOP/tests/kernel/lib.sh"

export FAKE_RC=130
d=$(kcold "$SCRATCH/tree" 2> err1)
check_that "an interrupted run is shown to its caller (exit 130)" \
	'[ "$(cat "$d/cold.rc")" = 130 ] && grep -q "exit 130" err1 &&
	 [ ! -f "$d/complete" ]'
FAKE_RC=1
d=$(kcold "$SCRATCH/tree" 2> err2)
check_that "... and made again by the next caller" \
	'[ "$(wc -l < runs)" -eq 2 ] && [ "$(cat "$d/cold.rc")" = 1 ] &&
	 [ -f "$d/complete" ] && [ ! -e "$d.failed" ]'
d=$(kcold "$SCRATCH/tree" 2> err3)
check_that "a run that ended in findings is made once" \
	'[ "$(wc -l < runs)" -eq 2 ] && [ "$(cat "$d/cold.rc")" = 1 ]'
# konce's key of a patch (patch_key): the same edit made again from a
# fresh copy (new mtimes in diff -u's headers) keeps its key, so a
# replay's answer is reused; another edit gets another key.
mkdir -p pk && printf 'a\n' > pk/x && printf 'b\n' > pk/y
(cd pk && diff -u x y) > p1.patch
touch -d '2001-01-01' pk/x pk/y
(cd pk && diff -u x y) > p2.patch
printf 'c\n' > pk/y
(cd pk && diff -u x y) > p3.patch
check_that "patch_key: the same edit with other dates has one key, another edit another" \
	'! cmp -s p1.patch p2.patch &&
	 [ "$(patch_key p1.patch)" = "$(patch_key p2.patch)" ] &&
	 [ "$(patch_key p1.patch)" != "$(patch_key p3.patch)" ]'
done_testing
