#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input: broken compile databases, TUs that cannot be read or parsed,
# odd call graphs, bad root files, outputs that cannot be written,
# signals, a read-only tree and patch paths outside the tree. Each case
# checks the exit status (docs/diagnostics.md: 0 clean, 1 findings, 2
# usage or input error, 3 output not written, 130 interrupted), one clear
# line on stderr naming the file and the problem, no partial output (-o
# writes FILE.tmp.PID and renames it), and the facts database (--db)
# intact where one is given.
#
# Runs as root too: permissions are taken away with setpriv (no
# CAP_DAC_OVERRIDE) and chattr +i; a case that cannot be set up fails,
# it is not skipped.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1
# Immutable files would survive tap.sh's rm -rf: undo chattr +i first.
trap 'chattr -R -i "$SCRATCH" > /dev/null 2>&1; rm -rf "$SCRATCH"' EXIT

# tc NAME ARGS...: run trapcheck, NAME.out/NAME.err, status in $rc.
tc() {
	name=$1
	shift
	"$TRAPCHECK" "$@" > "$name.out" 2> "$name.err"
	rc=$?
}
# Exactly one line on stderr, "trapcheck: error: " then the ERE.
one_error() {
	[ "$(wc -l < "$1.err")" -eq 1 ] &&
		grep -Eq "^trapcheck: error: $2" "$1.err"
}
no_tmp() {
	[ -z "$(find "$SCRATCH" -name '*.tmp.*' 2> /dev/null)" ]
}
sum() {
	cat "$@" 2> /dev/null | md5sum
}
# The database is a sound SQLite file; prints how many TUs it holds.
db_tus() {
	python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
print(c.execute("SELECT count(*) FROM tu").fetchone()[0])
PY
}
# A summary count that wrapped around (size_t underflow) has 15+ digits.
sane_summary() {
	! grep -Eq '[0-9]{15,}' "$1"
}

# tree NAME: a copy of the fixture, its C entries only (the counts and
# thresholds below are of its 8 C TUs; an assembly source's bad input is
# asm.t's). add_tu TREE FILE[=COMPILER]...: an entry like mm/memory.c's
# for each FILE.
tree() {
	rm -rf "$1" && cp -a "$FX" "$1" &&
	python3 - "$1/compile_commands.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump([e for e in d if not e['file'].endswith('.S')],
          open(sys.argv[1], 'w'), indent=1)
PY
}
add_tu() {
	python3 - "$@" <<'PY'
import json, sys
tree, files = sys.argv[1], sys.argv[2:]
path = tree + '/compile_commands.json'
d = json.load(open(path))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
for f in files:
    comp = None
    if '=' in f:
        f, comp = f.split('=', 1)
    stem = f[:-2]
    e = dict(base, file=f)
    e['arguments'] = [a.replace('mm/.memory.o.d', stem + '.d')
                       .replace('mm/memory.o', stem + '.o')
                       .replace('mm/memory.c', f) for a in base['arguments']]
    if comp:
        e['arguments'][0] = comp
    d.append(e)
json.dump(d, open(path, 'w'), indent=1)
PY
}

# Without CAP_DAC_OVERRIDE, root obeys file modes like anyone else.
if [ "$(id -u)" = 0 ]; then
	NOPRIV="setpriv --bounding-set=-dac_override,-dac_read_search"
else
	NOPRIV=
fi

# The reference: the fixture's findings, and a database of a good tree.
tree good
"$TRAPCHECK" -p good -q > ref.txt 2> /dev/null
grep ' warning: ' ref.txt | sort > ref.warnings
"$TRAPCHECK" -p good --db good.db > /dev/null 2> ref.err
ref_skipped=$(sed -n 's/.* TUs analysed ([0-9]* with errors, \([0-9]*\) skipped).*/\1/p' ref.err)
good_sum=$(sum good.db good.db-wal)
# All of the fixture's findings are still in FILE.
has_ref() {
	grep ' warning: ' "$1" | sort | comm -23 ref.warnings - | grep -q . &&
		return 1
	[ -s ref.warnings ]
}

# 1. No compile database.
tc missing -p nothere -q --db good.db -o missing.txt
check_that "missing compile_commands.json: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_error missing "nothere/compile_commands.json: cannot read: No such file or directory$"'
check_that "... no output file or temporary, the database untouched" \
	'[ ! -e missing.txt ] && no_tmp && [ "$(sum good.db good.db-wal)" = "$good_sum" ]'

# 2. An empty one.
mkdir empty && echo '[]' > empty/compile_commands.json
tc empty -p empty -q --db good.db -o empty.txt
check_that "empty compile database ([]): exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_error empty "empty/compile_commands.json: empty compile database$"'
check_that "... no output file, the database untouched" \
	'[ ! -e empty.txt ] && no_tmp && [ "$(sum good.db good.db-wal)" = "$good_sum" ]'

# 3. Malformed ones: truncated, and an escape that jansson quotes with
# the newline that follows it.
mkdir mal && head -c 300 "$FX/compile_commands.json" > mal/compile_commands.json
tc mal -p mal -q --db good.db -o mal.txt
check_that "truncated compile_commands.json: exit 2, file:line:col: malformed JSON" \
	'[ $rc -eq 2 ] && one_error mal "mal/compile_commands.json:[0-9]+:[0-9]+: malformed JSON: "'
check_that "... no output file, the database untouched" \
	'[ ! -e mal.txt ] && no_tmp && [ "$(sum good.db good.db-wal)" = "$good_sum" ]'
mkdir esc && printf '[{"directory": ".\\\n", "file": "a.c", "command": "gcc -c a.c"}]\n' > esc/compile_commands.json
tc esc -p esc -q
check_that "a bad escape before a newline: the error is still one line" \
	'[ $rc -eq 2 ] && one_error esc "esc/compile_commands.json:[0-9]+:[0-9]+: malformed JSON: "'
mkdir noarr && echo '[{"directory": ".", "command": "gcc -c a.c"}]' > noarr/compile_commands.json
tc noarr -p noarr -q
check_that "an entry without \"file\": exit 2, the entry named" \
	'[ $rc -eq 2 ] && one_error noarr ".*noarr/compile_commands.json: entry 0: needs \"directory\", \"file\" and \"command\" or \"arguments\"$"'
mkdir -p isdir/compile_commands.json
tc isdir -p isdir -q
check_that "compile_commands.json is a directory: exit 2, and says so" \
	'[ $rc -eq 2 ] && one_error isdir "isdir/compile_commands.json: .*([Ii]s a directory|not a regular file)"'

mkdir fifodb && mkfifo fifodb/compile_commands.json
timeout 20 "$TRAPCHECK" -p fifodb -q > fifodb.out 2> fifodb.err
rc=$?
check_that "compile_commands.json is a FIFO: exit 2 at once (no writer is waited for), one line" \
	'[ $rc -eq 2 ] && one_error fifodb "fifodb/compile_commands.json: cannot read: a FIFO, not a regular file$"'
tc emptyp -p "" -q
check_that "-p '': exit 2, one line (not /compile_commands.json)" \
	'[ $rc -eq 2 ] && one_error emptyp "-p: an empty path"'
tc emptyset -p "$FX" -q --root-set=
check_that "--root-set= (no name): exit 2, one line, no run without root sets" \
	'[ $rc -eq 2 ] && one_error emptyset "--root-set: no root set named"'
tc commaset -p "$FX" -q --root-set=,
check_that "--root-set=, (no name either): exit 2, one line listing the sets" \
	'[ $rc -eq 2 ] && one_error commaset "--root-set: no root set named \(the sets are block, .*crng, .*\)$"'
tc bogusset -p "$FX" -q --root-set=crng,bogus
check_that "--root-set naming no set: exit 2, one line naming it and listing the sets" \
	'[ $rc -eq 2 ] && one_error bogusset "--root-set: no root set named .bogus. \(the sets are block, .*\)$"'
tc onlytypo -p "$FX" -q --only drivers/chr
check_that "--only naming no analysed path: exit 2, one line (not 0 findings and exit 0)" \
	'[ $rc -eq 2 ] && one_error onlytypo "--only drivers/chr: no analysed file is there"'
tc onlyabs -p "$FX" -q --only /etc
check_that "--only outside the tree: exit 2, one line" \
	'[ $rc -eq 2 ] && one_error onlyabs "--only /etc: not inside the tree"'
tc onlyin -p "$FX" -q --only "$FX/drivers/char"
check_that "--only an absolute path inside the tree: taken relative to it" \
	'[ $rc -eq 1 ] && grep -q "^drivers/char/" onlyin.out && ! grep -qv "^drivers/char/" onlyin.out'

# 4. An entry whose file does not exist: the run goes on.
tree gone
add_tu gone mm/gone.c
tc gone -p gone -o gone.txt
check_that "a TU that does not exist: the run continues (every other finding written), exit 4: 8 of 9 is under --min-analysed 90%" \
	'[ $rc -eq 4 ] && has_ref gone.txt && no_tmp &&
	 grep -q "^trapcheck: error: 8 of 9 TUs analysed (--min-analysed 90%): the findings would be incomplete$" gone.err'
tc gone50 -p gone -o gone50.txt --min-analysed 50%
check_that "... with --min-analysed 50%: exit 1, the same findings" \
	'[ $rc -eq 1 ] && cmp -s gone.txt gone50.txt'
tc gone8 -p gone -o gone8.txt --min-analysed 8
check_that "... with --min-analysed 8 (a count): exit 1; with 9: exit 4" \
	'[ $rc -eq 1 ] && "$TRAPCHECK" -p gone -q -o /dev/null --min-analysed 9 2> /dev/null; [ $? -eq 4 ]'
tc badmin -p gone --min-analysed 120%
check_that "--min-analysed 120%: exit 2, one line" \
	'[ $rc -eq 2 ] && one_error badmin "--min-analysed needs a count or a percentage, not .120%.$"'
check_that "... it is listed once as not analysed, and counted" \
	'[ "$(grep -c "^mm/gone.c: note: not analysed: " gone.err)" = 1 ] &&
	 grep -Eq "^trapcheck: [0-9]+ TUs analysed \(1 with errors, " gone.err'
check "... the summary counts do not wrap around (no 18446744073709551615)" \
	sane_summary gone.err
check "... the note names the cause (No such file or directory)" \
	grep -q "^mm/gone.c: note: not analysed: .*No such file or directory" gone.err

# 5. Unreadable files. As root, without CAP_DAC_OVERRIDE.
tree unread
add_tu unread mm/secret.c
echo 'int secret(void) { return 1; }' > unread/mm/secret.c
chmod 000 unread/mm/secret.c
if $NOPRIV cat unread/mm/secret.c > /dev/null 2>&1; then
	fail "unreadable TU: cannot take read permission away (setpriv?)"
else
	$NOPRIV "$TRAPCHECK" -p unread -o unread.txt > unread.out 2> unread.err
	rc=$?
	check_that "an unreadable TU: the run continues (exit 4: under --min-analysed), listed as not analysed" \
		'[ $rc -eq 4 ] && has_ref unread.txt && no_tmp &&
		 [ "$(grep -c "^mm/secret.c: note: not analysed: " unread.err)" = 1 ]'
	check "... the note names the cause (Permission denied)" \
		grep -q "^mm/secret.c: note: not analysed: .*Permission denied" unread.err
fi
mkdir noperm && cp "$FX/compile_commands.json" noperm/ && chmod 000 noperm/compile_commands.json
$NOPRIV "$TRAPCHECK" -p noperm -q > noperm.out 2> noperm.err
rc=$?
check_that "an unreadable compile_commands.json: exit 2, Permission denied" \
	'[ $rc -eq 2 ] && one_error noperm "noperm/compile_commands.json: cannot read: Permission denied$"'

# 6. A directory and a FIFO where a .c file should be.
tree odd
add_tu odd mm/dir.c
mkdir odd/mm/dir.c
tc dir -p odd -o dir.txt
check_that "a directory as a TU: the run continues (exit 4), listed as not analysed" \
	'[ $rc -eq 4 ] && has_ref dir.txt && no_tmp &&
	 [ "$(grep -c "^mm/dir.c: note: not analysed: " dir.err)" = 1 ]'
tree fifo
add_tu fifo mm/fifo.c
mkfifo fifo/mm/fifo.c
timeout --preserve-status -k 5 10 "$TRAPCHECK" -p fifo -o fifo.txt > fifo.out 2> fifo.err
rc=$?
check_that "a FIFO as a TU: no hang (done in 10 s), listed as not analysed (exit 4)" \
	'[ $rc -eq 4 ] && grep -q "^mm/fifo.c: note: not analysed: " fifo.err'
check "... and SIGTERM stops a run blocked on it (not SIGKILL)" [ $rc -ne 137 ]

# 7. A binary file as a .c TU.
tree bin
add_tu bin mm/binary.c
head -c 65536 "$TRAPCHECK" > bin/mm/binary.c
tc bin -p bin -o bin.txt
check_that "a binary .c: parsed with errors, first one listed, run continues" \
	'[ $rc -eq 1 ] && has_ref bin.txt && no_tmp &&
	 grep -Eq "^mm/binary.c: note: parsed with [0-9]+ errors?, first: mm/binary.c:[0-9]+:[0-9]+: " bin.err'

# 8. Unknown compilers: one warning per compiler, entries skipped.
tree cc
add_tu cc mm/odd1.c=frobcc mm/odd2.c=frobcc mm/odd3.c=/opt/x/bin/icc
touch cc/mm/odd1.c cc/mm/odd2.c cc/mm/odd3.c
tc cc -p cc -o cc.txt
check_that "unknown compilers: one warning each, naming the entry, entries skipped" \
	'[ $rc -eq 1 ] && has_ref cc.txt && no_tmp &&
	 [ "$(grep -c "warning: unknown compiler .frobcc.: entry skipped$" cc.err)" = 1 ] &&
	 grep -q "mm/odd1.c: warning: unknown compiler .frobcc.: entry skipped$" cc.err &&
	 grep -q "mm/odd3.c: warning: unknown compiler ./opt/x/bin/icc.: entry skipped$" cc.err &&
	 grep -q " (0 with errors, $((ref_skipped + 3)) skipped)" cc.err'

# 9. A TU with hard errors: used, counted, first error listed.
tree broken
add_tu broken mm/broken.c
cat > broken/mm/broken.c <<'EOF'
#include <linux/types.h>
#include <asm/cpufeature.h>

int broken_syntax(void)
{
	return 1 +;
}

int broken_undeclared(void)
{
	return no_such_variable;
}

int broken_root(void);
int broken_root(void)
{
	return cpu_has_hw_af();
}
EOF
echo broken_root > broken.roots
tc broken -p broken --roots broken.roots -o broken.txt
check_that "a TU with errors: counted, its first error listed" \
	'[ $rc -eq 1 ] &&
	 grep -Eq "^mm/broken.c: note: parsed with 2 errors, first: mm/broken.c:6:[0-9]+: expected expression$" broken.err &&
	 grep -Eq "^trapcheck: [0-9]+ TUs analysed \(1 with errors, " broken.err'
check_that "... and used: its functions reach the sink" \
	'grep -q ": note: reached from broken (steady phase): broken_root -> cpu_has_hw_af$" broken.txt && has_ref broken.txt'

# 10. A huge generated TU: 200k lines, 40k functions, one long chain.
tree huge
add_tu huge mm/huge.c
python3 - huge/mm/huge.c <<'PY'
import sys
n = 40000
with open(sys.argv[1], 'w') as f:
    f.write('#include <asm/cpufeature.h>\n')
    for i in range(n):
        nxt = 'gen_%d(x + 1)' % (i + 1) if i % 100 != 99 else 'x'
        if i == n - 1:
            nxt = '(int)cpu_has_hw_af()'
        f.write('int gen_%d(int x);\nint gen_%d(int x)\n{\n\treturn %s;\n}\n'
                % (i + 1, i, nxt))
    f.write('int gen_%d(int x) { return x; }\n' % n)
PY
printf 'gen_0\ngen_39950\n' > huge.roots
start=$(date +%s)
# The timeout guards against a hang (a walk gone quadratic), not speed:
# bench/run measures that; under ASan beside other jobs this takes minutes.
timeout -k 5 600 "$TRAPCHECK" -p huge --roots huge.roots -o huge.txt > huge.out 2> huge.err
rc=$?
took=$(($(date +%s) - start))
check_that "a 200k-line TU: completes (${took} s), 40k functions" \
	'[ $rc -eq 1 ] && [ "$(wc -l < huge/mm/huge.c)" -ge 200000 ] &&
	 grep -Eq "^trapcheck: [0-9]+ TUs analysed \(0 with errors, [0-9]+ skipped\), [4-9][0-9]{4} functions" huge.err'
check "... the 50-step chain from gen_39950 is found" \
	grep -Eq ": note: (also )?reached from huge \(steady phase\): gen_39950 -> gen_39951 -> .* -> gen_39999 -> cpu_has_hw_af$" huge.txt

# 11-12. Cycles, recursion, and one static name in twenty files.
tree graph
cat > graph/mm/cycle.c <<'EOF'
#include <linux/types.h>
#include <asm/cpufeature.h>

int cyc_a(int n);
int cyc_b(int n);
int cyc_c(int n);

int cyc_self(int n)
{
	return n ? cyc_self(n - 1) : 0;
}

int cyc_a(int n)
{
	return n ? cyc_b(n - 1) : cyc_self(n);
}

int cyc_b(int n)
{
	return n ? cyc_c(n - 1) : cyc_a(n);
}

int cyc_c(int n)
{
	if (n > 3)
		return cyc_a(n - 1);
	return cpu_has_hw_af() + cyc_c(n);
}
EOF
files=mm/cycle.c
for i in 00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do
	body="return $i;"
	[ $i = 07 ] && body="return cpu_has_hw_af();"
	printf '#include <linux/types.h>\n#include <asm/cpufeature.h>\n\nstatic int helper(void)\n{\n\t%s\n}\n\nint user_%s(void);\nint user_%s(void)\n{\n\treturn helper();\n}\n' \
		"$body" $i $i > graph/mm/stat$i.c
	files="$files mm/stat$i.c"
done
add_tu graph $files
printf 'cyc_a\ncyc_self\n' > cycle.roots
echo user_03 > stat.roots
timeout -k 5 60 "$TRAPCHECK" -p graph --roots cycle.roots --roots stat.roots -o graph.txt > graph.out 2> graph.err
rc=$?
check_that "call-graph cycles and recursion: no hang, the shortest chain" \
	'[ $rc -eq 1 ] && has_ref graph.txt &&
	 grep -q ": note: reached from cycle (steady phase): cyc_a -> cyc_b -> cyc_c -> cpu_has_hw_af$" graph.txt'
python3 - graph.txt <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.search(r'note: (?:also )?reached from [^:]*: (.*)$', line)
    if m:
        steps = [re.sub(r' \([^)]*\)', '', s) for s in m.group(1).split(' -> ')]
        if len(steps) != len(set(steps)):
            print('# ' + line.strip())
            sys.exit(1)
PY
check "... no chain goes round a cycle (no function twice in a chain)" [ $? -eq 0 ]
check "... path through a cycle: cyc_c -> cyc_a -> cyc_b" \
	sh -c "'$TRAPCHECK' path cyc_c cyc_b -p graph -q | cut -f1 | tr '\n' ' ' | grep -qx 'cyc_c cyc_a cyc_b '"
check "... a self-recursive call is an edge (callers cyc_self lists cyc_self)" \
	sh -c "'$TRAPCHECK' callers cyc_self -p graph -q | grep -q '^cyc_self	mm/cycle.c:'"
"$TRAPCHECK" callers helper -p graph -q -j1 > callers1.txt
check_that "static helper() in 20 files: 20 callers, each in its own file" \
	'[ "$(wc -l < callers1.txt)" = 20 ] &&
	 [ "$(cut -f2 callers1.txt | cut -d: -f1 | sort -u | wc -l)" = 20 ] &&
	 grep -q "^user_07	mm/stat07.c:" callers1.txt'
check_that "... distinct nodes: only stat07.c's helper() calls cpu_has_hw_af()" \
	'"$TRAPCHECK" callees helper -p graph -q > callees.txt &&
	 [ "$(wc -l < callees.txt)" = 1 ] && grep -q "^cpu_has_hw_af	mm/stat07.c:" callees.txt'
check_that "... user_07 reaches the sink, user_03 does not (no finding from stat)" \
	'"$TRAPCHECK" path user_07 cpu_has_hw_af -p graph -q > /dev/null 2>&1 &&
	 ! "$TRAPCHECK" path user_03 cpu_has_hw_af -p graph -q > /dev/null 2>&1 &&
	 ! grep -q "reached from stat" graph.txt'
"$TRAPCHECK" callers helper -p graph -q -j2 > callers2.txt
"$TRAPCHECK" callers helper -p graph -q -j2 > callers3.txt
check_that "... callers prints the same order for -j1 and -j2" \
	'cmp -s callers1.txt callers2.txt && cmp -s callers1.txt callers3.txt'

# 13. Root files: two sets of one name merge; an invalid line is exit 2.
mkdir r1 r2
echo cyc_a > r1/dup.roots
echo user_07 > r2/dup.roots
tc dup -p graph --roots r1/dup.roots --roots r2/dup.roots
check_that "two --roots files named dup: one set with both functions" \
	'[ $rc -eq 1 ] &&
	 [ "$(grep -c ": note: reached from dup (" dup.out)" = 1 ] &&
	 grep -q ": note: reached from dup (steady phase): user_07 -> helper -> cpu_has_hw_af$" dup.out &&
	 grep -q ": note: also reached from dup: cyc_a -> cyc_b -> cyc_c -> cpu_has_hw_af$" dup.out'
printf 'do_page_fault\n# a comment\nnot a name\n' > bad.roots
tc badroots -p good -q --roots bad.roots --db good.db -o badroots.txt
check_that "a roots file with an invalid line: exit 2, file:line named" \
	'[ $rc -eq 2 ] && one_error badroots "bad.roots:3: not a function name: .not a name.$"'
check_that "... no output, the database untouched" \
	'[ ! -e badroots.txt ] && no_tmp && [ "$(sum good.db good.db-wal)" = "$good_sum" ]'
tc noroots -p good -q --roots none.roots
check_that "a missing roots file: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && one_error noroots "none.roots: cannot read roots file: No such file or directory$"'
printf 'local-cap-check __cpu_has_rng\n' > bad.waivers
tc badwaivers -p good -q --waivers bad.waivers -o badwaivers.txt
check_that "a waiver without a reason: exit 2, file:line named, no output" \
	'[ $rc -eq 2 ] && one_error badwaivers "bad.waivers:1: waiver without a reason" &&
	 [ ! -e badwaivers.txt ] && no_tmp'
printf '{"trapcheck_baseline": 1, "findings": ["\\\n"]}\n' > bad.baseline
tc badbaseline -p good -q --baseline bad.baseline -o badbaseline.txt
check_that "a malformed baseline: exit 2, one line naming it, no output" \
	'[ $rc -eq 2 ] && one_error badbaseline "bad.baseline:[0-9]+: not a baseline: " &&
	 [ ! -e badbaseline.txt ] && no_tmp'
printf 'local-cap-chek __cpu_has_rng boot only\n' > typo.waivers
tc wtypo -p good -q --db good.db --waivers typo.waivers
check_that "a waiver naming no rule: exit 2, one line listing the rules" \
	'[ $rc -eq 2 ] && one_error wtypo "typo.waivers:1: no rule named .local-cap-chek. \(the rules are trapping-idreg-read, "'
printf 'local-cap-check file:abc boot only\n' > place.waivers
tc wplace -p good -q --db good.db --waivers place.waivers
check_that "a waiver whose place is neither a function nor FILE:LINE: exit 2, one line" \
	'[ $rc -eq 2 ] && one_error wplace "place.waivers:1: .file:abc.: not a function name or FILE:LINE"'
# A line past what an unsigned int holds wrapped (4294967356 waived line
# 60); a misspelt file waived nothing, silently.
printf 'local-cap-check arch/arm64/include/asm/archrandom.h:4294967356 x\n' \
	> wrap.waivers
tc wwrap -p good -q --db good.db --waivers wrap.waivers
check_that "a waiver's line past 2^31: exit 2, one line (before: it wrapped and waived line 60)" \
	'[ $rc -eq 2 ] && one_error wwrap "wrap.waivers:1: .arch/arm64/include/asm/archrandom.h:4294967356.: not a function name or FILE:LINE"'
printf 'local-cap-check arch/arm64/include/asm/archrandm.h:60 typo\n' \
	> wfile.waivers
tc wfile -p good -q --db good.db --waivers wfile.waivers
check_that "a waiver of a file the tree does not have: a warning naming it, the run goes on" \
	'[ $rc -eq 1 ] && grep -q "^wfile.waivers:1: warning: waiver for local-cap-check: no file .arch/arm64/include/asm/archrandm.h. in the analysed tree$" wfile.err'
printf 'local-cap-check __cpu_has_rgn boot only\n' > fn.waivers
tc wfn -p good -q --db good.db --waivers fn.waivers
check_that "a waiver of a function the tree does not have: a warning naming it, the run goes on" \
	'[ $rc -eq 1 ] && grep -q "^fn.waivers:1: warning: waiver for local-cap-check: no function .__cpu_has_rgn. in the analysed tree$" wfn.err'


# 14. Outputs that cannot be written: exit 3, nothing half-written.
tc nodir -p good -q --db good.db -o /nonexistent-dir/x
check_that "-o /nonexistent-dir/x: exit 3, one line naming it" \
	'[ $rc -eq 3 ] && one_error nodir "/nonexistent-dir/x: cannot write: No such file or directory$" && no_tmp'
tc afternodir -p good --db good.db -o afternodir.txt
check_that "... the database is intact: the next run parses nothing" \
	'[ $rc -eq 1 ] && grep -q "^trapcheck: 0 TUs parsed" afternodir.err && cmp -s ref.txt afternodir.txt'
tc full -p good -q --db good.db -o /dev/full
check_that "-o /dev/full: exit 3, one line; /dev/full is still a device" \
	'[ $rc -eq 3 ] && one_error full "/dev/full: cannot write: No space left on device$" && [ -c /dev/full ] && no_tmp'
"$TRAPCHECK" -p good -q > /dev/full 2> stdoutfull.err
rc=$?
check_that "stdout on /dev/full: exit 3, one line" \
	'[ $rc -eq 3 ] && one_error stdoutfull "<stdout>: cannot write: No space left on device$"'
# Every mode's stdout is checked at the end: --fix's diff, the queries,
# --list-roots, --print-clang-commands (exit 3, one line, not 1 or 0).
stdout_full() {
	name=$1
	shift
	"$TRAPCHECK" "$@" > /dev/full 2> "sf-$name.err"
	rc=$?
	check_that "stdout on /dev/full, $name: exit 3, one line" \
		'[ $rc -eq 3 ] && one_error "sf-$name" "<stdout>: cannot write: No space left on device"'
}
stdout_full fix -p good --db good.db -q --fix
stdout_full callers callers cpu_has_hw_af -p good --db good.db -q
stdout_full path path do_page_fault cpu_has_hw_af -p good --db good.db -q
stdout_full list-roots -p good --db good.db -q --list-roots
stdout_full print-clang-commands -p good -q --print-clang-commands
# The other outputs, on a private /dev/full (a bug must not break the
# system's).
if mknod full c 1 7 2> /dev/null && ! echo x 2> /dev/null > full; then
	tc blfull -p good -q --write-baseline full
	check_that "--write-baseline to a full device: exit 3, the device kept" \
		'[ $rc -eq 3 ] && [ -c full ] && one_error blfull "full: "'
	rm -f full && mknod full c 1 7
	tc htmlfull -p good -q --html full
	check_that "--html to a full device: exit 3, the device kept" \
		'[ $rc -eq 3 ] && [ -c full ] && one_error htmlfull "full: "'
	rm -f full
else
	fail "--write-baseline/--html to a full device: cannot mknod a private /dev/full"
	fail "--html to a full device: cannot mknod a private /dev/full"
fi
# --graph on a full disk: no 0-byte .dot or .svg left, exit 3, one line.
mkdir gsmall
if mount -t tmpfs -o size=8k tmpfs gsmall 2> /dev/null; then
	how="an 8k tmpfs"
	tc gfull -p good -q --graph gsmall/g
	left=$(find gsmall -type f -size 0 | wc -l)
	umount gsmall
else
	how="ENOSPC from the first write (no tmpfs mount here)"
	LD_PRELOAD="$TOP/tests/fault/failwrite.so" \
	TRAPCHECK_FAILWRITE_PATH="$SCRATCH/gsmall" \
	TRAPCHECK_FAILWRITE=1:ENOSPC:sticky tc gfull -p good -q --graph gsmall/g
	left=$(find gsmall -type f -size 0 | wc -l)
fi
check_that "--graph on a full disk ($how): exit 3, one line, no empty .dot or .svg left" \
	'[ $rc -eq 3 ] && one_error gfull "gsmall/g/[^:]*: (write failed|cannot write)" &&
	 [ "$left" -eq 0 ]'
# File names that are not UTF-8: a header "caf\351.h" (Latin-1) with a
# hot read, in a tree under a directory named the same way. No field is
# dropped: JSON, the baseline and SARIF write the name with %XX for the
# byte (and SARIF's uri and SRCROOT percent-encoded).
nu=$(printf 'tree-\351')
tree "$nu"
printf '#include <asm/sysreg.h>\nstatic inline unsigned long caf_read(void)\n{\n\treturn read_sysreg_s(SYS_ID_AA64MMFR0_EL1);\n}\n' \
	> "$nu/include/linux/$(printf 'caf\351.h')"
sed -i "s|^#include <asm/pgtable.h>$|&\n#include <linux/$(printf 'caf\351.h')>|; s|^	if (!vmf->pte)$|	caf_read();\n&|" \
	"$nu/mm/memory.c"
tc nutf -p "$nu" -q --format=json -o nutf.json --write-baseline nutf.base
tc nutfs -p "$nu" -q --format=sarif -o nutf.sarif
python3 - nutf.json nutf.base nutf.sarif <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d['findings'] if x['function'] == 'caf_read']
assert len(f) == 1 and f[0]['file'] == 'include/linux/caf%E9.h', f
assert f[0]['fingerprint'].startswith('trapping-idreg-read:caf_read@include/linux/caf%E9.h:'), f[0]['fingerprint']
b = json.load(open(sys.argv[2]))
assert all(e.get('file') for e in b['findings']), b
assert any(e['file'] == 'include/linux/caf%E9.h' for e in b['findings']), b
s = json.load(open(sys.argv[3]))
run = s['runs'][0]
base = run['originalUriBaseIds']['SRCROOT']['uri']
assert base.startswith('file://') and base.endswith('/tree-%E9/'), base
uris = [r['locations'][0]['physicalLocation']['artifactLocation'].get('uri')
        for r in run['results']]
assert all(uris) and 'include/linux/caf%E9.h' in uris, uris
PY
py=$?
tc nutfb -p "$nu" -q --baseline nutf.base
check_that "a file and a tree named with a byte that is not UTF-8: JSON's file and fingerprint, the baseline's file, SARIF's uri and SRCROOT all kept (%E9); the baseline round trip is clean" \
	'[ $py -eq 0 ] && [ $rc -eq 0 ]'
# A header literally named "caf%E9.h" beside it: never the Latin-1 one's
# name or fingerprint ('%' then as %25), so a baseline of one does not
# hide the other.
printf '#include <asm/sysreg.h>\nstatic inline unsigned long pct_read(void)\n{\n\treturn read_sysreg_s(SYS_ID_AA64MMFR0_EL1);\n}\n' \
	> "$nu/include/linux/caf%E9.h"
sed -i "s|^#include <asm/pgtable.h>$|&\n#include <linux/caf%E9.h>|; s|^	if (!vmf->pte)$|	pct_read();\n&|" \
	"$nu/mm/memory.c"
tc pct -p "$nu" -q --format=json -o pct.json --baseline nutf.base
python3 - pct.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d['findings'] if x['function'] == 'pct_read']
assert len(f) == 1 and f[0]['file'] == 'include/linux/caf%25E9.h', f
assert 'caf%25E9.h' in f[0]['fingerprint'], f[0]['fingerprint']
PY
py=$?
check_that "... and a header literally named caf%E9.h: its own name (caf%25E9.h), new against the other's baseline (exit 1)" \
	'[ $py -eq 0 ] && [ $rc -eq 1 ]'
tc htmlnodir -p good -q --html /nonexistent-dir/x.html
check_that "--html /nonexistent-dir/x.html: exit 3 (output not written)" \
	'[ $rc -eq 3 ] && one_error htmlnodir "/nonexistent-dir/x.html: "'
mkdir rodir && echo old > rodir/out.txt
if chattr +i rodir/out.txt 2> /dev/null; then
	tc roout -p good -q -o rodir/out.txt
	check_that "-o over an immutable file: exit 3, the old file kept whole, no temporary" \
		'[ $rc -eq 3 ] && one_error roout "rodir/out.txt: " &&
		 [ "$(cat rodir/out.txt)" = old ] && no_tmp'
	chattr -i rodir/out.txt
	chattr +i rodir
	tc rodir -p good -q -o rodir/new.txt
	check_that "-o into an immutable directory: exit 3, nothing created" \
		'[ $rc -eq 3 ] && one_error rodir "rodir/new.txt: cannot write: " &&
		 [ ! -e rodir/new.txt ] && no_tmp'
	chattr -i rodir
else
	fail "-o over an immutable file: chattr +i does not work here"
	fail "-o into an immutable directory: chattr +i does not work here"
fi

# 15. SIGINT and SIGTERM mid-run: exit 130, one line, a usable database.
tree big
files=
i=0
while [ $i -lt 400 ]; do
	cp big/mm/memory.c big/mm/copy$i.c
	files="$files mm/copy$i.c"
	i=$((i + 1))
done
add_tu big $files
# wait_stored DB N PID: until DB holds more than N TUs (or PID is gone).
wait_stored() {
	python3 - "$@" <<'PY'
import os, sqlite3, sys, time
db, n, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for _ in range(1500):
    try:
        if sqlite3.connect(db).execute("SELECT count(*) FROM tu").fetchone()[0] > n:
            break
    except sqlite3.Error:
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        break
    time.sleep(0.02)
PY
}
for sig in INT TERM; do
	before=$( [ -e big.db ] && db_tus big.db || echo 0)
	"$TRAPCHECK" -p big -q -j2 --db big.db -o sig$sig.txt > sig$sig.out 2> sig$sig.err &
	pid=$!
	wait_stored big.db "$before" $pid
	kill -$sig $pid
	wait $pid
	rc=$?
	stored=$(db_tus big.db)
	check_that "SIG$sig mid-run: exit 130, one line saying what was stored" \
		'[ $rc -eq 130 ] && [ "$(wc -l < sig$sig.err)" = 1 ] &&
		 grep -Eq "^trapcheck: interrupted: [0-9]+ TUs parsed and stored in the database$" sig$sig.err'
	check_that "... no output file or temporary; the database is sound and kept more TUs ($before -> $stored)" \
		'[ ! -e sig$sig.txt ] && no_tmp && [ "$stored" -gt "$before" ]'
done
tc after -p big -j2 --db big.db -o after.txt
check_that "the next run uses the database ($stored TUs stored) and completes" \
	'[ $rc -eq 1 ] && grep -Eq "^trapcheck: [0-9]+ TUs parsed, ([0-9]+) from the database$" after.err &&
	 [ "$(sed -n "s/^trapcheck: [0-9]* TUs parsed, \([0-9]*\) from the database$/\1/p" after.err)" -ge "$stored" ]'
"$TRAPCHECK" -p big -q -j2 -o clean.txt 2> /dev/null
check "... with the findings of a run without a database" cmp -s clean.txt after.txt

# 16. --apply on a read-only tree.
tree ro
(cd ro && find . -type f | sort | xargs md5sum) > ro.md5
if chattr -R +i ro/arch ro/drivers ro/include ro/mm 2> /dev/null; then
	tc apply -p ro --apply
	chattr -R -i ro
	check_that "--apply on an immutable tree: nothing changed, no temporaries" \
		'(cd ro && md5sum -c --quiet ../ro.md5) && no_tmp && { [ $rc -eq 1 ] || [ $rc -eq 3 ]; }'
	check_that "... each unapplied fix says which file and why" \
		'cat apply.out apply.err | grep -Eq ": note: fix not applied: arch/arm64/include/asm/cpufeature.h: Operation not permitted$"'
	check_that "... and stderr does not claim fixes were applied" \
		'! grep -Eq "^trapcheck: [1-9][0-9]* fix(es)? applied$" apply.err'
else
	fail "--apply on a read-only tree: chattr +i does not work here"
fi

# 17. Patch paths with .. or absolute in --diff. Patch lint only reads
# the patch: it must not write anywhere, in the tree or outside it.
for p in ../escape.h "$SCRATCH/abs.h"; do
	case $p in
	/*) hdr=$p ;;
	*) hdr=b/$p ;;
	esac
	cat > evil.patch <<EOF
--- $hdr
+++ $hdr
@@ -130,3 +130,4 @@ static inline bool cpu_has_hw_af(void)
 		return false;
 
+	mmfr1 = read_cpuid(ID_AA64PFR0_EL1);
 	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);
EOF
	(cd good && find . -type f | sort | xargs md5sum) > good.md5
	tc evil -p good --diff evil.patch --apply
	check_that "--diff with +++ $hdr: exit 2, one line naming the patch line and the path" \
		'[ $rc -eq 2 ] && one_error evil "evil.patch:2: a path outside the tree: $p\$"'
	check_that "... no file written, the tree unchanged, no findings printed" \
		'[ ! -e escape.h ] && [ ! -e abs.h ] && [ ! -s evil.out ] &&
		 (cd good && md5sum -c --quiet ../good.md5)'
done

# 18. A parser that crashes or hangs costs its TU only (TRAPCHECK_FAULT is
# the test hook of docs/reliability.md: the parser process of a TU whose
# path contains PART raises the signal, aborts or never returns).
tc clean -p good -j2 -q
tree nomem
python3 - nomem <<'PY'
import json, sys
path = sys.argv[1] + '/compile_commands.json'
d = [e for e in json.load(open(path)) if e['file'] != 'mm/memory.c']
json.dump(d, open(path, 'w'), indent=1)
PY
tc nomem -p nomem -j2 -q
for f in segv abort; do
	case $f in
	segv) what='parser crashed \(signal 11: Segmentation fault\)' ;;
	abort) what='parser crashed \(signal 6: Aborted\)' ;;
	esac
	TRAPCHECK_FAULT=$f:mm/memory.c tc crash$f -p good -j2
	check_that "TRAPCHECK_FAULT=$f in mm/memory.c: exit 4 (7 of 8 analysed), one note naming the TU, why, and how to reproduce" \
		'[ $rc -eq 4 ] && [ "$(grep -c "note: not analysed" crash$f.err)" = 1 ] &&
		 grep -Eq "^mm/memory.c: note: not analysed: $what; reproduce: cd [^ ]+/good && clang -fsyntax-only .* [^ ]+/good/mm/memory.c$" crash$f.err'
	check_that "... every other TU analysed (7 of 8), the findings those 7 give without mm/memory.c" \
		'grep -q "^trapcheck: 7 TUs analysed (1 with errors, 1 skipped)" crash$f.err &&
		 grep -q ": warning: " crash$f.out && cmp -s nomem.out crash$f.out'
done
cmd=$(sed -n 's/^mm\/memory.c: note: not analysed: .*; reproduce: //p' crashsegv.err)
check "... the reproduce command is a working shell command (clang parses the TU)" \
	sh -c "$cmd > repro.out 2>&1"
start=$(date +%s)
TRAPCHECK_FAULT=hang:drivers/char/random.c tc hang -p good -j2 --tu-timeout 2
took=$(( $(date +%s) - start ))
check_that "TRAPCHECK_FAULT=hang with --tu-timeout 2: the run ends (${took}s, exit 4), the TU named as timed out" \
	'[ $rc -eq 4 ] && [ $took -lt 60 ] &&
	 grep -Eq "^drivers/char/random.c: note: not analysed: timed out after 2 s \(parser killed\); reproduce: cd " hang.err &&
	 grep -q "^trapcheck: 7 TUs analysed (1 with errors" hang.err'
TRAPCHECK_FAULT=segv:.c tc allcrash -p good -j2
check_that "every parser crashing: fails closed (exit 4, nothing analysed), each of the 8 TUs named, no finding invented" \
	'[ $rc -eq 4 ] && [ "$(grep -c "note: not analysed: parser crashed" allcrash.err)" = 8 ] &&
	 grep -q "^trapcheck: error: 0 of 8 TUs analysed (nothing analysed; --min-analysed 90%): the findings would be incomplete$" allcrash.err &&
	 [ ! -s allcrash.out ]'
TRAPCHECK_FAULT=segv:.c tc allcrash0 -p good -j2 --min-analysed 0
check "... even with --min-analysed 0: a run that analysed nothing never passes" [ $rc -eq 4 ]
rm -f crash.db
TRAPCHECK_FAULT=segv:mm/memory.c tc crashdb -p good -j2 --db crash.db
check_that "with --db: the crashed TU is not stored (7 of 8 TUs stored)" \
	'[ $rc -eq 4 ] && [ "$(db_tus crash.db)" = 7 ]'
tc crashdb2 -p good -j2 --db crash.db
check_that "... the next run parses just that TU and finds what a clean run finds" \
	'[ $rc -eq 1 ] && grep -q "^trapcheck: 1 TUs parsed, 7 from the database" crashdb2.err &&
	 cmp -s clean.out crashdb2.out'
tree warn
python3 - warn <<'PY'
import json, sys
path = sys.argv[1] + '/compile_commands.json'
d = json.load(open(path))
for e in d:
    if 'arguments' in e and e['file'].endswith('.c'):
        e['arguments'].insert(1, '-fbogus-flag-for-trapcheck')
json.dump(d, open(path, 'w'), indent=1)
PY
tc warn -p warn -j2 -q
check_that "an unknown flag in every TU, parsed by two processes: warned exactly once" \
	'[ "$(grep -c "unknown compiler flag .-fbogus-flag-for-trapcheck." warn.err)" = 1 ]'

# 19. Real inputs, no hook: a 20,000-term "&&" chain is walked to a depth
# of 512 (a warning says so, the call under it is still found); at
# 200,000 terms libclang itself crashes (so does plain clang): that TU is
# named with a command that reproduces the crash, the rest is analysed.
chain() {
	tree "$1"
	python3 - "$1" "$2" <<'PY'
import json, sys
tree, n = sys.argv[1], int(sys.argv[2])
open(tree + '/mm/deep.c', 'w').write(
    'int x;\nvoid deep_callee(void);\nvoid deepf(void)\n{\n\tif (' +
    ' && '.join('x' for _ in range(n)) + ')\n\t\tdeep_callee();\n}\n')
path = tree + '/compile_commands.json'
d = json.load(open(path))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
e = dict(base, file='mm/deep.c')
e['arguments'] = [a.replace('mm/memory', 'mm/deep') for a in base['arguments']]
d.append(e)
json.dump(d, open(path, 'w'), indent=1)
PY
}
chain deep20k 20000
tc deep20k -p deep20k -j2 -q --format=json -o deep20k.json
check_that "a 20,000-term && chain: analysed, one warning naming the TU, the function and the depth" \
	'[ $rc -eq 1 ] && [ "$(grep -c "nested deeper" deep20k.err)" = 1 ] &&
	 grep -q "^mm/deep.c: warning: statements nested deeper than 512 levels in deepf(): the deeper ones not walked$" deep20k.err &&
	 python3 -c "import json,sys; s=json.load(open(\"deep20k.json\"))[\"summary\"]; sys.exit(not (s[\"tus_analysed\"] == 9 and s[\"tus_with_errors\"] == 0))"'
"$TRAPCHECK" -p good -j2 -q --format=json -o clean.json
check_that "... the call under the chain is in the graph (one edge more than the clean tree)" \
	'python3 -c "import json,sys; e=lambda f: json.load(open(f))[\"summary\"][\"edges\"]; sys.exit(e(\"deep20k.json\") != e(\"clean.json\") + 1)"'
chain deep200k 200000
tc deep200k -p deep200k -j2
check_that "a 200,000-term && chain crashes libclang: the TU named, the other 8 analysed (exit 4), the findings of a clean run" \
	'[ $rc -eq 4 ] && grep -Eq "^mm/deep.c: note: not analysed: parser crashed \(signal 11: Segmentation fault\); reproduce: cd " deep200k.err &&
	 grep -q "^trapcheck: 8 TUs analysed (1 with errors" deep200k.err && cmp -s clean.out deep200k.out'
cmd=$(sed -n 's/^mm\/deep.c: note: not analysed: .*; reproduce: //p' deep200k.err)
sh -c "$cmd" > /dev/null 2>&1
rc=$?
check_that "... and its reproduce command crashes plain clang too (status $rc)" '[ $rc -gt 128 ]'
"$TRAPCHECK" -p deep200k -j1 --no-isolate > /dev/null 2>&1
rc=$?
check_that "... which --no-isolate (threads) does not survive: why isolation is the default (status $rc)" \
	'[ $rc -gt 128 ]'

# 20. Compile commands are parsed, never run: shell syntax in "command"
# and in "arguments" creates nothing, neither in trapcheck nor when the
# printed reproduce commands are run by a shell.
tree shell
python3 - shell "$SCRATCH" <<'PY'
import json, shlex, sys
tree, scratch = sys.argv[1], sys.argv[2]
path = tree + '/compile_commands.json'
d = json.load(open(path))
done = set()
for e in d:
    # Either form in the fixture: "arguments" or "command".
    argv = e.pop('arguments', None) or shlex.split(e.pop('command'))
    if e['file'] == 'mm/memory.c':
        e['arguments'] = argv[:1] + [
            '-DX=$(touch %s/pwned1)' % scratch,
            '-DY=`touch %s/pwned2`' % scratch] + argv[1:]
        done.add(e['file'])
    elif e['file'] == 'drivers/char/random.c':
        e['command'] = ' '.join(argv) + ' ; touch %s/pwned3' % scratch
        done.add(e['file'])
    else:
        e['arguments'] = argv
json.dump(d, open(path, 'w'), indent=1)
sys.exit(len(done) != 2)
PY
check "the shell syntax is in both entries (arguments and command)" [ $? -eq 0 ]
tc shell -p shell -j2
"$TRAPCHECK" -p shell --print-clang-commands > shell.cmds 2> /dev/null
(cd shell && while read -r c; do sh -c "$c" > /dev/null 2>&1; done < ../shell.cmds)
check_that "shell syntax in compile commands: nothing run (no pwned file), the TUs still analysed" \
	'[ $rc -eq 1 ] && [ ! -e pwned1 ] && [ ! -e pwned2 ] && [ ! -e pwned3 ] &&
	 grep -q " TUs analysed (" shell.err && [ "$(wc -l < shell.cmds)" -ge 7 ]'

# 21. trapcheck check with a usage error: the usage, exit 2, never an abort
# (it freed its argument vector from the middle: free(): invalid pointer).
"$TRAPCHECK" check --db="$SCRATCH/u.db" -v > cu1.out 2> cu1.err
rc1=$?
(cd "$SCRATCH" && "$TRAPCHECK" check -v foo.c) > cu2.out 2> cu2.err
rc2=$?
check_that "trapcheck check --db=F -v and check -v foo.c: exit 2, one usage line each, no abort" \
	'[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] &&
	 [ "$(wc -l < cu1.err)" -eq 1 ] && [ "$(wc -l < cu2.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: check: usage: trapcheck check --db=FILE" cu1.err'
# Two source files, -include with nothing after it, --db= with no file:
# the usage and what is wrong, one line, exit 2; no database made.
tc cu3 check --db="$SCRATCH/u.db" -O2 a.c -I. b.c
tc_rc3=$rc
tc cu4 check --db="$SCRATCH/u.db" a.c -include
tc_rc4=$rc
tc cu5 check --db= a.c
tc_rc5=$rc
check_that "check with two .c files: exit 2, one usage line naming both" \
	'[ $tc_rc3 -eq 2 ] && one_error cu3 "check: usage: trapcheck check --db=FILE .*: 2 source files: .a\.c., .b\.c.$"'
check_that "check with -include last, without its file: exit 2, one usage line naming it" \
	'[ $tc_rc4 -eq 2 ] && one_error cu4 "check: usage: .*: .-include. needs an argument$"'
# Files the parser would read without end, from a compile command
# (-include /dev/zero) or a patch (#include "/dev/zero", or a quoted path
# that leads there): refused at once, before the parser reads a byte.
tree zinc
python3 - zinc/compile_commands.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d:
    if e['file'] == 'mm/memory.c':
        i = e['arguments'].index('-c')
        e['arguments'][i:i] = ['-include', '/dev/zero']
json.dump(d, open(sys.argv[1], 'w'), indent=1)
PY
tc zinc -p zinc --min-analysed 0 --tu-timeout 20
check_that "-include /dev/zero in a compile command: that TU not analysed, saying why; the others are" \
	'[ $rc -eq 1 ] && grep -q "^mm/memory.c: note: not analysed: /dev/zero: a device or socket, not a regular file (-include)$" zinc.err'
# A tree's own source that includes /dev/zero (not a patch: nothing reads
# the file before the parser does): the parser's memory is bounded
# (before: 4.4 GB in 28 s, until --tu-timeout).
tree zsrc
sed -i '1i #include "/dev/zero"' zsrc/mm/memory.c
start=$(date +%s)
tc zsrc -p zsrc --min-analysed 0 --tu-timeout 120 --tu-memory 300
took=$(( $(date +%s) - start ))
check_that "a tree's #include \"/dev/zero\" with --tu-memory 300: that TU not analysed, saying why, in $took s (< 60); the others are" \
	'[ $rc -eq 1 ] && [ $took -lt 60 ] &&
	 grep -q "^mm/memory.c: note: not analysed: used more than 300 MiB of memory (parser killed; --tu-memory); reproduce: " zsrc.err'
tree zpatch
for inc in /dev/zero ../../../../../../../../../../dev/zero; do
	{ printf -- '--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,4 @@\n+#include "%s"\n' "$inc"
	  head -n 3 zpatch/mm/memory.c | sed 's/^/ /'; } > zero.patch
	tc zpatch -p zpatch -q --tu-timeout 20 --diff zero.patch
	check_that "a patch adding #include \"$inc\": exit 2 at once, one line naming the patch and the line" \
		'[ $rc -eq 2 ] && one_error zpatch "zero.patch: mm/memory.c:1: #include of .*dev/zero: a device or socket, not a regular file"'
done
# A writable database in a directory the run cannot write (before:
# "not a trapcheck database (not SQLite, or damaged): attempt to write a
# readonly database"): read, a note saying why nothing is stored. Root
# writes anywhere: the capability that lets it is dropped (setpriv).
mkdir dbdir
"$TRAPCHECK" -p good -q --db dbdir/c.db -o dbdir-rw.txt 2> /dev/null
chmod 555 dbdir
if command -v setpriv > /dev/null &&
   setpriv --bounding-set=-dac_override,-dac_read_search true 2> /dev/null; then
	asuser="setpriv --bounding-set=-dac_override,-dac_read_search"
else
	asuser=
fi
$asuser "$TRAPCHECK" -p good --db dbdir/c.db -o dbdir-ro.txt \
	> dbdir.out 2> dbdir.err
rc=$?
chmod 755 dbdir
check_that "a writable database in a read-only directory: read (exit 1, the clean findings), a note, not 'damaged'" \
	'[ $rc -eq 1 ] && cmp -s dbdir-rw.txt dbdir-ro.txt &&
	 grep -q "^dbdir/c.db: note: cannot write the database (its directory is read only: Permission denied)" dbdir.err &&
	 ! grep -q damaged dbdir.err'
# A tree's .trapcheck that is a symbolic link out of the tree: not read
# (before: its first line, an environment variable, in the error).
tree envcfg
ln -s /proc/self/environ envcfg/.trapcheck
TRAPCHECK_SECRET=hunter2 tc envcfg -p envcfg
check_that "a .trapcheck linking to /proc/self/environ: exit 2, one line, nothing of the environment" \
	'[ $rc -eq 2 ] && one_error envcfg "envcfg/.trapcheck: a symbolic link out of its tree: not read$" &&
	 ! grep -q "hunter2\|PATH=" envcfg.err envcfg.out'
# A TU whose name holds newlines: in text, no line of its own (before:
# "fake.c:1:1: warning: INJECTED" lines forged in the output).
tree nlname
python3 - nlname <<'PY'
import json, os, sys
t = sys.argv[1]
old = 'drivers/char/rng_variants.c'
new = 'drivers/char/evil\nfake.c:1:1: warning: INJECTED [trapping-idreg-read]\nx.c'
os.rename(os.path.join(t, old), os.path.join(t, new))
d = json.load(open(os.path.join(t, 'compile_commands.json')))
for e in d:
    if e['file'] == old:
        e['file'] = new
        if 'command' in e:
            e['command'] = e['command'].replace(old, "'" + new + "'")
        if 'arguments' in e:
            e['arguments'] = [new if a == old else a for a in e['arguments']]
json.dump(d, open(os.path.join(t, 'compile_commands.json'), 'w'))
PY
tc nlname -p nlname --roots "$FX/variants.roots"
check_that "a file name with newlines: no forged line, the name written with \\x0a" \
	'[ $rc -eq 1 ] && ! grep -q "^fake.c" nlname.out &&
	 grep -q "^drivers/char/evil\\\\x0afake.c:1:1: warning: INJECTED \[trapping-idreg-read\]\\\\x0ax.c:[0-9]*:[0-9]*: warning: " nlname.out'
# -o naming the run's own database or compile database (before: replaced
# by the report, the database lost).
cp good.db odb.db
tc odb -p good -q --db odb.db -o odb.db
check_that "-o naming the --db file: exit 2, one line, the database still read by report" \
	'[ $rc -eq 2 ] && one_error odb "odb.db: -o names the run.s facts database \(--db\): not overwritten$" &&
	 "$TRAPCHECK" report -q --db odb.db -o /dev/null; [ $? -eq 1 ]'
tree ocdb
cp ocdb/compile_commands.json ocdb.before
tc ocdb -p ocdb -q -o ocdb/compile_commands.json
check_that "-o naming the compile database: exit 2, one line, the file unchanged" \
	'[ $rc -eq 2 ] && one_error ocdb "ocdb/compile_commands.json: -o names the run.s compile database: not overwritten$" &&
	 cmp -s ocdb/compile_commands.json ocdb.before'
# A reader that closed the pipe: exit 3 and why (before: SIGPIPE, 141, nothing said).
{ "$TRAPCHECK" -p good 2> pipe.err; echo $? > pipe.rc; } |
	(exec 0<&-; sleep 1)
check_that "stdout a pipe its reader closed: exit 3, one line (Broken pipe)" \
	'[ "$(cat pipe.rc)" -eq 3 ] && one_error pipe "<stdout>: cannot write: Broken pipe$"'
# A clean database on a read-only mount: read, not called damaged (SQLite
# cannot make the WAL's shared-memory file there).
mkdir romnt
if mount -t tmpfs -o size=8m tmpfs romnt 2> /dev/null; then
	"$TRAPCHECK" -p good -q --db romnt/f.db -o rw.txt 2> /dev/null
	mount -o remount,ro romnt
	tc romrun -p good --db romnt/f.db -o ro.txt
	rc1=$rc
	tc romreport report --db romnt/f.db -q -o roreport.txt
	umount romnt
	check_that "a database on a read-only mount: a run reads it (a note says nothing is stored), report reads it, the findings a clean run's" \
		'[ $rc1 -eq 1 ] && [ $rc -eq 1 ] && cmp -s rw.txt ro.txt &&
		 grep -q "romnt/f.db: note: cannot write the database (Read-only file system)" romrun.err &&
		 ! grep -q "damaged" romrun.err romreport.err && [ -s roreport.txt ]'
else
	fail "a database on a read-only mount: cannot mount a tmpfs here"
fi
tc nodb report --db nowhere.db
check_that "report --db of a database that is not there: exit 2, one line saying how to make it; not created" \
	'[ $rc -eq 2 ] && one_error nodb "nowhere.db: cannot read the database: No such file or directory \(a run with -p TREE --db nowhere.db makes it\)$" && [ ! -e nowhere.db ]'
"$TRAPCHECK" check --help > chelp.out 2> chelp.err
rc=$?
check_that "trapcheck check --help alone: its usage on stdout, exit 0" \
	'[ $rc -eq 0 ] && grep -q "^usage: trapcheck check --db=FILE" chelp.out && ! [ -s chelp.err ]'
check_that "check --db= (no file): exit 2, one usage line saying so" \
	'[ $tc_rc5 -eq 2 ] && one_error cu5 "check: usage: .*: --db= names no file$"'
check "... and no database was made" [ ! -e "$SCRATCH/u.db" ]

# 22. trapcheck check on a file that is not there: exit 2, one line, and
# no phantom TU stored (a later report would count it as not analysed).
tree ck
rm -f ck.db
(cd ck && "$TRAPCHECK" check --db="$SCRATCH/ck.db" -D__aarch64__ -Iinclude \
	mm/nothere.c) > ckmiss.out 2> ckmiss.err
rc=$?
check_that "check on a missing file: exit 2, one line naming it, nothing stored" \
	'[ $rc -eq 2 ] && one_error ckmiss "mm/nothere.c: cannot read: No such file or directory$" &&
	 { [ ! -e ck.db ] || [ "$(db_tus ck.db)" -eq 0 ]; }'
# report --fix without -p: refused before anything is done.
"$TRAPCHECK" -p good -q --db rf.db -o /dev/null
tc repfix report --db rf.db --fix
check_that "report --fix without -p: exit 2, one line saying it needs -p TREE" \
	'[ $rc -eq 2 ] && one_error repfix "--fix, --fix-dir, --apply and --emit-cocci .* need -p TREE"'

done_testing
