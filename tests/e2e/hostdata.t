#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fix of a trapping ID-register read in KVM's hyp code
# (checker/arch/arm64/fix-percpu.c, percpu.def): each register read
# once per CPU at KVM's per-CPU init into a field of the per-CPU host
# data, the hyp reads replaced by host_data_ptr() reads; every such site
# in one patch (their group), across the four files it touches. Code of
# the nVHE objects alone whose advice names the copy the host keeps
# (*_sys_val) reads that instead, as the advice says. The patches apply
# with git am -3, the patched VHE and nVHE objects build with the cross
# compiler, a second run finds nothing; a tree without host_data_ptr()
# gets a note naming it.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/hostdata"
cd "$SCRATCH" || exit 1

cp -a "$FX" tree
sum_before=$(find tree -type f | sort | xargs cat | md5sum)
SOURCE_DATE_EPOCH=0 GIT_AUTHOR_NAME="Fixture Author" \
GIT_AUTHOR_EMAIL="author@example.org" \
	"$TRAPCHECK" -p tree --roots-dir tree -q --fix-dir out \
	--format=json -o out.json > report.txt
check "the hostdata fixture: exit 1 (findings)" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" tree out.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its four hyp reads are its tags" [ $rc -eq 0 ]
check "without --apply the tree is not touched" \
	[ "$(find tree -type f | sort | xargs cat | md5sum)" = "$sum_before" ]
check "two patches: the group's, the nVHE copy's" [ "$(ls out | wc -l)" -eq 2 ]
p=$(ls out/0001-*.patch)
p2=$(ls out/0002-*.patch)
python3 - out.json "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = [f for f in d['findings'] if f['rule'] == 'trapping-idreg-read' and
     '/hyp/include/' in f['file']]
assert len(w) == 3, w
for f in w:
    assert f['fix'] == 'fix: ' + sys.argv[2], f
PY
check "the three sites of the shared hyp bodies are fixed by it (each warning's fix names it)" [ $? -eq 0 ]
check_that "code of the nVHE objects alone reads the host's copy, as its warning advises" \
	'grep -q "nvhe/sys_regs.c:15:13: warning: .*read the copy the host keeps, id_aa64pfr0_el1_sys_val" report.txt ||
	 python3 -c "
import json, sys
d = json.load(open(\"out.json\"))
f = [f for f in d[\"findings\"] if f[\"file\"].endswith(\"nvhe/sys_regs.c\")][0]
assert \"read the copy the host keeps, id_aa64pfr0_el1_sys_val\" in f[\"message\"], f
assert f[\"fix\"] == \"fix: $p2\", f
" &&
	 grep -q "^Subject: \[PATCH\] KVM: arm64: Read the host'"'"'s copy of ID_AA64PFR0_EL1 in pvm_read_id()$" "$p2" &&
	 grep -q "^+	pvm_pfr0 = id_aa64pfr0_el1_sys_val;$" "$p2" &&
	 grep -q "^ 1 file changed, 1 insertion(+), 1 deletion(-)$" "$p2"'
check_that "its subject, and the upstream commit whose pattern it follows" \
	'grep -q "^Subject: \[PATCH\] KVM: arm64: Read ID registers once per CPU for hyp code$" "$p" &&
	 grep -q "38131c02a53f" "$p"'
check_that "four files: the field, the copies at init, the two hyp headers" \
	'grep -q "^ 4 files changed, 16 insertions(+), 3 deletions(-)$" "$p"'
check_that "the field of the per-CPU host data" \
	'grep -q "^+		u64	id_aa64dfr0_el1;$" "$p" &&
	 grep -q "^+		u64	id_aa64pfr0_el1;$" "$p" &&
	 grep -q "^+	} id_regs;$" "$p"'
check_that "the copies, first in cpu_hyp_init_context(), each read as the site reads it" \
	'grep -q "^+	\*host_data_ptr(id_regs.id_aa64dfr0_el1) = read_sysreg(id_aa64dfr0_el1);$" "$p" &&
	 grep -q "^+		read_sysreg_s(SYS_ID_AA64PFR0_EL1);$" "$p"'
check_that "the hyp reads become host_data_ptr() reads (a space-indented line re-indented with a tab)" \
	'[ "$(grep -c "^+	aa64dfr0 = \*host_data_ptr(id_regs.id_aa64dfr0_el1);$" "$p")" -eq 2 ] &&
	 grep -q "^+	u64 pfr0 = \*host_data_ptr(id_regs.id_aa64pfr0_el1);$" "$p"'

# git am -3 on a repository of the tree, then the objects of both modes
# built as the compile database says (VHE and nVHE hyp objects).
cp -a "$FX" repo
(cd repo && git init -q && git add -A &&
 git -c user.name=t -c user.email=t@example.org commit -qm base &&
 git -c user.name=t -c user.email=t@example.org am -q -3 "../$p" "../$p2") \
	> am.out 2>&1
check "git am -3 applies them" [ $? -eq 0 ]
python3 - repo > build.out 2>&1 <<'PY'
import json, shlex, subprocess, sys
root = sys.argv[1]
for e in json.load(open(root + '/compile_commands.json')):
    argv = shlex.split(e['command'])
    out = argv.index('-o')
    argv[out:out + 2] = ['-o', '/dev/null']
    # Compiled, not assembled: the fixture's read_sysreg_s() is no mrs_s.
    argv[argv.index('-c')] = '-S'
    argv = [a for a in argv if not a.startswith('-Wp,')]
    r = subprocess.run(argv + ['-Werror'], cwd=root)
    print(e['file'], r.returncode)
    assert r.returncode == 0, e['file']
PY
rc=$?
sed 's/^/# /' build.out
check "the patched arm.c and the VHE and nVHE hyp objects build (-Werror)" \
	[ $rc -eq 0 ]
"$TRAPCHECK" -p repo --roots-dir repo -q > again.txt
check "a second run on the patched tree: nothing found (exit 0)" [ $? -eq 0 ]

# --emit-cocci: a rule pinned to a site cannot add the field and the
# copies: the group's fix is left out, said; the one-line fix is a rule.
"$TRAPCHECK" -p tree --roots-dir tree -q --emit-cocci hd.cocci > /dev/null
check_that "--emit-cocci: the group's fix left out with its reason, the nVHE copy's fix a rule" \
	'[ "$(sed -e :a -e N -e "\$!ba" -e "s|\n//#   | |g" hd.cocci | grep -c "^//# Left out: .*its fix edits more than this site")" -eq 1 ] &&
	 [ "$(grep -c "^@fix[0-9]* depends on patch" hd.cocci)" -eq 1 ] &&
	 grep -q "id_aa64pfr0_el1_sys_val" hd.cocci'

# No host_data_ptr(): no per-CPU data both modes read, no fix, said.
cp -a "$FX" old
sed -i '/#define host_data_ptr/d' old/arch/arm64/include/asm/kvm_host.h
sed -i 's/host_data_ptr(host_ctxt)/\&kvm_host_data.host_ctxt/' \
	old/arch/arm64/kvm/arm.c
"$TRAPCHECK" -p old --roots-dir old -q --fix-dir out-old > old.txt
rc_old=$?
check_that "without host_data_ptr(): findings (exit 1, nothing leaked under LSan), one patch (the nVHE copy's)" \
	'[ $rc_old -eq 1 ] && [ "$(ls out-old | wc -l)" -eq 1 ]'
check_that "... each site's note says why" \
	'[ "$(grep -c "note: no fix: this tree'"'"'s arch/arm64/include/asm/kvm_host.h defines no host_data_ptr(): no per-CPU host data that hyp code reads in both modes$" old.txt)" -eq 3 ]'
check "... the nVHE copy's patch is still written" [ -s out-old/0001-*.patch ]

done_testing
