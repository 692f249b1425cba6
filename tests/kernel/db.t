#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The facts database on real Linux 6.12 (arm64 defconfig subset): cold
# (the tree's shared cold run, tests/kernel/lib.sh), warm, the database
# following a copy of its tree, one .c edited, archrandom.h edited; -j1
# without a database against the cold run (make check-full); and kbuild's
# own make C=2 CHECK="trapcheck check ..." followed by trapcheck report.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$(ktree 6.12)
copy=$(kvariant "$tree" plain)
rm -f k.db k.db-wal k.db-shm
parsed() { sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' "$1"; }
fps() {
	python3 -c "import json,sys; print('\n'.join(sorted(f['fingerprint'] for f in json.load(open(sys.argv[1]))['findings'])))" "$1"
}
# tus DB: the TUs a database holds, one a line.
tus() {
	python3 -c "import sqlite3,sys; print('\\n'.join(r[0] for r in sqlite3.connect(sys.argv[1]).execute('SELECT path FROM tu')))" "$1"
}
timed() {
	start=$(date +%s)
	"$@"
	echo "# $(( $(date +%s) - start )) s: $*" | cut -c1-160
}

# The copy's files may have been edited by an earlier run of this test.
for f in drivers/char/random.c arch/arm64/include/asm/archrandom.h; do
	cp --remove-destination "$tree/$f" "$copy/$f"
done

cold=$(kcold "$tree")
cp "$cold/cold.json" cold.json
cp "$cold/cold.err" cold.err
n=$(python3 -c "import json; print(json.load(open('cold.json'))['summary']['tus_analysed'])")
p=$(python3 -c "import json; print(json.load(open('cold.json'))['summary']['tus_parsed'])")
echo "# cold run (shared): $(cat "$cold/cold.seconds") s when made, $p TUs parsed"
check_that "cold run fills the database: every analysed TU parsed ($n)" \
	'[ "$n" -ge 240 ] && [ "$p" = "$n" ]'
# The database of the tree, used for a hard-linked copy of it elsewhere:
# keys leave the tree's path out.
kdb "$tree" k.db
timed "$TRAPCHECK" -p "$copy" --db k.db --format=json -o warm.json 2> warm.err
check "warm run on a copy of the tree: 0 TUs parsed" \
	grep -q '^trapcheck: 0 TUs parsed, ' warm.err
fps cold.json > cold.fp
fps warm.json > warm.fp
check "warm: identical findings" cmp -s cold.fp warm.fp

# Sharded (--shard K/3, one database each) and joined (trapcheck report
# --db x3): the single run's findings, field for field. make check: each
# shard starts from a copy of the shared database (its share is kept,
# the other TUs pruned: nothing parsed); make check-full: from empty
# databases, every TU parsed by its shard.
shard_join() {
	_n=0
	for k in 1 2 3; do
		rm -f "sh$k.db" "sh$k.db-wal" "sh$k.db-shm"
		[ "$1" = seeded ] && kdb "$tree" "sh$k.db"
		_t=$(date +%s)
		"$TRAPCHECK" -p "$tree" --shard "$k/3" --db "sh$k.db" \
			2> "sh$k.err" || return 1
		sed "s/^/# ($(( $(date +%s) - _t )) s) /" "sh$k.err"
		_n=$(( _n + $(tus "sh$k.db" | wc -l) ))
	done
	"$TRAPCHECK" report --db sh1.db --db sh2.db --db sh3.db -q \
		--format=json -o "$2"
	[ $? -eq 1 ] && [ "$_n" -eq "$n" ]
}
same_findings() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print('# %d findings joined, %d in the single run' %
      (len(a['findings']), len(b['findings'])))
assert a['findings'] and a['findings'] == b['findings']
PY
}
# The seeded shards' join depends on the binary and the tree only: kept
# beside the shared cold run (konce), made once.
konce "$tree" shards-seeded-3 joined.json shard_join seeded joined.json
check "3 shards (from the shared database): exit 0 each, $n TUs between them" [ "$rc" -eq 0 ]
check "... joined: the single run's findings, field for field" \
	same_findings joined.json cold.json
if [ "$KPROFILE" = full ]; then
	shard_join cold joinedcold.json
	check "3 shards from empty databases: exit 0 each, $n TUs between them" [ $? -eq 0 ]
	check "... joined: the single run's findings, field for field" \
		same_findings joinedcold.json cold.json
fi

# One .c edited (a new file: the copy is hard-linked to the cache).
f=drivers/char/random.c
{ cat "$tree/$f"; echo '/* edited */'; } > "$copy/$f.new" && mv "$copy/$f.new" "$copy/$f"
timed "$TRAPCHECK" -p "$copy" --db k.db --format=json -o one.json 2> one.err
check "one .c edited: exactly 1 TU parsed" [ "$(parsed one.err)" = 1 ]
fps one.json > one.fp
check "... identical findings" cmp -s cold.fp one.fp

f=arch/arm64/include/asm/archrandom.h
n=$(python3 -c "
import sqlite3; c = sqlite3.connect('k.db')
print(c.execute(\"SELECT count(DISTINCT tu) FROM include WHERE file = '$f'\").fetchone()[0])")
{ cat "$tree/$f"; echo '/* edited */'; } > "$copy/$f.new" && mv "$copy/$f.new" "$copy/$f"
timed "$TRAPCHECK" -p "$copy" --db k.db --format=json -o hdr.json 2> hdr.err
check "archrandom.h edited: exactly the $n TUs that include it" \
	[ "$(parsed hdr.err)" = "$n" ]
fps hdr.json > hdr.fp
check "... identical findings" cmp -s cold.fp hdr.fp

if [ "$KPROFILE" = full ]; then
	timed "$TRAPCHECK" -p "$copy" -j1 --format=json -o j1.json 2> /dev/null
	fps j1.json > j1.fp
	check "-j1 (no database) and -j$(nproc) (database): identical findings" \
		cmp -s cold.fp j1.fp
fi

# kbuild: make C=2 runs $(CHECK) on each object's source.
objs="drivers/char/random.o mm/memory.o arch/arm64/kernel/cpufeature.o
      arch/arm64/kernel/cpu_errata.o arch/arm64/kernel/vdso/"
kc2 c2.out "$SCRATCH/c2.db" -C "$tree" $objs
check "make C=2 CHECK=\"trapcheck check --db=...\" succeeds" [ $c2_rc -eq 0 ]
tail -n 3 c2.out | sed 's/^/# /'
# kbuild passes sparse's CHECKFLAGS first (--arch=arm64 -m64 ...), and the
# vDSO's c_flags have -include lib/vdso/*.c before the file.
check_that "... no flag warning ($c2_nw) and no parse error ($c2_ne), the vDSO included" \
	'[ "$c2_nw" -eq 0 ] && [ "$c2_ne" -eq 0 ] &&
	 tus c2.db | grep -q "^arch/arm64/kernel/vdso/vgetrandom.c$"'
"$TRAPCHECK" report --db c2.db --format=json -o c2.json 2> c2.err
python3 - c2.json cold.json <<'PY'
import json, sys
def rng(path):
    return [(f['file'], f['line'], f['rule'], f['root'], f['register'],
             [s['function'] for s in f['chain']])
            for f in json.load(open(path))['findings']
            if f['function'] == '__cpu_has_rng' and f['root'] == 'crng']
a, b = rng(sys.argv[1]), rng(sys.argv[2])
print('# C=2:', a)
assert a and a == b, (a, b)
PY
check "trapcheck report after make C=2: the __cpu_has_rng finding of the compile-database mode" [ $? -eq 0 ]

# check-full: kbuild over whole directories, against a compile-database
# run over the same TUs (the tree's database restricted to them, from a
# copy of its shared database: the other TUs pruned, the header functions
# they owned adopted).
if [ "$KPROFILE" = full ]; then
	dirs="arch/arm64/ mm/ kernel/ drivers/char/"
	kc2 c2all.out "$SCRATCH/c2all.db" -C "$tree" -j"$(nproc)" $dirs
	check "make C=2 over $dirs succeeds" [ $c2_rc -eq 0 ]
	check_that "... no flag warning ($c2_nw) and no parse error ($c2_ne) for any TU" \
		'[ "$c2_nw" -eq 0 ] && [ "$c2_ne" -eq 0 ]'
	mkdir -p same
	ksame "$tree" c2all.db > same/compile_commands.json
	check "every TU checked is in the compile database" [ $? -eq 0 ]
	kdb "$tree" same.db
	timed "$TRAPCHECK" -p same --db same.db -q --format=json -o same.json
	"$TRAPCHECK" report --db c2all.db -q --format=json -o c2all.json
	check "trapcheck report after C=2 over $dirs: the compile-database run's findings" \
		same_sites c2all.json same.json
fi

done_testing
