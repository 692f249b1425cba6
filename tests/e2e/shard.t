#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sharded runs (--shard K/N into one database each) joined by
# trapcheck report --db A --db B ...: the joined findings are the single
# run's, the shares are disjoint, cover the compile database and depend
# on a file's path alone; overlapping databases are said; databases of
# configurations (--db NAME=FILE) give each finding the configurations
# that have it; bad --shard and --db combinations are one-line usage
# errors.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
cd "$SCRATCH" || exit 1

cp -a "$FX" tree
sum_before=$(find tree -type f | sort | xargs cat | md5sum)
"$TRAPCHECK" -p tree $ROOTS -q --format=json -o one.json
check "the single run finds something (the comparison is not of nothing)" \
	sh -c "[ \$(python3 -c \"import json; print(len(json.load(open('one.json'))['findings']))\") -gt 5 ]"

for k in 1 2 3; do
	"$TRAPCHECK" -p tree $ROOTS --shard "$k/3" --db "s$k.db" \
		> "s$k.out" 2> "s$k.err"
	echo $? > "s$k.rc"
done
check_that "each shard: exit 0 and no findings printed, though the tree has some" \
	'[ "$(cat s1.rc s2.rc s3.rc)" = "0
0
0" ] && [ ! -s s1.out ] && [ ! -s s2.out ] && [ ! -s s3.out ]'
check "... one line saying the share and how to join" \
	grep -Eq '^trapcheck: shard 2/3: [0-9]+ of 10 compile-database entries \([0-9]+ TUs analysed, [0-9]+ skipped\), facts in s2.db; trapcheck report --db A --db B \.\.\. joins the shards$' s2.err
tus() {
	python3 -c "import sqlite3,sys; print('\\n'.join(sorted(r[0] for r in sqlite3.connect(sys.argv[1]).execute('SELECT path FROM tu'))))" "$1"
}
tus s1.db > t1; tus s2.db > t2; tus s3.db > t3
"$TRAPCHECK" -p tree $ROOTS --db all.db -q -o /dev/null
tus all.db > tall
check_that "the shares are disjoint, none empty, and together every TU" \
	'[ -s t1 ] && [ -s t2 ] && [ -s t3 ] &&
	 [ -z "$(sort t1 t2 t3 | uniq -d)" ] &&
	 sort t1 t2 t3 | cmp -s - tall'

"$TRAPCHECK" report --db s1.db --db s2.db --db s3.db $ROOTS --format=json \
	-o joined.json 2> joined.err
check "report --db x3: exit 1 (findings)" [ $? -eq 1 ]
python3 - joined.json one.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a['findings'] == b['findings'], 'findings differ'
for k in ('functions', 'edges', 'sink_sites', 'tus_analysed'):
    if k in b['summary']:
        assert a['summary'][k] == b['summary'][k], (k, a['summary'][k],
                                                    b['summary'][k])
PY
check "joined: the single run's findings, field for field, and its graph" [ $? -eq 0 ]
"$TRAPCHECK" report --db s3.db --db s1.db --db s2.db $ROOTS --format=json \
	-o joined2.json 2> /dev/null
check "... in any order of the databases" \
	same_sites joined2.json one.json
"$TRAPCHECK" report --db s1.db --db s2.db $ROOTS -q --format=json \
	-o part.json
check "two shards of three are not the whole: a finding is missing" \
	sh -c "! \"$TOP/tests/golden.py\" keys part.json | cmp -s - \
		\"\$(\"$TOP/tests/golden.py\" keys one.json > k1; echo k1)\""

"$TRAPCHECK" report --db s1.db --db all.db $ROOTS --format=json \
	-o dup.json 2> dup.err
n1=$(wc -l < t1)
check "overlapping databases: a warning with the count, the first's facts" \
	grep -q "^trapcheck: warning: $n1 TUs are in more than one database: the facts of the first that holds each were used$" dup.err
check "... and the findings of the whole" same_sites dup.json one.json

# Configurations: databases named NAME=FILE. The "cloud" copy of the tree
# lacks the per-fault AMU check, has a read of its own, and reaches
# __cpu_has_rng() first from page-fault (defconfig: from crng); its
# database is made of two shards.
cp -a "$FX" cloud
python3 - cloud/arch/arm64/mm/fault.c cloud/drivers/char/random.c <<'PY'
import sys
fault, rnd = sys.argv[1:]
s = open(fault).read()
old = '\treturn this_cpu_has_cap(ARM64_HAS_AMU_EXTN);'
assert s.count(old) == 1
s = s.replace(old, '\treturn __cpu_has_rng();')
old = '#include <asm/cpufeature.h>\n'
assert s.count(old) == 1
s = s.replace(old, old + '#include <asm/archrandom.h>\n')
open(fault, 'w').write(s)
s = open(rnd).read()
old = 'static void _extract_crng('
assert s.count(old) == 1
s = s.replace(old, '''#ifdef CONFIG_CLOUD_PFR0
static unsigned long cloud_pfr0(void)
{
	return read_cpuid(ID_AA64PFR0_EL1);
}
#endif

static void _extract_crng(''')
old = '\tif (arch_get_random_long(&v))\n'
assert s.count(old) == 1, 'random.c changed'
s = s.replace(old, '#ifdef CONFIG_CLOUD_PFR0\n\tv ^= cloud_pfr0();\n#endif\n' +
              old)
open(rnd, 'w').write(s)
PY
edited=$?
# The cloud read is behind a symbol only the cloud .config sets.
sed -i 's/^#define CONFIG_ARM64 1$/&\n#define CONFIG_CLOUD_PFR0 1/' \
	cloud/include/linux/kconfig.h
printf 'CONFIG_ARM64=y\nCONFIG_CLOUD_PFR0=y\n' > cloud/.config
cp -a "$FX" deftree
printf 'CONFIG_ARM64=y\n# CONFIG_CLOUD_PFR0 is not set\n' > deftree/.config
check "the cloud copy is edited (its read behind CONFIG_CLOUD_PFR0)" \
	sh -c "[ $edited -eq 0 ] && grep -q '^#define CONFIG_CLOUD_PFR0 1$' cloud/include/linux/kconfig.h"

"$TRAPCHECK" -p deftree $ROOTS --db def.db -q -o /dev/null
"$TRAPCHECK" -p cloud $ROOTS --shard 1/2 --db c1.db -q
"$TRAPCHECK" -p cloud $ROOTS --shard 2/2 --db c2.db -q
"$TRAPCHECK" report --db defconfig=def.db --db cloud=c1.db --db cloud=c2.db \
	$ROOTS > cfg.txt 2> cfg.err
check "configurations: exit 1" [ $? -eq 1 ]
check "text: a site only the first configuration has says so" \
	grep -q "^arch/arm64/mm/fault.c:88:[0-9]*: warning: this_cpu_has_cap(ARM64_HAS_AMU_EXTN) reads .* (defconfig only) \[local-cap-check\]$" cfg.txt
check "... and one only the second has (its shards joined), with the symbol behind it" \
	grep -q "^drivers/char/random.c:[0-9]*:[0-9]*: warning: read_cpuid(ID_AA64PFR0_EL1) reads .* (cloud only: CONFIG_CLOUD_PFR0) \[trapping-idreg-read\]$" cfg.txt
check_that "... a site both have, first reached from different root sets: one warning, not marked" \
	'grep "^arch/arm64/include/asm/archrandom.h:[0-9]*:[0-9]*: warning: this_cpu_has_cap(ARM64_HAS_RNG) reads " cfg.txt > both.txt &&
	 [ "$(wc -l < both.txt)" -eq 1 ] && ! grep -q " only) \[" both.txt'
"$TRAPCHECK" report --db defconfig=def.db --db cloud=c1.db --db cloud=c2.db \
	$ROOTS -q --format=json -o cfg.json
"$TRAPCHECK" report --db defconfig=def.db --db cloud=c1.db --db cloud=c2.db \
	$ROOTS -q --format=sarif -o cfg.sarif
"$TRAPCHECK" -p cloud $ROOTS -q --format=json -o cloudone.json
python3 - cfg.json cfg.sarif one.json cloudone.json <<'PY'
import json, sys
cfg, sarif, one, cloud = (json.load(open(p)) for p in sys.argv[1:])
# One finding per site (its shortest chain's root set may differ).
key = lambda f: (f['rule'], f['file'], f['line'], f['column'])
got = {key(f): f['configs'] for f in cfg['findings']}
d = {key(f) for f in one['findings']}
c = {key(f) for f in cloud['findings']}
want = {k: [n for n, s in (('defconfig', d), ('cloud', c)) if k in s]
        for k in d | c}
assert got == want, [(k, got.get(k), want.get(k)) for k in
                     sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
assert any(v == ['defconfig'] for v in want.values())
assert any(v == ['cloud'] for v in want.values())
rng = [f['root'] for f in one['findings'] + cloud['findings']
       if f['function'] == '__cpu_has_rng' and f['rule'] == 'local-cap-check']
assert sorted(rng) == ['crng', 'page-fault'], rng
props = [r['properties']['configs'] for r in sarif['runs'][0]['results']]
assert sorted(map(tuple, props)) == sorted(tuple(v) for v in got.values())
# The symbol whose .config values differ, on the cloud-only chain; none
# for a site that differs in source, not configuration.
# (The edits move lines: other sites differ by line, not by symbol.)
syms = {key(f): f.get('config_symbols') for f in cfg['findings']
        if len(f['configs']) == 1}
read = [k for k in syms if k[0] == 'trapping-idreg-read' and
        k[1] == 'drivers/char/random.c']
assert len(read) == 1 and syms[read[0]] == ['CONFIG_CLOUD_PFR0'], syms
assert all(v is None for k, v in syms.items() if k != read[0]), syms
props = [r['properties'].get('config_symbols')
         for r in sarif['runs'][0]['results']]
assert props.count(['CONFIG_CLOUD_PFR0']) == 1, props
PY
check "JSON and SARIF: each finding's configs are those whose single run has it, and the CONFIG_ symbols behind a difference" [ $? -eq 0 ]
"$TRAPCHECK" report --db defconfig=def.db --db c1.db $ROOTS > /dev/null 2> mix.err
rc=$?
check_that "named and unnamed databases mixed: exit 2, one line" \
	'[ $rc -eq 2 ] && grep -qx "trapcheck: error: --db c1.db: name every database (NAME=FILE: a configuration) or none" mix.err'

# A file's shard depends on its path alone: drop an entry, the rest stay.
python3 - tree/compile_commands.json > fewer.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps([e for e in d if not e['file'].endswith('mm/memory.c')]))
PY
cp fewer.json tree/fewer.json
"$TRAPCHECK" -p tree/fewer.json $ROOTS --shard 1/3 --db f1.db -q
tus f1.db > tf1
check "stable shares: with mm/memory.c gone, shard 1 keeps the same other files" \
	sh -c "grep -v '^mm/memory.c$' t1 | cmp -s - tf1"
check "the tree is not changed by sharded runs" \
	[ "$(find tree -type f ! -name fewer.json | sort | xargs cat | md5sum)" = "$sum_before" ]

# The join kept as one database (--db-out): what a CI cache keeps for
# the runs after it.
"$TRAPCHECK" report --db s1.db --db s2.db --db s3.db $ROOTS --db-out m.db \
	--format=json -o mjoined.json 2> m.err
rc=$?
check_that "--db-out: exit 1 (findings), the joined findings, one line naming it" \
	'[ $rc -eq 1 ] && same_sites mjoined.json one.json &&
	 grep -qx "trapcheck: 3 databases joined into m.db: $(wc -l < tall) TUs" m.err'
tus m.db > tm
check_that "... it holds every TU of the three, and no file beside it" \
	'cmp -s tm tall && [ -z "$(ls m.db?* 2> /dev/null)" ] &&
	 [ -z "$(ls m.db.tmp* 2> /dev/null)" ]'
python3 - m.db s1.db s2.db s3.db <<'PY'
import sqlite3, sys
# Per TU, the rows of every facts table, in order (the TU's id aside).
def facts(path):
    c = sqlite3.connect(path)
    tables = [r[0] for r in c.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name "
        "NOT IN ('meta', 'file', 'tu', 'link')")]
    out = {}
    for p, i, k in c.execute('SELECT path, id, key FROM tu'):
        rows = [k]
        for t in sorted(tables):
            cols = [r[1] for r in c.execute('PRAGMA table_info("%s")' % t)
                    if r[1] != 'tu']
            rows.append((t, c.execute('SELECT %s FROM "%s" WHERE tu = ? '
                                      'ORDER BY rowid' % (
                ', '.join('"%s"' % x for x in cols), t), (i,)).fetchall()))
        out[p] = rows
    return out
a, b = facts(sys.argv[1]), {}
for p in sys.argv[2:]:
    b.update(facts(p))
assert a and a == b, sorted(k for k in a if a.get(k) != b.get(k))
PY
check "... each TU's key and facts, row by row, those of the shard that made it" [ $? -eq 0 ]
cp -a "$FX" elsewhere
cp m.db warmcopy.db
"$TRAPCHECK" -p elsewhere $ROOTS --db warmcopy.db --format=json \
	-o mwarm.json 2> mwarm.err
rc=$?
check_that "a run from it, in another checkout: exit 1, no TU parsed, the single run's findings" \
	'[ $rc -eq 1 ] && grep -q "^trapcheck: 0 TUs parsed, " mwarm.err &&
	 same_sites mwarm.json one.json'
cp m.db keep.db
"$TRAPCHECK" report --db s1.db --db missing.db $ROOTS --db-out m.db -q \
	-o /dev/null 2> mbad.err
rc=$?
check_that "--db-out with a database that does not exist: exit 2, one line naming it, the old file kept" \
	'[ $rc -eq 2 ] && [ "$(wc -l < mbad.err)" -eq 1 ] &&
	 grep -q "missing.db" mbad.err && cmp -s m.db keep.db &&
	 [ -z "$(ls m.db.tmp* 2> /dev/null)" ]'
mkdir mdir
"$TRAPCHECK" report --db s1.db $ROOTS --db-out mdir -q -o /dev/null \
	2> mdir.err
rc=$?
check_that "--db-out naming a directory: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && [ "$(wc -l < mdir.err)" -eq 1 ] && grep -q "mdir" mdir.err'
"$TRAPCHECK" -p tree --db s1.db --db-out x.db -q -o /dev/null 2> mp.err
rc=$?
check_that "--db-out with -p: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < mp.err)" -eq 1 ] && grep -q "db-out" mp.err'
"$TRAPCHECK" report --db defconfig=def.db --db cloud=c1.db --db-out x.db \
	$ROOTS -q -o /dev/null 2> mc.err
rc=$?
check_that "--db-out with configurations: exit 2, one line, nothing written" \
	'[ $rc -eq 2 ] && [ "$(wc -l < mc.err)" -eq 1 ] && [ ! -e x.db ]'

# Usage errors: exit 2, one line, nothing on stdout.
bad() {
	"$TRAPCHECK" "$@" > bad.out 2> bad.err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l < bad.err)" -eq 1 ] && [ ! -s bad.out ] ||
		rc="$rc (or not one line)"
}
for s in 0/3 4/3 3 1/0 x/2 1/2x -1/2 1/10001; do
	bad -p tree --shard "$s" --db x.db
	check_that "--shard $s: exit 2, one line" \
		'[ "$rc" = 2 ] && grep -qxF "trapcheck: error: --shard needs K/N with 1 <= K <= N, not '"'$s'"'" bad.err'
done
msg="--shard needs -p and --db and stores facts only (no -o, --fix, --diff, baselines or pictures): trapcheck report --db joins the shards"
for args in "-p tree --shard 1/2" "-p tree --shard 1/2 --db x.db -o o.json" \
	    "-p tree --shard 1/2 --db x.db --fix" \
	    "report --shard 1/2 --db s1.db"; do
	bad $args
	check_that "$args: exit 2, one line" \
		'[ "$rc" = 2 ] && grep -qxF "trapcheck: error: $msg" bad.err'
done
check "... and no database made by them" [ ! -e x.db ]
bad -p tree --db s1.db --db s2.db
check_that "-p with two --db: exit 2, one line" \
	'[ "$rc" = 2 ] && grep -qx "trapcheck: error: --db given 2 times: only trapcheck report (without -p) joins databases" bad.err'
bad report --db s1.db --db missing.db
check_that "report with a database that does not exist: exit 2, one line naming it" \
	'[ "$rc" = 2 ] && grep -q "missing.db" bad.err'
check "... and no database made for it" [ ! -e missing.db ]

done_testing
