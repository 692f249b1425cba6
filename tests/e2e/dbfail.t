#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The facts database is never silently wrong (docs/reliability.md, "The
# facts database under failure"): a write that fails at any point ends
# the run with exit 3 and one line, and the next run gives a clean run's
# findings; kill -9 at any moment, then a rerun, gives them too; damage
# is refused with exit 2 and leaves the file as it was; a database this
# process may not write is read, what changed analysed in memory; a
# refused run and a report never write to it.
#
# TRAPCHECK_DBFAIL_STEP=K tries every K-th write and kill point (1 in
# make check; the ASan suite takes a sparser set).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
STEP=${TRAPCHECK_DBFAIL_STEP:-1}
SHIM="$TOP/tests/fault/failwrite.so"
cd "$SCRATCH" || exit 1
cp -a "$FX" tree

# keys JSON: what two runs must agree on (tests/golden.py keys).
keys() {
	"$TOP/tests/golden.py" keys "$1" 2> /dev/null
}
# sanitizer FILE: a sanitizer's report in FILE (the ASan suite).
sanitizer() {
	grep -q 'Sanitizer\|runtime error:' "$1"
}

"$TRAPCHECK" -p tree -q $ROOTS --format=json -o clean.json
keys clean.json > clean.keys
check "the clean run's findings (no database)" test -s clean.keys

# Writes that fail. The shim counts the writes to the database's files
# (tests/fault/failwrite.c); a run with none failing says how many.
check "the write-failure shim is built (make tests/fault/failwrite.so)" \
	test -f "$SHIM"
LD_PRELOAD="$SHIM" TRAPCHECK_FAILWRITE_PATH="$SCRATCH/w.db" \
TRAPCHECK_FAILWRITE=0 TRAPCHECK_FAILWRITE_COUNT="$SCRATCH/count" \
	"$TRAPCHECK" -p tree -q $ROOTS --db w.db --format=json -o w.json
n=$(cat count 2> /dev/null || echo 0)
check_that "a cold run with a database writes it (the shim counted $n writes)" \
	'[ "$n" -gt 50 ] && keys w.json | cmp -s - clean.keys'
# fail_at N MODE: the N-th write fails; then a rerun without failures.
# Each write once, with EIO (a transient error) and ENOSPC from then on
# (a full disk) in turn.
bad=0 tried=0
i=1
while [ "$i" -le "$n" ]; do
	case $((tried % 2)) in
	0) mode=EIO ;;
	1) mode=ENOSPC:sticky ;;
	esac
	rm -f w.db w.db-wal w.db-shm w.json
	LD_PRELOAD="$SHIM" TRAPCHECK_FAILWRITE_PATH="$SCRATCH/w.db" \
	TRAPCHECK_FAILWRITE=$i:$mode TRAPCHECK_FAILWRITE_COUNT="$SCRATCH/wc" \
		"$TRAPCHECK" -p tree -q $ROOTS --db w.db --format=json \
		-o w.json 2> w.err
	rc=$?
	# How many writes a run makes varies by a few (WAL frames): a run
	# that ended before its i-th write had none injected.
	if [ $rc -ne 3 ] && [ "$(cat wc 2> /dev/null || echo 0)" -lt $i ]; then
		i=$((i + STEP))
		continue
	fi
	"$TRAPCHECK" -p tree -q $ROOTS --db w.db --format=json -o re.json \
		2> re.err
	rc2=$?
	tried=$((tried + 1))
	if [ $rc -ne 3 ] || [ "$(wc -l < w.err)" -ne 1 ] ||
	   ! grep -q "^trapcheck: error: w.db: cannot \\(write\\|set up\\|lock\\) the database: \\(disk I/O error\\|database or disk is full\\)" w.err ||
	   [ -e w.json ] || [ $rc2 -ne 1 ] || sanitizer w.err ||
	   ! keys re.json | cmp -s - clean.keys; then
		bad=$((bad + 1))
		[ $bad -le 3 ] && echo "# write $i ($mode): exit $rc then $rc2: $(head -c 200 w.err)"
	fi
	i=$((i + STEP))
done
check_that "every write failing ($tried of $n: EIO once, or ENOSPC from then on): exit 3, one line, no output; the rerun's findings are a clean run's" \
	'[ $tried -gt 0 ] && [ $bad -eq 0 ]'

# The join of shards into one database (report --db-out) with each of
# its writes failing: exit 3, one line naming the file, no report, and
# the database it would replace as it was, nothing beside it.
for k in 1 2; do
	"$TRAPCHECK" -p tree -q $ROOTS --shard $k/2 --db "sh$k.db"
done
"$TRAPCHECK" report -q $ROOTS --db sh1.db --db sh2.db --db-out j.db \
	-o /dev/null
cp j.db j.keep
LD_PRELOAD="$SHIM" TRAPCHECK_FAILWRITE_PATH="$SCRATCH/j.db" \
TRAPCHECK_FAILWRITE=0 TRAPCHECK_FAILWRITE_COUNT="$SCRATCH/jc" \
	"$TRAPCHECK" report -q $ROOTS --db sh1.db --db sh2.db --db-out j.db \
	-o /dev/null
n=$(cat jc 2> /dev/null || echo 0)
bad=0 tried=0 i=1
while [ "$i" -le "$n" ]; do
	case $((tried % 2)) in
	0) mode=EIO ;;
	1) mode=ENOSPC:sticky ;;
	esac
	cp j.keep j.db
	rm -f j.json
	LD_PRELOAD="$SHIM" TRAPCHECK_FAILWRITE_PATH="$SCRATCH/j.db" \
	TRAPCHECK_FAILWRITE=$i:$mode TRAPCHECK_FAILWRITE_COUNT="$SCRATCH/jc" \
		"$TRAPCHECK" report -q $ROOTS --db sh1.db --db sh2.db \
		--db-out j.db --format=json -o j.json 2> j.err
	rc=$?
	tried=$((tried + 1))
	if [ $rc -ne 3 ] || [ "$(wc -l < j.err)" -ne 1 ] ||
	   ! grep -q "^trapcheck: error: .*j.db: cannot \(write\|set up\|lock\) the database: " j.err ||
	   [ -e j.json ] || ! cmp -s j.db j.keep || sanitizer j.err ||
	   [ -n "$(ls j.db.tmp* 2> /dev/null)" ]; then
		bad=$((bad + 1))
		[ $bad -le 3 ] && echo "# join, write $i ($mode): exit $rc: $(head -c 200 j.err)"
	fi
	i=$((i + STEP))
done
check_that "report --db-out with every write failing ($tried of $n): exit 3, one line, no report, the old joined database kept, no file left beside it" \
	'[ "$n" -gt 10 ] && [ $tried -gt 0 ] && [ $bad -eq 0 ]'

# A real full disk: a small tmpfs (mount works as root here); where a
# mount is not allowed, the shim's ENOSPC from the first write stands in.
mkdir small
for size in 64k 160k 200k; do
	if mount -t tmpfs -o size=$size tmpfs small 2> /dev/null; then
		how="a $size tmpfs"
		"$TRAPCHECK" -p tree -q $ROOTS --db small/f.db --format=json \
			-o f.json 2> f.err
		rc=$?
		cp small/f.db* . 2> /dev/null
		umount small
	else
		how="ENOSPC from the first write (no tmpfs mount here)"
		rm -f f.db*
		LD_PRELOAD="$SHIM" TRAPCHECK_FAILWRITE_PATH="$SCRATCH/f.db" \
		TRAPCHECK_FAILWRITE=1:ENOSPC:sticky \
			"$TRAPCHECK" -p tree -q $ROOTS --db f.db --format=json \
			-o f.json 2> f.err
		rc=$?
	fi
	"$TRAPCHECK" -p tree -q $ROOTS --db f.db --format=json -o f2.json \
		2> /dev/null
	rc2=$?
	check_that "a full disk under --db ($how): exit 3, one line, no crash; the database copied out gives a clean run's findings" \
		'[ $rc -eq 3 ] && [ "$(wc -l < f.err)" -eq 1 ] &&
		 grep -q "^trapcheck: error: .*f.db: cannot \(write\|set up\) the database: database or disk is full$" f.err &&
		 [ ! -e f.json ] && [ $rc2 -eq 1 ] && keys f2.json | cmp -s - clean.keys'
	rm -f f.db*
done

# kill -9 at increasing delays: during a cold run (empty database), and
# during runs that re-parse what an edit changed. Only kills that found
# the run still going count. The delay grows by a tenth of a
# millisecond a try: the fixture's runs take 30 to 100 ms on an idle
# machine, and steps of a third of a millisecond per run kind ran out
# of kill points there (the loop then slept its way to d = 3000).
kills=0 bad=0 d=0 want=$((220 / STEP))
while [ $kills -lt $want ] && [ $d -lt 3000 ]; do
	case $((d % 3)) in
	0) rm -f k.db k.db-wal k.db-shm ;;
	1) touch tree/mm/memory.c ;;
	2) echo "/* $d */" >> tree/include/linux/mm.h ;;
	esac
	"$TRAPCHECK" -p tree -q $ROOTS --db k.db --format=json -o k.json \
		2> /dev/null &
	pid=$!
	sleep "$(awk "BEGIN { printf \"%.4f\", $d * $STEP / 10000 }")"
	# (the shell's "Killed" line goes with the group's stderr)
	{ kill -9 $pid; wait $pid; } 2> /dev/null
	[ $? -eq 137 ] && kills=$((kills + 1))
	"$TRAPCHECK" -p tree -q $ROOTS --db k.db --format=json -o r.json \
		2> r.err
	rc=$?
	if [ $rc -ne 1 ] || ! keys r.json | cmp -s - clean.keys ||
	   sanitizer r.err; then
		bad=$((bad + 1))
		[ $bad -le 3 ] && echo "# kill after $d/10 ms: the rerun exit $rc: $(head -c 200 r.err)"
	fi
	d=$((d + 1))
done
cp "$FX/include/linux/mm.h" tree/include/linux/mm.h
check_that "kill -9 at $kills points of cold and incremental runs: each rerun gives the clean run's findings" \
	'[ $kills -ge $((200 / STEP)) ] && [ $bad -eq 0 ]'

# Damage: every pair of pages of a clean database zeroed in turn.
rm -f d.db*
"$TRAPCHECK" -p tree -q $ROOTS --db d.db -o /dev/null
pages=$(($(stat -c %s d.db) / 4096))
bad=0 refused=0 same=0 p=1
while [ $p -lt $pages ]; do
	cp d.db z.db
	# No output of the place before: a refused run must write none.
	rm -f z.db-wal z.db-shm z.json
	dd if=/dev/zero of=z.db bs=4096 seek=$p count=2 conv=notrunc \
		2> /dev/null
	before=$(md5sum < z.db)
	"$TRAPCHECK" -p tree -q $ROOTS --db z.db --format=json -o z.json \
		2> z.err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < z.err)" -eq 1 ] &&
	   grep -q "^trapcheck: error: z.db: \(a damaged database\|not a trapcheck database\)" z.err &&
	   [ "$(md5sum < z.db)" = "$before" ] && [ ! -e z.json ]; then
		refused=$((refused + 1))
	elif [ $rc -eq 1 ] && keys z.json | cmp -s - clean.keys; then
		same=$((same + 1))	# free pages: nothing lost
	else
		bad=$((bad + 1))
		echo "# pages $p-$((p + 1)): exit $rc: $(head -c 200 z.err)"
	fi
	p=$((p + 1))
done
check_that "two zeroed pages, at each of $((pages - 1)) places: refused with exit 2 and the file unchanged ($refused), or a clean run's findings ($same)" \
	'[ $bad -eq 0 ] && [ $refused -gt 0 ]'
# A run that did not end (marked in the database until it does).
python3 - d.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT OR REPLACE INTO meta VALUES ('run', 'running')")
c.commit()
c.close()
PY
rm -f d.db-wal d.db-shm
cp d.db u.db
"$TRAPCHECK" report --db u.db $ROOTS -o rep.json 2> rep.err
rc=$?
check_that "report on a database whose last run did not end: exit 2, one line saying so" \
	'[ $rc -eq 2 ] && [ "$(wc -l < rep.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: u.db: its last run did not end (killed, failed or still running)" rep.err &&
	 [ ! -e rep.json ]'
cp d.db v.db
dd if=/dev/zero of=v.db bs=4096 seek=3 count=2 conv=notrunc 2> /dev/null
before=$(md5sum < v.db)
"$TRAPCHECK" -p tree -q $ROOTS --db v.db -o v.txt 2> v.err
rc=$?
check_that "... with damage: PRAGMA quick_check on open refuses it (exit 2), the file unchanged" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: v.db: a damaged database (" v.err &&
	 [ "$(md5sum < v.db)" = "$before" ]'
"$TRAPCHECK" -p tree -q $ROOTS --db u.db --format=json -o u.json 2> u.err
rc=$?
check_that "... without: a run finishes it (exit 1, a clean run's findings)" \
	'[ $rc -eq 1 ] && keys u.json | cmp -s - clean.keys'
"$TRAPCHECK" report -q --db u.db $ROOTS --format=json -o rep.json
rc=$?
check_that "... and report reads it then (exit 1, a clean run's findings)" \
	'[ $rc -eq 1 ] && keys rep.json | cmp -s - clean.keys'

# A database this process may not write (root without DAC override, as
# badinput.t reads unreadable files): read, what changed in memory.
rm -f ro.db*
"$TRAPCHECK" -p tree -q $ROOTS --db ro.db -o /dev/null
chmod 444 ro.db
cp -a tree tree2
sed -i 's/^	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/&\n	mmfr1 |= read_cpuid(ID_AA64MMFR1_EL1);/' \
	tree2/arch/arm64/include/asm/cpufeature.h
"$TRAPCHECK" -p tree2 -q $ROOTS --format=json -o nodb2.json
before=$(md5sum < ro.db)
setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-all \
	"$TRAPCHECK" -p tree2 $ROOTS --db ro.db --format=json -o ro.json \
	2> ro.err
rc=$?
check_that "a read-only database after the tree changed: exit 1, a note, the findings of the changed tree (not the stale ones), the file unchanged" \
	'[ $rc -eq 1 ] &&
	 grep -q "^ro.db: note: cannot write the database (Permission denied): what changed is analysed in memory, not stored$" ro.err &&
	 keys ro.json | cmp -s - "$(keys nodb2.json > nodb2.keys; echo nodb2.keys)" &&
	 ! cmp -s nodb2.keys clean.keys &&
	 [ "$(md5sum < ro.db)" = "$before" ]'
setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-all \
	"$TRAPCHECK" report -q --db ro.db $ROOTS --format=json -o rep-ro.json
rc=$?
check_that "report on a read-only database: read (exit 1), the file unchanged" \
	'[ $rc -eq 1 ] && [ "$(md5sum < ro.db)" = "$before" ]'

# Refused runs write nothing.
rm -f a.db*
"$TRAPCHECK" -p tree -q $ROOTS --db a.db -o /dev/null
before=$(md5sum < a.db)
"$TRAPCHECK" -p "$TOP/tests/fixtures/x86" -q --db a.db -o x.txt 2> x.err
rc=$?
check_that "an x86 tree on an arm64 database: exit 2, one line, the database byte for byte (meta.root too)" \
	'[ $rc -eq 2 ] && [ "$(wc -l < x.err)" -eq 1 ] &&
	 grep -q "one architecture per database" x.err &&
	 [ "$(md5sum < a.db)" = "$before" ] && [ ! -e x.txt ]'
: > empty.db
"$TRAPCHECK" report --db empty.db $ROOTS -o e.txt 2> e.err
rc=$?
check_that "report --db on a 0-byte file: exit 2, one line, still 0 bytes" \
	'[ $rc -eq 2 ] && [ "$(wc -l < e.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: empty.db: not a trapcheck database (an empty file)$" e.err &&
	 [ ! -s empty.db ] && [ ! -e e.txt ]'
mkfifo fifo.db
timeout 20 "$TRAPCHECK" -p tree -q $ROOTS --db fifo.db -o f.txt 2> f.err
rc=$?
check_that "a FIFO as --db: exit 2 at once, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < f.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: fifo.db: not a trapcheck database: a FIFO, not a regular file$" f.err'
timeout 20 "$TRAPCHECK" report --db fifo.db $ROOTS -o f.txt 2> f.err
rc=$?
check_that "... and given to report" \
	'[ $rc -eq 2 ] && grep -q "a FIFO, not a regular file" f.err'

# A clean database on a disk that is full when the run opens it (its
# write-ahead log's shared memory cannot be made; before: "not a trapcheck
# database (not SQLite, or damaged)", exit 2). Needs a tmpfs mount; where
# none can be made, the shim cannot stand in (SQLite maps the file).
if mount -t tmpfs -o size=4m tmpfs small 2> /dev/null; then
	"$TRAPCHECK" -p tree -q $ROOTS --db small/o.db -o /dev/null
	free=$(df -k small | awk 'NR == 2 { print $4 }')
	dd if=/dev/zero of=small/fill bs=1k count="$free" 2> /dev/null
	"$TRAPCHECK" -p tree -q $ROOTS --db small/o.db --format=json \
		-o o.json 2> o.err
	rc=$?
	rm small/fill
	"$TRAPCHECK" -p tree -q $ROOTS --db small/o.db --format=json \
		-o o2.json 2> /dev/null
	rc2=$?
	umount small
	check_that "a full disk when a clean database is opened: exit 3, one line naming it; with space again, a clean run's findings" \
		'[ $rc -eq 3 ] && [ "$(wc -l < o.err)" -eq 1 ] &&
		 grep -q "^trapcheck: error: small/o.db: cannot open the database: disk I/O error (No space left on device)$" o.err &&
		 [ ! -e o.json ] && [ $rc2 -eq 1 ] && keys o2.json | cmp -s - clean.keys'
else
	echo "# no tmpfs mount here (not root): the full disk at open is not tried"
fi

# A --db path longer than SQLite takes (512 bytes made absolute; before:
# "cannot open the database: unable to open database file", no reason).
long=$(printf 'd%.0s' $(seq 1 200))
mkdir -p "$long/$long/$long"
"$TRAPCHECK" -p tree -q $ROOTS --db "$long/$long/$long/x.db" -o l.txt \
	2> l.err
rc=$?
check_that "a --db path over SQLite's limit: exit 2, one line saying so, no file" \
	'[ $rc -eq 2 ] && [ "$(wc -l < l.err)" -eq 1 ] &&
	 grep -q "made absolute; SQLite takes at most 512: name a shorter --db$" l.err &&
	 [ ! -e "$long/$long/$long/x.db" ] && [ ! -e l.txt ]'
rm -rf "$long"

# Values SQLite cannot find wrong (the fuzzer's damaged databases,
# tests/fuzz/regressions/db/): refused with exit 2, never a crash.
bad=0
for r in "$TOP"/tests/fuzz/regressions/db/*.db; do
	cp "$r" reg.db
	"$TRAPCHECK" report -q --db reg.db $ROOTS -o reg.txt 2> reg.err
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l < reg.err)" -ne 1 ] ||
	   ! grep -q "^trapcheck: error: reg.db: a damaged database (a value missing or out of range in its [a-z_]* table)" reg.err; then
		bad=$((bad + 1))
		echo "# $(basename "$r"): exit $rc: $(head -c 200 reg.err)"
	fi
done
check_that "a valid SQLite file with a missing key, a function index out of range, a site without a file: exit 2, one line" \
	'[ $bad -eq 0 ]'

done_testing
