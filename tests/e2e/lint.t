#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --diff reads code, not hunk headers: the patch is applied in memory and
# the patched tree analysed by the same rules. On a copy of the fixture
# tree with cpu_has_hw_af() fixed ("arm64: Avoid repeated AA64MMFR1_EL1
# register read on pagefault path"), the patch that puts the read back is
# reported from page-fault whether it was made with plain diff -u (no
# function in its hunk headers, no a/ b/), diff -up or git format-patch;
# the reverse patch, on the tree that has the read, reports nothing; a
# patch that adds a new hot function with a trapping read is reported; a
# patch that does not apply is refused.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
cd "$SCRATCH" || exit 1

CF=arch/arm64/include/asm/cpufeature.h
cp -a "$FX" fixed
(cd fixed && patch -s -p1 < "$FX/expected-fixes/0001-arm64-cpufeature-avoid-trapping-ID-register-read-in-.patch")
check "the fixed tree: cpu_has_hw_af() reads the sanitised copy" \
	grep -q 'read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1)' "fixed/$CF"
cp -a fixed regressed
cp "$FX/$CF" "regressed/$CF"

# lint NAME PATCH TREE: --diff PATCH on TREE, exit status in rc
lint() {
	"$TRAPCHECK" -p "$3" $ROOTS --diff "$2" --format=json -o "$1.json" \
		2> "$1.err"
	rc=$?
}
# has_hw_af NAME: the cpu_has_hw_af() read from page-fault, chain and
# estimate
has_hw_af() {
	python3 - "$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [f for f in d['findings'] if f['function'] == 'cpu_has_hw_af' and
        f['rule'] == 'trapping-idreg-read']
assert len(hits) == 1, d['findings']
f = hits[0]
assert f['root'] == 'page-fault' and f['chain'][0]['function'] == 'handle_mm_fault', f
assert f['chain'][-1]['function'] == 'cpu_has_hw_af', f['chain']
assert f['estimate']['value'] > 0, f['estimate']
assert len(d['findings']) == 1, [g['function'] for g in d['findings']]
PY
}

(cd fixed && diff -u "$CF" "../regressed/$CF") > outside.patch
lint outside outside.patch fixed
check_that "a +++ path that leaves the tree: exit 2, one line" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: outside.patch:2: a path outside the tree: ../regressed/$CF" outside.err'
diff -u "fixed/$CF" "regressed/$CF" > plain.patch
check "plain diff -u: no function in the hunk header, paths with a directory" \
	sh -c "grep -q '^@@ -[0-9,]* +[0-9,]* @@$' plain.patch && grep -q '^+++ regressed/$CF' plain.patch"
lint plain plain.patch fixed
check_that "plain diff -u: the read put back is reported, from page-fault, with a non-zero estimate" \
	'[ $rc -eq 1 ] && has_hw_af plain'
"$TRAPCHECK" -p fixed $ROOTS --diff - --format=json -o stdin.json \
	< plain.patch 2> stdin.err
rc=$?
check_that "--diff - (the patch on stdin, as a bot pipes it): the same finding" \
	'[ $rc -eq 1 ] && has_hw_af stdin'
echo 'not a patch' | "$TRAPCHECK" -p fixed $ROOTS --diff - > none.out 2> none.err
rc=$?
check_that "--diff - with no change to any file: exit 2, one line (as git apply)" \
	'[ $rc -eq 2 ] && [ "$(cat none.err)" = "trapcheck: error: <stdin>: no change to any file in the patch" ]'
# With a facts database: a change inside a header's function bodies
# parses only the TUs that own those bodies, not every includer; a macro
# added that nothing names parses no more (lintmacro.t: macro changes).
"$TRAPCHECK" -p fixed $ROOTS --db warm.db -q -o /dev/null 2> /dev/null
"$TRAPCHECK" -p fixed $ROOTS --db warm.db --diff plain.patch --format=json \
	-o warm.json 2> warm.err
rc=$?
includers=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(DISTINCT tu) FROM include WHERE file = ?', (sys.argv[2],)).fetchone()[0])" warm.db "$CF")
parsed=$(sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' warm.err)
body_parsed=$parsed
check_that "--diff of a body-only header change on a warm database: the same finding, $parsed of the $includers includers parsed" \
	'[ $rc -eq 1 ] && has_hw_af warm && [ -n "$parsed" ] &&
	 [ "$parsed" -ge 1 ] && [ "$parsed" -lt "$includers" ]'
sed 's/^+\(.*read_cpuid(ID_AA64MMFR1_EL1);\)$/+\1\n+#define HW_AF_CHANGED 1/' plain.patch |
	sed 's/^@@ -\([0-9]*\),11 +\([0-9]*\),7 @@/@@ -\1,11 +\2,8 @@/' > macro.patch
"$TRAPCHECK" -p fixed $ROOTS --db warm.db --diff macro.patch --format=json \
	-o macro.json 2> macro.err
rc=$?
parsed=$(sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' macro.err)
check_that "... a #define added to the header that nothing names: the body owners parsed ($parsed), as for the body alone, the same finding" \
	'grep -q "^+#define HW_AF_CHANGED 1" macro.patch && [ $rc -eq 1 ] && has_hw_af macro &&
	 [ "$parsed" = "$body_parsed" ] &&
	 grep -q "^trapcheck: a change to macros only (HW_AF_CHANGED): 0 of the $includers TUs that include it parsed again$" macro.err'
check_that "... neither reads the stored link (TUs were parsed)" \
	'! grep -q "linked as stored" warm.err && ! grep -q "linked as stored" macro.err'
# A patch no TU reads (a new file without a compile command): every key
# is as stored, so the patched tree's graph is the stored link.
mkdir -p nf/b/drivers/char
echo 'int trapcheck_unbuilt(void) { return 0; }' > nf/b/drivers/char/unbuilt.c
(cd nf && diff -u /dev/null b/drivers/char/unbuilt.c) > newfile.patch
"$TRAPCHECK" -p fixed $ROOTS --db warm.db --diff newfile.patch \
	--format=json -o newfile.json 2> newfile.err
rc=$?
"$TRAPCHECK" -p fixed $ROOTS --diff newfile.patch --format=json \
	-o newfile-nodb.json 2> /dev/null
check_that "a new file no TU reads, on a warm database: the stored link, 0 TUs parsed, exit 0, the JSON of a run without a database (exit $rc)" \
	'[ $rc -eq 0 ] &&
	 grep -q "^trapcheck: 0 TUs parsed, [0-9]* from the database, linked as stored$" newfile.err &&
	 grep -q "^drivers/char/unbuilt.c: note: a new file: not analysed" newfile.err &&
	 python3 -c "import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(not all(a[k] == b[k] for k in (\"findings\", \"low_confidence\")))" newfile.json newfile-nodb.json'
# A macro that nothing names added to a header without function bodies
# (one with bodies has their owners parsed: the bodies' lines move): no
# TU's facts can change, so no TU is parsed and the link is read.
SH=include/linux/stringify.h
mkdir -p mo/a/${SH%/*} mo/b/${SH%/*}
cp fixed/$SH mo/a/$SH
sed 's/^#define __LINUX_STRINGIFY_H$/&\n#define TRAPCHECK_UNNAMED 1/' fixed/$SH > mo/b/$SH
(cd mo && diff -u a/$SH b/$SH) > macroonly.patch
shincluders=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(DISTINCT tu) FROM include WHERE file = ?', (sys.argv[2],)).fetchone()[0])" warm.db "$SH")
"$TRAPCHECK" -p fixed $ROOTS --db warm.db --diff macroonly.patch \
	--format=json -o macroonly.json 2> macroonly.err
rc=$?
"$TRAPCHECK" -p fixed $ROOTS --diff macroonly.patch --format=json \
	-o macroonly-nodb.json 2> /dev/null
check_that "a macro added that nothing names, no body changed: 0 TUs parsed, the stored link, the JSON of a run without a database (exit $rc)" \
	'grep -q "^+#define TRAPCHECK_UNNAMED 1" macroonly.patch && [ $rc -eq 0 ] &&
	 [ "$shincluders" -gt 0 ] &&
	 grep -q "^trapcheck: a change to macros only (TRAPCHECK_UNNAMED): 0 of the $shincluders TUs that include it parsed again$" macroonly.err &&
	 grep -q "^trapcheck: 0 TUs parsed, [0-9]* from the database, linked as stored$" macroonly.err &&
	 python3 -c "import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(not all(a[k] == b[k] for k in (\"findings\", \"low_confidence\")))" macroonly.json macroonly-nodb.json'
# The patched header as unsaved text: later TUs still get the bodies an
# earlier one walked blanked (in the patched text), as a cold run does.
TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" -p fixed $ROOTS --db warm.db -j1 \
	--diff macro.patch --format=json -o mskip.json 2> mskip.err
rc_skip=$?
"$TRAPCHECK" -p fixed $ROOTS --db warm.db -j1 --parse-every-body \
	--diff macro.patch --format=json -o mevery.json 2> /dev/null
rc_every=$?
blanked=$(sed -n 's/^bodyskip: \([0-9]*\) TUs blanked, \([0-9]*\) parsed again.*/\1 \2/p' mskip.err)
check_that "... with header bodies blanked in the patched text ($blanked: TUs, parsed again): the JSON of --parse-every-body" \
	'[ "${blanked%% *}" -gt 0 ] && [ "${blanked#* }" = 0 ] &&
	 [ $rc_skip -eq 1 ] && [ $rc_every -eq 1 ] && cmp mskip.json mevery.json'
diff -up "fixed/$CF" "regressed/$CF" > up.patch
lint up up.patch fixed
check_that "diff -up (function in the hunk header): the same finding" \
	'[ $rc -eq 1 ] && has_hw_af up'
mkdir repo && cp -a fixed/. repo/ && (
	cd repo && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@t commit -qm base &&
	cp "../regressed/$CF" "$CF" &&
	git -c user.name=t -c user.email=t@t commit -qam "arm64: read it again" &&
	git format-patch -q -1 -o ../fp) > /dev/null 2>&1
lint fp fp/0001-*.patch fixed
check_that "git format-patch: the same finding" \
	'[ $rc -eq 1 ] && has_hw_af fp'
diff -up "regressed/$CF" "fixed/$CF" > reverse.patch
lint reverse reverse.patch regressed
check_that "the reverse patch (the fix) on the tree with the read: nothing reported, exit 0" \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; sys.exit(len(json.load(open(\"reverse.json\"))[\"findings\"]))"'

# A new function, hot through a new call in a hot one.
cp -a fixed newfn
python3 - newfn/mm/memory.c <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
a = '\tpte_t entry = vmf->orig_pte;\n'
assert a in s
s = s.replace(a, a + '\n\tnew_probe();\n', 1)
i = s.index('void set_pte_range(')
s = s[:i] + ('static noinline unsigned long new_probe(void)\n{\n'
             '\treturn read_sysreg_s(SYS_ID_AA64ISAR1_EL1);\n}\n\n') + s[i:]
open(p, 'w').write(s)
PY
diff -u fixed/mm/memory.c newfn/mm/memory.c > newfn.patch
lint newfn newfn.patch fixed
python3 - newfn.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d['findings'] if f['function'] == 'new_probe']
assert len(f) == 1 and f[0]['root'] == 'page-fault', d['findings']
assert [s['function'] for s in f[0]['chain']][-2:] == ['set_pte_range', 'new_probe']
PY
py=$?
check_that "a patch adding a new function with a trapping read, called on a hot path: reported" \
	'[ $rc -eq 1 ] && [ $py -eq 0 ]'

# The same with a database of the tree: the patched .c itself is parsed
# again (its facts in the database are of the unpatched file), not only
# the TUs that include a patched header.
"$TRAPCHECK" -p fixed $ROOTS --db fixed.db -q > /dev/null 2>&1
"$TRAPCHECK" -p fixed $ROOTS --db fixed.db --diff newfn.patch --format=json \
	-o newfn-db.json 2> newfn-db.err
rc=$?
python3 - newfn-db.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [f['function'] for f in d['findings']] == ['new_probe'], d['findings']
PY
py=$?
check_that "... with --db: the patched .c is parsed again and the finding reported" \
	'[ $rc -eq 1 ] && [ $py -eq 0 ] &&
	 grep -q "^trapcheck: 1 TUs parsed, [0-9]* from the database" newfn-db.err'

# A context line that the file does not have.
sed 's/^ \(.*\)return false;$/ \1return maybe;/' up.patch > stale.patch
check "the stale patch differs" sh -c "! cmp -s up.patch stale.patch"
lint stale stale.patch fixed
check_that "a patch that does not apply: exit 2, one line naming the patch line and the file" \
	'[ $rc -eq 2 ] && [ "$(wc -l < stale.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: stale.patch:[0-9]*: the hunk does not apply to $CF$" stale.err'
# The patch linted against the tree that already has it (git diff |
# trapcheck --diff - on one's own dirty tree): said, with what to do.
lint applied up.patch regressed
check_that "a patch the tree already has: exit 2, one line saying so and what to do" \
	'[ $rc -eq 2 ] && [ "$(wc -l < applied.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: up.patch:[0-9]*: the tree already has this change of $CF: --diff lints a patch against the tree before it (git stash first, or commit it and use --diff-range HEAD~1..HEAD)$" applied.err'
# git's renames and copies (format-patch -M -C), with and without edits,
# and mode changes. The header that has the read is renamed (its
# includers follow) and regressed in the same patch: reported at its new
# name. A pure rename (no hunk) changes nothing. Before, a renamed file
# was "no file of the tree".
rm -rf mv && mkdir mv && cp -a fixed/. mv/ && (
	cd mv && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@t commit -qm base &&
	cp -a . ../mv0 &&
	chmod +x mm/memory.c && git add mm/memory.c &&
	git -c user.name=t -c user.email=t@t commit -qm "mm: mode" &&
	git format-patch -q -1 -o ../mode && cp -a . ../mv1 &&
	cp mm/filemap.c mm/filemap_copy.c && echo '/* copied */' >> mm/filemap_copy.c &&
	git add -A && git -c user.name=t -c user.email=t@t commit -qm "mm: copy" &&
	git format-patch -q -C -C -1 -o ../copy && cp -a . ../mv2 &&
	git mv "$CF" arch/arm64/include/asm/cpufeature_moved.h &&
	cp "../regressed/$CF" arch/arm64/include/asm/cpufeature_moved.h &&
	grep -rl 'asm/cpufeature\.h>' --include='*.[ch]' . | xargs sed -i \
		's|<asm/cpufeature\.h>|<asm/cpufeature_moved.h>|' &&
	git add -A &&
	git -c user.name=t -c user.email=t@t commit -qm "arm64: move and read" &&
	git format-patch -q -M -1 -o ../mvp && cp -a . ../mv3 &&
	git mv drivers/char/rng_variants.c drivers/char/rng_renamed.c &&
	git -c user.name=t -c user.email=t@t commit -qm "char: pure rename" &&
	git format-patch -q -M -1 -o ../pure) > /dev/null 2>&1
check "format-patch -M wrote a rename with an edit" \
	grep -q '^rename to arch/arm64/include/asm/cpufeature_moved.h$' mvp/0001-*.patch
lint mv mvp/0001-*.patch mv2
python3 - mv.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d['findings']
# The other sites of the moved header were there before: not new.
assert [x['function'] for x in f] == ['cpu_has_hw_af'], f
assert f[0]['file'] == 'arch/arm64/include/asm/cpufeature_moved.h', f[0]
assert f[0]['root'] == 'page-fault', f[0]
PY
py=$?
check_that "a git rename with an edit: only the read put back reported, at the new name, from page-fault" \
	'[ $rc -eq 1 ] && [ $py -eq 0 ]'
check "format-patch -M wrote a pure rename (no hunk)" \
	sh -c "grep -q '^similarity index 100%' pure/0001-*.patch && ! grep -q '^@@' pure/0001-*.patch"
lint pure pure/0001-*.patch mv3
check_that "a pure rename: applied, nothing new, the new .c named as not analysed" \
	'grep -q "^drivers/char/rng_renamed.c: note: a new file: not analysed" pure.err &&
	 [ "$(grep -c ": warning: " pure.err)" -eq 0 ] &&
	 python3 -c "import json,sys; sys.exit(len(json.load(open(\"pure.json\"))[\"findings\"]))"'
lint mode mode/0001-*.patch mv0
check_that "a mode change: nothing to lint, exit 0" '[ $rc -eq 0 ]'
check "format-patch -C -C wrote a copy" grep -q '^copy to mm/filemap_copy.c$' copy/0001-*.patch
lint copy copy/0001-*.patch mv1
check_that "a git copy with an edit: applied, exit 0" '[ $rc -eq 0 ]'

# A patch through a symbolic link that leaves the tree: refused, as git
# apply refuses it ("beyond a symbolic link"); nothing outside is read.
mkdir -p outside && echo 'int outside;' > outside/x.h
cp -a fixed linked && ln -s "$SCRATCH/outside" linked/include/evil
printf -- '--- a/include/evil/x.h\n+++ b/include/evil/x.h\n@@ -1 +1 @@\n-int outside;\n+int inside;\n' > link.patch
lint link link.patch linked
check_that "a path through a symbolic link out of the tree: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < link.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: link.patch:2: a path through a symbolic link out of the tree: include/evil/x.h$" link.err'
# A site added above another of the same sink and argument in one
# function: the old one's ordinal moves to 2, but the new one is the
# line reported (the patch added it), and only it.
F=arch/arm64/mm/fault.c
cp -a fixed above
sed -i 's/^	return this_cpu_has_cap(ARM64_HAS_AMU_EXTN);$/	if (this_cpu_has_cap(ARM64_HAS_AMU_EXTN))\n		return true;\n&/' above/$F
line=$(grep -n '^	if (this_cpu_has_cap(ARM64_HAS_AMU_EXTN))$' above/$F | cut -d: -f1)
(cd fixed && diff -u --label a/$F --label b/$F $F ../above/$F) > above.patch
lint above above.patch fixed
check_that "a site added above one of the same sink: reported at the added line ($line), the old one not" \
	'[ $rc -eq 1 ] && [ -n "$line" ] &&
	 python3 -c "import json,sys
d = json.load(open(\"above.json\"))[\"findings\"]
sys.exit(not d or {(f[\"file\"], f[\"line\"]) for f in d} != {(\"$F\", $line)})"'
# A series (git format-patch --cover-letter --stdout, as b4 writes an
# mbox): each patch linted in order on the tree with the ones before it
# applied; each finding names the patch that brought it. Patch 3 edits
# the lines patch 2 wrote, so it applies only on top of it.
cp -a fixed series
(cd series && git init -q && git add -A &&
 git -c user.name=S -c user.email=s@example.org commit -qm base &&
 sed -i 's/^\/\* memory\.c \*\//&/' mm/memory.c &&
 echo '/* series: patch 1 */' >> mm/memory.c &&
 git -c user.name=S -c user.email=s@example.org commit -qam "mm: a comment" &&
 cp "../regressed/$CF" "$CF" &&
 git -c user.name=S -c user.email=s@example.org commit -qam "arm64: read MMFR1 again" &&
 sed -i 's/^\tmmfr1 = read_cpuid(ID_AA64MMFR1_EL1);$/& \/* series: patch 3 *\//' "$CF" &&
 git -c user.name=S -c user.email=s@example.org commit -qam "arm64: a comment on the read" &&
 git format-patch -q --cover-letter --stdout HEAD~3 > ../series.mbox &&
 git tag series-b && git tag series-a HEAD~3 && git checkout -q HEAD~3)
check_that "the series: a cover letter and 3 patches, patch 3 on patch 2's line" \
	'[ "$(grep -c "^From [0-9a-f]\{40\} " series.mbox)" -eq 4 ] &&
	 grep -q "^-.*mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);$" series.mbox'
"$TRAPCHECK" -p series $ROOTS --diff series.mbox --format=json -o series.json \
	2> series.err
rc=$?
python3 - series.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d['findings'] if f['function'] == 'cpu_has_hw_af']
assert len(d['findings']) == 1 and len(f) == 1, d['findings']
assert f[0]['patch'] == '[PATCH 2/3] arm64: read MMFR1 again', f[0].get('patch')
assert f[0]['root'] == 'page-fault'
PY
check_that "--diff of the series: the read reported once, brought by [PATCH 2/3], exit 1" \
	'[ $? -eq 0 ] && [ $rc -eq 1 ]'
"$TRAPCHECK" -p series $ROOTS --diff series.mbox -q > series.txt 2>&1
check "... the text says which patch brought it" \
	grep -q "^arch/arm64/include/asm/cpufeature.h:[0-9]*:[0-9]*: note: brought by \[PATCH 2/3\] arm64: read MMFR1 again$" series.txt
# The same series saved with CR LF line ends (a mail client's): read as
# patch(1) reads it (before: "a hunk cut short", a raw CR in the message).
sed 's/$/\r/' series.mbox > crlf.mbox
"$TRAPCHECK" -p series $ROOTS --diff crlf.mbox -q > crlf.txt 2> crlf.err
rc=$?
check_that "a CR LF series: read without the CRs, the read brought by patch 2, exit 1" \
	'[ $rc -eq 1 ] && [ ! -s crlf.err ] &&
	 grep -q "^arch/arm64/include/asm/cpufeature.h:[0-9]*:[0-9]*: warning:" crlf.txt'
h=arch/arm64/include/asm/cpufeature.h
printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -x\r\n' $h $h $h $h \
	> cr.diff
"$TRAPCHECK" -p series $ROOTS --diff cr.diff -q > cr.txt 2> cr.err
rc=$?
check_that "... a stray CR in a line an error quotes: written \\x0d, one line, exit 2" \
	'[ $rc -eq 2 ] && [ "$(wc -l < cr.err)" -eq 1 ] &&
	 ! grep -q "$(printf "\r")" cr.err &&
	 grep -q "cr.diff:4: not a hunk header: @@ -x\\\\x0d$" cr.err'
# b4's mbox: the same messages, each "From " line b4's own (before: read
# as one patch, so patch 3 did not apply on top of patch 2: exit 2).
sed 's/^From [0-9a-f]\{40\} Mon Sep 17 00:00:00 2001$/From git@z Thu Jan  1 00:00:00 1970/' \
	series.mbox > b4.mbox
"$TRAPCHECK" -p series $ROOTS --diff b4.mbox --format=json -o b4.json \
	2> b4.err
rc=$?
python3 - b4.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d['findings'] if f['function'] == 'cpu_has_hw_af']
assert len(f) == 1 and f[0]['patch'] == '[PATCH 2/3] arm64: read MMFR1 again', d['findings']
PY
check_that "b4's mbox (From git@z ... 1970): split into its patches, the read brought by [PATCH 2/3], exit 1" \
	'[ $? -eq 0 ] && [ $rc -eq 1 ] && [ "$(grep -c "^From git@z " b4.mbox)" -eq 4 ]'
python3 - series.mbox > no2.mbox <<'PY'
import re, sys
mails = re.split(r'(?m)^(?=From [0-9a-f]{40} )', open(sys.argv[1]).read())
sys.stdout.write(''.join(m for m in mails if '[PATCH 2/3]' not in m))
PY
"$TRAPCHECK" -p series $ROOTS --diff no2.mbox > no2.out 2> no2.err
rc=$?
check_that "... without patch 2, patch 3 does not apply: exit 2 naming it" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: no2.mbox (patch 3 of 3):" no2.err'

# A revision range of the tree's git repository: its commits linted one
# by one as a series, the work tree at the range's start or at its end.
# range_ok NAME: the read reported once, brought by the range's commit 2.
range_ok() {
	python3 - "$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['findings']) == 1, [f['function'] for f in d['findings']]
f = d['findings'][0]
assert f['function'] == 'cpu_has_hw_af' and f['root'] == 'page-fault', f
assert f['patch'] == '[PATCH 2/3] arm64: read MMFR1 again', f.get('patch')
PY
}
"$TRAPCHECK" -p series $ROOTS --diff-range series-a..series-b --format=json \
	-o range-a.json 2> range-a.err
rc=$?
check_that "--diff-range A..B, the tree at A: the read, brought by the range's [PATCH 2/3], exit 1" \
	'[ $rc -eq 1 ] && range_ok range-a'
git -C series checkout -q series-b
"$TRAPCHECK" -p series $ROOTS --diff-range series-a..series-b --format=json \
	-o range-b.json 2> range-b.err
rc=$?
check_that "... the tree at B (the files read as A has them first): the same" \
	'[ $rc -eq 1 ] && range_ok range-b'
"$TRAPCHECK" -p series $ROOTS --diff-range no-such-rev..series-b -q \
	> badrange.out 2> badrange.err
rc=$?
check_that "... a revision that is not there: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < badrange.err)" = 1 ] &&
	 grep -q "^trapcheck: error: --diff-range no-such-rev..series-b: not a range A..B of .*series.s repository$" badrange.err'
"$TRAPCHECK" -p fixed $ROOTS --diff-range A..B -q > norepo.out 2> norepo.err
rc=$?
check_that "... a tree that is no git work tree: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l < norepo.err)" = 1 ] &&
	 grep -q "^trapcheck: error: .*fixed: --diff-range: not the work tree of a git repository$" norepo.err'

"$TRAPCHECK" -p series $ROOTS --diff-range series-b..series-b -q \
	> norange.out 2> norange.err
rc=$?
check_that "... an empty range: exit 2, one line" \
	'[ $rc -eq 2 ] && [ "$(cat norange.err)" = "trapcheck: error: --diff-range series-b..series-b: no commit in the range" ]'

done_testing
