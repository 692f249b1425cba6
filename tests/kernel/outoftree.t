#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real Linux 6.12 built with make O=BUILD (scripts/kernel-tree.sh 6.12
# outoftree: the Debian source untouched in TREE/src, objects and
# compile_commands.json in TREE/build). The main job, --fix-dir,
# --emit-cocci, a baseline round trip, --diff and make C=2 CHECK= under
# O=, each against the in-tree build of the same TUs (the focus tree's
# compile database restricted to them): equal findings, identical paths,
# relative to the source tree.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$(ktree 6.12)
build=$("$TOP/scripts/kernel-tree.sh" 6.12 outoftree | tail -n 1)
src=$(cd "$build/../src" && pwd)
[ -f "$build/compile_commands.json" ] || { fail "no O= build"; done_testing; exit; }
check "the source tree is untouched by the O= build (no .config, no objects)" \
	sh -c "[ ! -e '$src/.config' ] && [ -z \"\$(find '$src/drivers/char' -name '*.o' | head -n 1)\" ]"

# The in-tree database of the same TUs, kept beside the tree.
mkdir intree
python3 - "$build/compile_commands.json" "$src" \
	"$tree/compile_commands.json" "$tree" > intree/compile_commands.json <<'PY'
import json, os, sys
oot, src, intree, tree = sys.argv[1:]
# The kernel's TUs (host programs are skipped by trapcheck anyway).
want = {os.path.relpath(e['file'], src) for e in json.load(open(oot))
        if e['file'].startswith(src + '/')}
want = {f for f in want if not f.startswith(('scripts/', 'tools/'))}
out = [e for e in json.load(open(intree))
       if os.path.relpath(os.path.join(e['directory'], e['file']), tree)
       in want]
missing = want - {os.path.relpath(os.path.join(e['directory'], e['file']),
                                  tree) for e in out}
assert not missing, sorted(missing)[:5]
print(json.dumps(out, indent=1))
PY
check "the in-tree build has every TU of the O= build" [ $? -eq 0 ]
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' \
	intree/compile_commands.json)
echo "# $n TUs"

keys() { "$TOP/tests/golden.py" keys "$1"; }

export SOURCE_DATE_EPOCH=0 GIT_AUTHOR_NAME="Kernel Tester" \
	GIT_AUTHOR_EMAIL="tester@example.org"
timed() {
	_t=$(date +%s)
	"$@"
	_rc=$?
	echo "# $(( $(date +%s) - _t )) s: ${*##*/}" | cut -c1-100
	return $_rc
}

timed "$TRAPCHECK" -p "$build" --db oot.db -q --format=json -o oot.json \
	--fix-dir new/oot/fixes
rc=$?
check "make O=: the main job exits 1 (findings)" [ $rc -eq 1 ]
timed "$TRAPCHECK" -p intree --db in.db -q --format=json -o in.json \
	--fix-dir new/in/fixes
keys oot.json > oot.keys
keys in.json > in.keys
sed 's/^/# /' oot.keys | cut -c1-160 | head -n 12
check "make O= and in-tree: the same findings, chains and messages, paths identical" \
	cmp -s in.keys oot.keys
check "... the __cpu_has_rng finding in arch/arm64/include/asm/archrandom.h" \
	grep -q '"arch/arm64/include/asm/archrandom.h", [0-9]*, [0-9]*, "local-cap-check", "__cpu_has_rng"' oot.keys
check "... no path in the JSON names the source or the build directory" \
	sh -c "! grep -q -e '$src' -e '$build' oot.json"
rng=$(grep -l '^Subject: .* in __cpu_has_rng()$' new/oot/fixes/*.patch 2> /dev/null)
check "--fix-dir (missing parents made): the __cpu_has_rng patch is written" \
	[ -n "$rng" ]
check "... identical to the in-tree run's" \
	cmp -s "$rng" new/in/fixes/"${rng##*/}"
check "... every patch identical to the in-tree run's" \
	diff -r new/in/fixes new/oot/fixes
(cd "$src" && patch -s -p1 --dry-run < "$SCRATCH/$rng")
check "... and it applies to the source tree (patch --dry-run)" [ $? -eq 0 ]

"$TRAPCHECK" -p "$build" --db oot.db -q --emit-cocci oot.cocci > /dev/null
"$TRAPCHECK" -p intree --db in.db -q --emit-cocci in.cocci > /dev/null
# The header names the source tree ("from the analysis of src"): left out.
grep -v '^//#' oot.cocci > oot.rules
grep -v '^//#' in.cocci > in.rules
check_that "--emit-cocci under O=: the in-tree rules, pinned to relative files" \
	'cmp -s in.rules oot.rules && grep -q "arch/arm64/include/asm/archrandom.h" oot.rules &&
	 ! grep -q "$src" oot.rules'

"$TRAPCHECK" -p intree --db in.db -q --write-baseline base.json > /dev/null
"$TRAPCHECK" -p "$build" --db oot.db --baseline base.json > b.txt 2> b.err
rc=$?
check_that "a baseline of the in-tree run holds under O=: 0 new, 0 fixed" \
	'[ $rc -eq 0 ] && grep -q "^trapcheck: baseline: 0 new, [1-9][0-9]* known, 0 fixed$" b.err'

# --diff: a patch made in the source tree adds a hot trapping read.
cp -a "$src/drivers/char/random.c" random.c.new
python3 - random.c.new <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
a = 'void get_random_bytes(void *buf, size_t len)\n{\n'
assert a in s
s = s.replace(a, a + '\t(void)read_sysreg_s(SYS_ID_AA64ISAR1_EL1);\n', 1)
open(p, 'w').write(s)
PY
diff -u --label a/drivers/char/random.c --label b/drivers/char/random.c \
	"$src/drivers/char/random.c" random.c.new > newread.patch
timed "$TRAPCHECK" -p "$build" --db oot.db -q --diff newread.patch \
	--format=json -o diff.json
rc=$?
python3 - diff.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [(f['file'], f['function'], f['root']) for f in d['findings']]
print('# --diff:', f)
assert f == [('drivers/char/random.c', 'get_random_bytes', 'crng')], f
PY
py=$?
check_that "--diff under O=: the new read, in drivers/char/random.c, nothing else" \
	'[ $rc -eq 1 ] && [ $py -eq 0 ]'

# kbuild's CHECK protocol under O= (make -C SRC O=BUILD C=2 CHECK=...).
objs="arch/arm64/kernel/cpufeature.o arch/arm64/kernel/vdso/
      arch/arm64/mm/fault.o drivers/char/random.o mm/memory.o"
kc2 c2.out "$SCRATCH/c2.db" -C "$src" O="$build" $objs
check "make O= C=2 CHECK=\"trapcheck check --db=...\" succeeds" [ $c2_rc -eq 0 ]
check_that "... no flag warning ($c2_nw) and no parse error ($c2_ne) for any TU" \
	'[ "$c2_nw" -eq 0 ] && [ "$c2_ne" -eq 0 ]'
"$TRAPCHECK" report --db c2.db -q --format=json -o c2.json
check "trapcheck report after make O= C=2: the compile-database findings, same paths" \
	same_sites c2.json oot.json

# check-full: kbuild under O= over whole directories, in a copy of the
# build directory (kbuild makes every object of them first), against the
# in-tree full tree's compile-database run of the same TUs (from a copy
# of its shared database: the other TUs are pruned, and the header
# functions they owned adopted by the few kept TUs re-parsed for them).
if [ "$KPROFILE" = full ]; then
	dirs="arch/arm64/ mm/ kernel/ drivers/char/"
	cp -a "$build" o2
	kc2 c2all.out "$SCRATCH/c2all.db" -C "$src" O="$SCRATCH/o2" \
		-j"$(nproc)" $dirs
	check "make O= C=2 over $dirs succeeds" [ $c2_rc -eq 0 ]
	check_that "... no flag warning ($c2_nw) and no parse error ($c2_ne) for any TU" \
		'[ "$c2_nw" -eq 0 ] && [ "$c2_ne" -eq 0 ]'
	mkdir -p sameall
	ksame "$tree" c2all.db > sameall/compile_commands.json
	check "every TU checked under O= is in the in-tree build" [ $? -eq 0 ]
	kdb "$tree" sameall.db
	timed "$TRAPCHECK" -p sameall --db sameall.db -q --format=json \
		-o sameall.json
	"$TRAPCHECK" report --db c2all.db -q --format=json -o c2all.json
	check "trapcheck report after O= C=2 over $dirs: the in-tree compile-database run's findings" \
		same_sites c2all.json sameall.json
fi

done_testing
