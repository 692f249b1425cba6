#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make O=BUILD: the compile database in the build directory, the sources
# elsewhere (tests/outoftree.py gives the fixture kbuild's O= shape). Paths
# are relative to the source tree in every output, fixes are read from and
# made against it, and everything equals the in-tree run's.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
cd "$SCRATCH" || exit 1

# The source tree's name is in --emit-cocci's header: the fixture's.
cp -a "$FX" kernel
"$TOP/tests/outoftree.py" kernel build
"$TOP/tests/outoftree.py" kernel nolink --no-link
rm kernel/compile_commands.json
export SOURCE_DATE_EPOCH=0 GIT_AUTHOR_NAME="Fixture Author" \
	GIT_AUTHOR_EMAIL="author@example.org"

# keys FILE: what identifies each finding, its chain and its notes.
keys() { "$TOP/tests/golden.py" keys "$1"; }

"$TRAPCHECK" -p "$FX" -q $ROOTS --format=json -o in.json
"$TRAPCHECK" -p build -q $ROOTS --format=json -o out.json
check "make O=: exit 1 (findings), like in the tree" [ $? -eq 1 ]
keys in.json > in.keys
keys out.json > out.keys
check "make O=: the findings, chains and notes of the in-tree run" \
	cmp -s in.keys out.keys
check "... (the comparison sees findings: $(wc -l < out.keys))" \
	[ "$(wc -l < out.keys)" -ge 10 ]
check "... no path names the scratch directory (all relative to the source tree)" \
	sh -c "! grep -q '$SCRATCH' out.json"
check "... a finding in a header: arch/arm64/include/asm/archrandom.h" \
	grep -q '"file": "arch/arm64/include/asm/archrandom.h"' out.json

"$TRAPCHECK" -p build -q $ROOTS --fix-dir new/sub/fixes > fix.txt
check "--fix-dir creates missing parents and writes the in-tree patches" \
	diff -r "$FX/expected-fixes" new/sub/fixes
check "... the report names the __cpu_has_rng patch" \
	grep -q "^arch/arm64/include/asm/archrandom.h:[0-9]*:[0-9]*: note: fix: new/sub/fixes/[0-9]*-arm64-archrandom-avoid-trapping-ID-register-read-in-.patch$" fix.txt
echo x > afile
"$TRAPCHECK" -p build -q $ROOTS --fix-dir afile/fixes > /dev/null 2> nodir.err
rc=$?
check_that "--fix-dir under a file: exit 3, one line naming the directory" \
	'[ $rc -eq 3 ] && [ "$(wc -l < nodir.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: afile/fixes: cannot create the fix directory: Not a directory$" nodir.err'

"$TRAPCHECK" -p build -q $ROOTS --emit-cocci out.cocci > /dev/null
check "--emit-cocci: the in-tree semantic patch (pins relative)" \
	cmp -s "$FX/expected.cocci" out.cocci

"$TRAPCHECK" -p build -q $ROOTS --format=sarif -o out.sarif
python3 - out.sarif "$SCRATCH/kernel" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))['runs'][0]
base = run['originalUriBaseIds']['SRCROOT']['uri']
assert base == 'file://%s/' % sys.argv[2], base
for r in run['results']:
    loc = r['locations'][0]['physicalLocation']['artifactLocation']
    assert loc['uriBaseId'] == 'SRCROOT' and not loc['uri'].startswith('/'), loc
PY
check "SARIF: %SRCROOT% is the source tree, every uri relative to it" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" -q $ROOTS --write-baseline base.json > /dev/null
"$TRAPCHECK" -p build $ROOTS --baseline base.json > b.txt 2> b.err
rc=$?
check_that "a baseline of the in-tree run holds under O=: 0 new, 0 fixed" \
	'[ $rc -eq 0 ] && grep -q "^trapcheck: baseline: 0 new, [0-9]* known, 0 fixed$" b.err'

# Without kbuild's source link: the -include .../include/linux/kconfig.h,
# though make O= also compiles generated host programs in the build
# directory (scripts/dtc/dtc-lexer.lex.c): those are skipped as host code.
mkdir -p nolink/scripts/dtc
echo 'int main(void) { return 0; }' > nolink/scripts/dtc/dtc-lexer.lex.c
python3 - nolink <<'PY'
import json, os, sys
b = os.path.realpath(sys.argv[1])
p = os.path.join(b, 'compile_commands.json')
d = json.load(open(p))
d.append({'directory': b, 'file': b + '/scripts/dtc/dtc-lexer.lex.c',
          'command': 'gcc -O2 -c -o scripts/dtc/dtc-lexer.lex.o '
                     'scripts/dtc/dtc-lexer.lex.c'})
json.dump(d, open(p, 'w'))
PY
"$TRAPCHECK" -p nolink -q $ROOTS --format=json -o nolink.json
keys nolink.json > nolink.keys
check "no source link, a generated host program in the build directory: the source tree from kbuild's -include paths" \
	cmp -s in.keys nolink.keys
python3 - in.json nolink.json <<'PY'
import json, sys
a, b = (json.load(open(p))['summary'] for p in sys.argv[1:])
print('# skipped: in-tree %d, O= without the link %d' % (a['tus_skipped'],
                                                          b['tus_skipped']))
assert b['tus_skipped'] == a['tus_skipped'] + 1
assert b['tus_analysed'] == a['tus_analysed']
PY
check "... and the build directory's host program is skipped, not parsed" \
	[ $? -eq 0 ]
"$TRAPCHECK" -p nolink -q $ROOTS --srctree kernel/arch --format=json \
	-o sub.json
check "--srctree overrides: paths relative to the given directory" \
	grep -q '"file": "arm64/include/asm/archrandom.h"' sub.json
"$TRAPCHECK" -p nolink -q $ROOTS --srctree nowhere > /dev/null 2> st.err
rc=$?
check_that "--srctree that does not exist: exit 2, one line naming it" \
	'[ $rc -eq 2 ] && [ "$(wc -l < st.err)" -eq 1 ] &&
	 grep -q "^trapcheck: error: nowhere: not a source tree: No such file or directory$" st.err'

# kbuild's CHECK protocol under O=: run in the build directory, the source
# named by its path in the source tree (make C=2 CHECK=...).
python3 - build/compile_commands.json > cmds.sh <<'PY'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if not e['file'].endswith('.c'):
        continue
    a, out, skip = shlex.split(e['command'])[1:], [], False
    for x in a:
        if skip:
            skip = False
        elif x == '-o':
            skip = True
        elif x != '-c':
            out.append(x)
    print('"$TRAPCHECK" check --db="$SCRATCH/c.db" -D__aarch64__ ' +
          shlex.join(out) + ' || exit 1')
PY
(cd build && TRAPCHECK="$TRAPCHECK" SCRATCH="$SCRATCH" sh ../cmds.sh) \
	> check.out 2>&1
check "trapcheck check in the build directory, each TU" [ $? -eq 0 ]
"$TRAPCHECK" report --db c.db -q $ROOTS --format=json -o c.json
check "trapcheck report after CHECK= under O=: the compile-database findings" \
	same_sites c.json out.json

# --diff: a patch made in the source tree (git diff, plain diff -u).
sed 's/^	pte_t entry = vmf->orig_pte;$/&\n	entry.pte |= read_sysreg_s(SYS_ID_AA64MMFR0_EL1) \& 1;/' \
	kernel/mm/memory.c > memory.c.new
diff -u --label a/mm/memory.c --label b/mm/memory.c kernel/mm/memory.c \
	memory.c.new > add-read.patch
"$TRAPCHECK" -p build $ROOTS --diff add-read.patch > d.txt 2> d.err
rc=$?
check_that "--diff under O=: the new read, named relative to the source tree" \
	'[ $rc -eq 1 ] && grep -q "^mm/memory.c:[0-9]*:[0-9]*: warning: read_sysreg_s(SYS_ID_AA64MMFR0_EL1) reads ID_AA64MMFR0_EL1" d.txt'
check "... and nothing else is new" [ "$(grep -c ': warning: ' d.txt)" -eq 1 ]

done_testing
