#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The facts database on the fixture tree: incremental runs, -j, Ctrl-C,
# foreign databases, the sparse protocol (trapcheck check + report), and
# the graph queries.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
cd "$SCRATCH" || exit 1

cp -a "$FX" tree
"$TRAPCHECK" -p tree -q $ROOTS > ref.txt
parsed() { sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' "$1"; }

"$TRAPCHECK" -p tree $ROOTS --db f.db > cold.txt 2> cold.err
check "cold run: same findings as without a database" cmp -s ref.txt cold.txt
"$TRAPCHECK" -p tree $ROOTS --db f.db > warm.txt 2> warm.err
check "warm run: 0 TUs parsed" grep -q '^trapcheck: 0 TUs parsed, 9 from the database, linked as stored$' warm.err
check "warm run: same findings" cmp -s ref.txt warm.txt
touch tree/mm/memory.c
"$TRAPCHECK" -p tree $ROOTS --db f.db > /dev/null 2> touch.err
check "a new mtime with the same contents re-parses nothing" \
	grep -q '^trapcheck: 0 TUs parsed' touch.err
echo '/* edited */' >> tree/mm/memory.c
"$TRAPCHECK" -p tree $ROOTS --db f.db > one.txt 2> one.err
check "one .c edited: exactly 1 TU parsed" [ "$(parsed one.err)" = 1 ]
check "... and the same findings" cmp -s ref.txt one.txt
echo '/* edited */' >> tree/arch/arm64/include/asm/archrandom.h
python3 - f.db > including.txt <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT count(DISTINCT tu) FROM include WHERE file = "
                "'arch/arm64/include/asm/archrandom.h'").fetchone()[0])
PY
"$TRAPCHECK" -p tree $ROOTS --db f.db > hdr.txt 2> hdr.err
check "a header edited: exactly the TUs that include it ($(cat including.txt))" \
	[ "$(parsed hdr.err)" = "$(cat including.txt)" ]
check "... and the same findings" cmp -s ref.txt hdr.txt

# The stored link (the merged graph in the database): read only when no
# TU and no file changed since the run that wrote it, and never trusted
# when its bytes are damaged.
check_that "a run that parsed does not read the stored link" \
	'! grep -q "linked as stored" hdr.err'
"$TRAPCHECK" -p tree $ROOTS --db f.db > hdr2.txt 2> hdr2.err
check_that "the run after it reads the link it wrote: 0 TUs parsed, the same findings" \
	'grep -q "^trapcheck: 0 TUs parsed, 9 from the database, linked as stored$" hdr2.err &&
	 cmp -s ref.txt hdr2.txt'
cp f.db flip.db
python3 - flip.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
k, g = c.execute("SELECT key, graph FROM link").fetchone()
g = bytearray(g)
g[len(g) // 2] ^= 0x10
c.execute("UPDATE link SET graph = ? WHERE key = ?", (bytes(g), k))
c.commit()
PY
"$TRAPCHECK" -p tree $ROOTS --db flip.db > flip.txt 2> flip.err
rc=$?
check_that "a damaged stored link (one bit): not read, the facts linked again, the same findings (exit $rc)" \
	'[ $rc -eq 1 ] && cmp -s ref.txt flip.txt &&
	 grep -q "^trapcheck: 0 TUs parsed, 9 from the database$" flip.err'
"$TRAPCHECK" -p tree $ROOTS --db flip.db > flip2.txt 2> flip2.err
check_that "... and written again: the next run reads it" \
	'grep -q "linked as stored$" flip2.err && cmp -s ref.txt flip2.txt'
# A TU that cannot be read keeps its stored facts and key: the run
# without it must not store a link that would stand for them.
mv tree/mm/memory.c memory.c.away
"$TRAPCHECK" -p tree $ROOTS --db f.db > away.txt 2> away.err
mv memory.c.away tree/mm/memory.c
"$TRAPCHECK" -p tree $ROOTS --db f.db > back.txt 2> back.err
check_that "a TU unreadable for one run, then back as it was: the clean findings again (not a link without it)" \
	'! cmp -s ref.txt away.txt && cmp -s ref.txt back.txt'

# The database follows its tree: keys leave the tree's own path out, so
# a moved copy (cp -a, or a hard-linked one) with its database parses
# only what differs.
cp -a tree moved
cp f.db moved.db
"$TRAPCHECK" -p moved $ROOTS --db moved.db > moved.txt 2> moved.err
check "a moved tree with a copy of its database: 0 TUs parsed" \
	grep -q '^trapcheck: 0 TUs parsed, 9 from the database, linked as stored$' moved.err
check "... and the same findings" cmp -s ref.txt moved.txt
echo '/* edited */' >> moved/drivers/char/random.c
"$TRAPCHECK" -p moved $ROOTS --db moved.db > /dev/null 2> moved1.err
check "... one .c edited in the moved tree: exactly 1 TU parsed" \
	[ "$(parsed moved1.err)" = 1 ]

# A TU whose unknown flag clang rejects (parsed again without it) must
# keep its key: the next run re-parses nothing.
python3 - tree/compile_commands.json rej.json <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
root = os.path.dirname(os.path.abspath(sys.argv[1]))
for e in d:
    e['directory'] = root
    if e['file'] == 'mm/memory.c':
        e['arguments'] = e['arguments'][:1] + ['-fmade-up-flag'] + \
            e['arguments'][1:]
# The same file built twice with other flags (as kbuild builds the KVM
# hyp code for VHE and nVHE): two TUs, two keys.
twice = [dict(e) for e in d if e['file'] == 'drivers/char/random.c'][0]
twice['command'] = twice['command'].replace('-D__KERNEL__',
                                            '-D__KERNEL__ -DNVHE_BUILD')
d.append(twice)
json.dump(d, open(sys.argv[2], 'w'))
PY
"$TRAPCHECK" -p rej.json --db rej.db -q > /dev/null 2>&1
"$TRAPCHECK" -p rej.json --db rej.db > /dev/null 2> rej.err
check "rejected flags and a file built twice keep their keys (warm: 0)" \
	grep -q '^trapcheck: 0 TUs parsed, ' rej.err

rm -f j1.db j2.db
"$TRAPCHECK" -p tree $ROOTS --db j1.db -j1 -q > j1.txt
"$TRAPCHECK" -p tree $ROOTS --db j2.db -j2 -q > j2.txt
check "-j1 and -j2 with a database: identical findings" cmp -s j1.txt j2.txt

# Foreign and corrupt databases.
echo "not a database at all, just text" > text.db
"$TRAPCHECK" -p tree -q --db text.db > /dev/null 2> text.err
rc=$?
check_that "a text file as database: exit 2, clear error" \
	'[ $rc -eq 2 ] && grep -q "text.db: not a trapcheck database" text.err'
python3 -c "import sqlite3; c = sqlite3.connect('other.db'); c.execute('CREATE TABLE t (x)'); c.commit()"
"$TRAPCHECK" -p tree -q --db other.db > /dev/null 2> other.err
rc=$?
check_that "another program's SQLite database: exit 2, not touched" \
	'[ $rc -eq 2 ] && grep -q "other.db: not a trapcheck database (schema none" other.err &&
	 [ "$(python3 -c "import sqlite3; print(len(sqlite3.connect(\"other.db\").execute(\"SELECT name FROM sqlite_master\").fetchall()))")" = 1 ]'

# A database of the schema before (5: no sink mask or feature, no MSR
# lists): refused, not half-written to.
"$TRAPCHECK" -p tree -q --db old.db > /dev/null 2>&1
sqlite3 old.db "update meta set value = '5' where key = 'trapcheck_schema'"
before=$(sqlite3 old.db "select count(*) from sink")
"$TRAPCHECK" -p tree -q --db old.db > /dev/null 2> old.err
rc=$?
schema=$(sed -n 's/^#define DB_SCHEMA_VERSION \([0-9]*\)$/\1/p' "$TOP/include/trapcheck/store/db.h")
check_that "a database of schema 5: exit 2, says to start again, untouched" \
	'[ $rc -eq 2 ] && grep -q "old.db: a trapcheck database of another version (schema 5, this trapcheck needs $schema): remove it to start again" old.err &&
	 [ "$(sqlite3 old.db "select count(*) from sink")" = "$before" ]'

# Ctrl-C: a bigger tree (400 copies of a TU), interrupted mid-run once 20
# are stored: the poll every 20 ms sees them seconds before the last TU.
mkdir big && cp -a "$FX"/. big/
python3 - big <<'PY'
import json, os, shutil, sys
tree = sys.argv[1]
d = json.load(open(os.path.join(tree, 'compile_commands.json')))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
for i in range(400):
    name = 'mm/copy%03d.c' % i
    shutil.copy(os.path.join(tree, 'mm/memory.c'), os.path.join(tree, name))
    e = dict(base)
    e['arguments'] = [a.replace('mm/memory.', 'mm/copy%03d.' % i)
                      for a in base['arguments']]
    e['file'] = name
    d.append(e)
json.dump(d, open(os.path.join(tree, 'compile_commands.json'), 'w'))
PY
"$TRAPCHECK" -p big -q -j2 --db big.db > /dev/null 2> int.err &
pid=$!
# Interrupt once some TUs are stored (not by the clock: machines differ).
for i in $(seq 1 1500); do
	n=$(sqlite3 -cmd '.timeout 30000' big.db 'SELECT count(*) FROM tu' 2>/dev/null)
	[ "${n:-0}" -ge 20 ] && break
	sleep 0.02
done
kill -INT $pid
wait $pid
rc=$?
check_that "SIGINT: exit 130 and a one-line note of what was stored" \
	'[ $rc -eq 130 ] && grep -q "^trapcheck: interrupted: [0-9]* TUs parsed and stored in the database$" int.err'
"$TRAPCHECK" -p big -j2 --db big.db > after.txt 2> after.err
rc=$?
check_that "the next run uses the database and completes" \
	'[ $rc -eq 1 ] && grep -q "^trapcheck: [0-9]* TUs parsed, [1-9][0-9]* from the database$" after.err'
"$TRAPCHECK" -p big -q > clean.txt
check "... with the findings of a clean run" cmp -s clean.txt after.txt

# The sparse protocol: kbuild's "$(CHECK) $(CHECKFLAGS) $(c_flags) file.c".
python3 - tree > checks.sh <<'PY'
import json, os, shlex, sys
tree = sys.argv[1]
for e in json.load(open(os.path.join(tree, 'compile_commands.json'))):
    if not e['file'].endswith('.c') or e['file'].startswith('scripts/'):
        continue
    argv = e.get('arguments') or shlex.split(e['command'])
    flags = [a for a in argv[1:] if a not in ('-c', e['file'])]
    if '-o' in flags:
        i = flags.index('-o')
        del flags[i:i + 2]
    # sparse's CHECKFLAGS as 6.12's arm64 defconfig has them.
    checkflags = ['-D__linux__', '-Dlinux', '-D__STDC__', '-Dunix',
                  '-D__unix__', '-Wbitwise', '-Wno-return-void',
                  '-Wno-unknown-attribute', '-D__AARCH64EL__',
                  '-D__aarch64__', '--arch=arm64', '-mlittle-endian',
                  '-m64']
    print('(cd %s && "$TRAPCHECK" check --db="$SCRATCH/check.db" %s %s '
          '%s) &' % (shlex.quote(tree), ' '.join(checkflags),
                     ' '.join(shlex.quote(f) for f in flags),
                     shlex.quote(e['file'])))
print('wait')
PY
cp -a "$FX"/. tree/
TRAPCHECK="$TRAPCHECK" SCRATCH="$SCRATCH" sh checks.sh > check.out 2>&1
check "trapcheck check per TU, in parallel, prints the per-TU preempt-guard" \
	grep -q 'rng_variants.c:[0-9]*:[0-9]*: warning: read_sanitised_ftr_reg() stands in for a per-CPU check' check.out
check "... and no warning of sparse's CHECKFLAGS (--arch=arm64, -m64 are known)" \
	sh -c '! grep -q "unknown compiler flag" check.out'
# Rule switches as make C=2 CF=... passes them: CF's words end CHECKFLAGS.
# The warnings go to stderr (as sparse's), the exit follows -Werror.
# sw NAME CF-WORDS: the rng_variants.c check, CF-WORDS after CHECKFLAGS.
sw() {
	_l=$(grep 'rng_variants.c) &$' checks.sh | sed 's/ &$//; s/check\.db/sw.db/' |
		sed "s|-Wno-unknown-attribute|& $2|")
	TRAPCHECK="$TRAPCHECK" SCRATCH="$SCRATCH" sh -c "$_l" > "$1.out" 2> "$1.err"
	echo $? > "$1.rc"
}
pg='rng_variants.c:[0-9]*:[0-9]*: warning: read_sanitised_ftr_reg() stands in for a per-CPU check.*\[preempt-guard\]'
sw sw0 ''
check_that "check: the preempt-guard warning on stderr, nothing on stdout, exit 0" \
	'[ "$(cat sw0.rc)" = 0 ] && [ ! -s sw0.out ] && grep -q "$pg" sw0.err'
sw sw1 -Wno-preempt-guard
check_that "check with CF=-Wno-preempt-guard: no warning, exit 0" \
	'[ "$(cat sw1.rc)" = 0 ] && ! grep -q "preempt-guard" sw1.err sw1.out'
sw sw2 -Werror=preempt-guard
check_that "check with CF=-Werror=preempt-guard: the same line as an error (as sparse prints under -Werror), exit 1" \
	'[ "$(cat sw2.rc)" = 1 ] && ! grep -q "$pg" sw2.err &&
	 grep -q "$(echo "$pg" | sed "s/: warning: /: error: /")" sw2.err'
sw sw3 '-Werror -Wno-error=preempt-guard'
check_that "check with CF='-Werror -Wno-error=preempt-guard': the warning, exit 0" \
	'[ "$(cat sw3.rc)" = 0 ] && grep -q "$pg" sw3.err'
sw sw4 '-Werror=no-such-rule -Wno-bogus'
check_that "check with another tool's -W words (not our rules): gcc's business, the warning, exit 0" \
	'[ "$(cat sw4.rc)" = 0 ] && grep -q "$pg" sw4.err'

# kbuild's vDSO: "-include <tree>/lib/vdso/getrandom.c" before the file;
# that .c is -include's value, not the TU.
mkdir -p tree/lib/vdso
printf 'int vdso_included(void)\n{\n\treturn 1;\n}\n' > tree/lib/vdso/extra.c
line=$(grep 'rng_variants.c) &$' checks.sh | sed 's/ &$//; s/check\.db/inc.db/' |
	sed "s|'-DKBUILD_MODFILE=|-include $SCRATCH/tree/lib/vdso/extra.c &|")
TRAPCHECK="$TRAPCHECK" SCRATCH="$SCRATCH" sh -c "$line" > cinc.out 2> cinc.err
rc=$?
python3 - inc.db > cinc.db.txt <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for (p,) in c.execute("SELECT path FROM tu"):
    print("tu", p)
for (f,) in c.execute("SELECT file FROM func WHERE name = 'vdso_included'"):
    print("func", f)
PY
check_that "check with CHECKFLAGS and -include x.c before the file: exit 0, no flag warning, no parse-error note" \
	'echo "$line" | grep -q -- "-include $SCRATCH/tree/lib/vdso/extra.c .-DKBUILD_MODFILE=" &&
	 [ $rc -eq 0 ] && ! grep -q "unknown compiler flag\|parsed with" cinc.err cinc.out'
check_that "... the TU stored is the file (drivers/char/rng_variants.c), the included .c's function with it" \
	'[ "$(cat cinc.db.txt)" = "tu drivers/char/rng_variants.c
func lib/vdso/extra.c" ]'
# The same command with the parser crashing (TRAPCHECK_FAULT, see
# docs/reliability.md): kbuild must go on, so exit 0 and one warning.
line=$(grep 'rng_variants.c) &$' checks.sh | sed 's/ &$//; s/check\.db/crash.db/')
TRAPCHECK_FAULT=segv:rng_variants TRAPCHECK="$TRAPCHECK" SCRATCH="$SCRATCH" \
	sh -c "$line" > ccrash.out 2> ccrash.err
rc=$?
check_that "trapcheck check with a crashing parser: exit 0, one warning naming the TU and the signal" \
	'[ $rc -eq 0 ] && [ "$(wc -l < ccrash.err)" = 1 ] &&
	 grep -q "^drivers/char/rng_variants.c: warning: trapcheck: not analysed: parser crashed (signal 11: Segmentation fault)$" ccrash.err'
line=$(echo "$line" | sed 's/check --db=/check --fail --db=/')
TRAPCHECK_FAULT=segv:rng_variants TRAPCHECK="$TRAPCHECK" SCRATCH="$SCRATCH" \
	sh -c "$line" > /dev/null 2>&1
check "... and with --fail, exit 3" test $? -eq 3
"$TRAPCHECK" report --db check.db $ROOTS --format=json -o rep.json 2>/dev/null
"$TRAPCHECK" -p tree $ROOTS --format=json -o cdb.json 2>/dev/null
python3 - rep.json cdb.json <<'PY'
import json, sys
# Every (site, root set) pair: one finding per site, its root sets listed.
def fps(path):
    return sorted(x for f in json.load(open(path))['findings']
                  for x in f['fingerprints'])
a, b = fps(sys.argv[1]), fps(sys.argv[2])
assert a == b and len(a) == 16, (len(a), len(b), set(a) ^ set(b))
PY
check "trapcheck report --db: the findings of the compile-database mode" [ $? -eq 0 ]

# Queries.
"$TRAPCHECK" callers cpu_has_hw_af --db f.db -q > callers.txt
check "callers: set_pte_range through the alias, with the site" \
	grep -q '^set_pte_range	mm/memory.c:[0-9]*:[0-9]* (as arch_wants_old_prefaulted_pte) when prefault$' callers.txt
"$TRAPCHECK" callees extract_entropy --db f.db -q > callees.txt
check "callees: extract_entropy calls arch_get_random_seed_longs" \
	grep -q '^arch_get_random_seed_longs	drivers/char/random.c:' callees.txt
"$TRAPCHECK" path handle_mm_fault cpu_has_hw_af --db f.db -q > path.txt
check_that "path: the shortest chain, with locations" \
	'[ "$(head -n 1 path.txt | cut -f1)" = handle_mm_fault ] &&
	 [ "$(tail -n 1 path.txt)" = cpu_has_hw_af ] && [ "$(wc -l < path.txt)" = 9 ]'
"$TRAPCHECK" why arch/arm64/include/asm/archrandom.h:60 --db f.db -q > why.txt
check_that "why: the roots that reach a line, and how" \
	'grep -q "^reached from crng:$" why.txt && grep -q "^not reached from page-fault$" why.txt'
"$TRAPCHECK" path cpu_has_hw_af handle_mm_fault --db f.db -q > /dev/null 2>&1
check "path: nothing found is exit 1" [ $? -eq 1 ]
"$TRAPCHECK" callers no_such_function --db f.db > q1.out 2> q1.err
rc=$?
"$TRAPCHECK" path handle_mm_fault no_such_function --db f.db > q2.out 2> q2.err
rc2=$?
check_that "callers/path of a function the graph does not have: exit 2, one line naming it (not 'nothing found')" \
	'[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ ! -s q1.out ] &&
	 [ "$(cat q1.err)" = "trapcheck: error: callers: no function '"'no_such_function'"' in the call graph" ] &&
	 [ "$(cat q2.err)" = "trapcheck: error: path: no function '"'no_such_function'"' in the call graph" ]'

# A smaller compile database against a database made with every TU
# (a subset, a shard, a file gone): the dropped TU's facts are pruned,
# and the header functions it owned are re-extracted by a kept TU that
# includes them, not lost. For each TU of the fixture: the findings of a
# run without a database over the same entries.
cp -a "$FX" sub
"$TRAPCHECK" -p sub $ROOTS --db full.db -q -o /dev/null
ok=0
for f in $(python3 -c "import json,sys; print(' '.join(e['file'] for e in json.load(open(sys.argv[1]))))" sub/compile_commands.json); do
	python3 - sub/compile_commands.json "$f" > sub/less.json <<'PY'
import json, sys
print(json.dumps([e for e in json.load(open(sys.argv[1]))
                  if e['file'] != sys.argv[2]]))
PY
	cp full.db less.db
	"$TRAPCHECK" -p sub/less.json $ROOTS --db less.db -q \
		--format=json -o less.json
	"$TRAPCHECK" -p sub/less.json $ROOTS -q --format=json -o none.json
	if ! same_sites less.json none.json > less.out 2>&1; then
		echo "# without $f:"
		sed 's/^/#   /' less.out | head -n 5
		ok=1
	fi
done
check "a TU dropped from the compile database: a warm run finds what a run without a database finds" \
	[ $ok -eq 0 ]
# The case that loses a finding: a header function owned by a TU that
# only includes it (first in the database, -j1), called from a root in
# another TU; the owner is dropped.
cat > sub/include/linux/hotread.h <<'EOF2'
#include <asm/cpufeature.h>
static inline u64 hotread_pfr0(void)
{
	return read_cpuid(ID_AA64PFR0_EL1);
}
EOF2
printf '#include <linux/hotread.h>\nint hot_owner_only;\n' > sub/mm/hot_owner.c
printf '#include <linux/hotread.h>\nu64 hot_user(void);\nu64 hot_user(void)\n{\n\treturn hotread_pfr0();\n}\n' > sub/mm/hot_user.c
echo hot_user > hot.roots
python3 - sub/compile_commands.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
def entry(n):
    e = dict(base, file='mm/%s.c' % n)
    if 'command' in e:
        e['command'] = e['command'].replace('memory', n)
    else:
        e['arguments'] = [a.replace('memory', n) for a in e['arguments']]
    return e
new = [entry(n) for n in ('hot_owner', 'hot_user')]
json.dump(new + d, open(sys.argv[1], 'w'))
PY
python3 - sub/compile_commands.json > sub/owner_gone.json <<'PY'
import json, sys
print(json.dumps([e for e in json.load(open(sys.argv[1]))
                  if e['file'] != 'mm/hot_owner.c']))
PY
rm -f own.db
"$TRAPCHECK" -p sub $ROOTS --roots hot.roots -j1 --db own.db -q \
	--format=json -o own-all.json
"$TRAPCHECK" -p sub/owner_gone.json $ROOTS --roots hot.roots --db own.db \
	--format=json -o own-warm.json 2> own-warm.err
"$TRAPCHECK" -p sub/owner_gone.json $ROOTS --roots hot.roots -q \
	--format=json -o own-none.json
check "... the header function's owner dropped: a kept includer re-parsed to adopt it" \
	grep -q "^trapcheck: 1 TUs parsed, " own-warm.err
check_that "... and the finding through it kept (the run without a database has it)" \
	'grep -q "\"function\": \"hotread_pfr0\"" own-none.json &&
	 same_sites own-warm.json own-none.json'

# One architecture per database: the run's is stored, another refused.
setarch() {
	python3 - "$1" "$2" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
if sys.argv[2] == '?':
    print(c.execute("SELECT value FROM meta WHERE key = 'arch'")
          .fetchone()[0])
else:
    c.execute("UPDATE meta SET value = ? WHERE key = 'arch'", (sys.argv[2],))
    c.commit()
PY
}
check "the database records the run's architecture (from the compile database)" \
	[ "$(setarch f.db '?')" = arm64 ]
cp f.db x86.db
setarch x86.db x86
"$TRAPCHECK" -p tree $ROOTS --db x86.db > /dev/null 2> x86run.err
rc=$?
check_that "a run on a database of another architecture: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < x86run.err)" -eq 1 ] &&
	 grep -qx "trapcheck: error: x86.db: its facts are of arch/x86, this run is for arch/arm64: one architecture per database" x86run.err'
"$TRAPCHECK" report --db f.db --db x86.db $ROOTS > /dev/null 2> x86rep.err
rc=$?
check_that "report: databases of two architectures: exit 2, one line" \
	'[ $rc -eq 2 ] &&
	 grep -qx "trapcheck: error: x86.db: its facts are of arch/x86, those of f.db of arch/arm64: one architecture per report" x86rep.err'
setarch x86.db sparc
"$TRAPCHECK" report --db x86.db $ROOTS > /dev/null 2> sparc.err
rc=$?
check_that "report: an architecture trapcheck has no tables for: exit 2, one line" \
	'[ $rc -eq 2 ] &&
	 grep -qx "trapcheck: error: x86.db: its facts are of arch/sparc, which this trapcheck has no tables for" sparc.err'

done_testing
