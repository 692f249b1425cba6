#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --diff of a header changed only in macro definitions, on a warm facts
# database: only the includers whose stored macro set (every macro they
# expand or test, and what those expand in turn) holds a changed macro, or
# that include a file naming a macro the patch may newly define, are
# parsed again, with the owners of the header's bodies. Each answer is
# replayed: the same JSON as the same --diff with no database (every TU
# parsed), but for the count of TUs parsed.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
cd "$SCRATCH" || exit 1
cp -a "$FX" t
"$TRAPCHECK" -p t $ROOTS --db warm.db -q -o /dev/null 2> /dev/null

# mk NAME FILE SED: NAME.patch, FILE edited by the sed script (diff -u)
mk() {
	mkdir -p "b/${2%/*}"
	sed "$3" "t/$2" > "b/$2"
	diff -u "t/$2" "b/$2" > "$1.patch"
}
# lint NAME: the patch linted warm (NAME.json, NAME.err, the TUs parsed
# again in NAME.tus) and with no database (NAME.cold.json)
lint() {
	TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" -p t $ROOTS --db warm.db \
		--diff "$1.patch" --format=json -o "$1.json" 2> "$1.err"
	rc=$?
	"$TRAPCHECK" -p t $ROOTS --diff "$1.patch" --format=json \
		-o "$1.cold.json" 2> /dev/null
	rc_cold=$?
	sed -n 's/^macros: \([^ ]*\) parsed again: .*/\1/p' "$1.err" |
		sort | tr '\n' ' ' > "$1.tus"
}
# replayed NAME: the warm answer is the cold one
replayed() {
	[ "$rc" = "$rc_cold" ] && python3 - "$1.json" "$1.cold.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d['summary'].pop('tus_parsed')
assert a == b, (a['findings'], b['findings'])
PY
}
CF=arch/arm64/include/asm/cpufeature.h

mk value "$CF" 's/^#define ARM64_WORKAROUND_1418040\t60/#define ARM64_WORKAROUND_1418040\t62/'
lint value
check_that "a value changed: the two TUs that expand it parsed again ($(cat value.tus)), the cold answer" \
	'[ "$(cat value.tus)" = "arch/arm64/kernel/cpu_errata.c arch/arm64/mm/fault.c " ] &&
	 grep -q "^trapcheck: a change to macros only (ARM64_WORKAROUND_1418040): 2 of the [0-9]* TUs that include it parsed again$" value.err &&
	 replayed value'

# A header of nothing but macros inside its include guard: the guard is
# not one group, so the change is to one macro, not to all of them and
# the guard every includer tests.
SH=include/linux/stringify.h
mk guarded "$SH" 's/^#define __stringify_1(x\.\.\.)\t#x$/#define __stringify_1(x...)\t"" #x/'
lint guarded
shinc=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(DISTINCT tu) FROM include WHERE file = ?', (sys.argv[2],)).fetchone()[0])" warm.db "$SH")
check_that "a macro of an all-macro guarded header: a change to it alone, fewer than its $shinc includers parsed again ($(cat guarded.tus)), the cold answer" \
	'grep -q "^+#define __stringify_1" guarded.patch &&
	 grep -q "^trapcheck: a change to macros only (__stringify_1): [0-9]* of the $shinc TUs that include it parsed again$" guarded.err &&
	 [ "$(wc -w < guarded.tus)" -lt "$shinc" ] && replayed guarded'

# ARM64_CPUCAP_SYSTEM_FEATURE is (ARM64_CPUCAP_SCOPE_SYSTEM): the record
# shows only the outer name; the definitions the TU saw give the inner.
mk nested "$CF" 's/^\(#define ARM64_CPUCAP_SCOPE_SYSTEM\t\).*/\1((u16)BIT(3))/'
lint nested
check_that "a macro expanded only inside another's expansion: its users parsed again ($(cat nested.tus)), the cold answer" \
	'grep -q "arch/arm64/kernel/cpufeature.c " nested.tus &&
	 ! grep -q "cpuinfo.c" nested.tus && replayed nested'

# read_cpuid(reg) is read_sysreg_s(SYS_ ## reg): a pasted name.
mk paste arch/arm64/include/asm/sysreg.h 's/^\(#define SYS_ID_AA64MMFR1_EL1\t\).*/\1sys_reg(3, 0, 0, 7, 2)/'
lint paste
check_that "a macro named by pasting (SYS_ ## reg): the TUs that expand the pasting macro parsed again ($(cat paste.tus)), the cold answer" \
	'grep -q "arch/arm64/kernel/cpuinfo.c " paste.tus && replayed paste'

# mm/memory.c has #ifndef arch_wants_old_prefaulted_pte: a fallback.
mk removed arch/arm64/include/asm/pgtable.h '/^#define arch_wants_old_prefaulted_pte/d'
lint removed
check_that "a macro removed that a TU tests with #ifndef: that TU parsed again ($(cat removed.tus)), the cold answer" \
	'grep -q "mm/memory.c " removed.tus && replayed removed'

# cpufeature.c has #ifdef CONFIG_NOT_SET_IN_THIS_FIXTURE: not recorded
# (an undefined macro), found by its name in the TU's files.
mk added "$CF" 's/^#define ARM64_NCAPS.*/&\n#define CONFIG_NOT_SET_IN_THIS_FIXTURE 1/'
lint added
check_that "a macro added that a TU tests while undefined: that TU parsed again, the cold answer" \
	'[ "$(cat added.tus)" = "arch/arm64/kernel/cpufeature.c " ] &&
	 grep -q "parsed again: a new macro named in arch/arm64/kernel/cpufeature.c" added.err &&
	 replayed added'

# The regression a macro brings: on the tree without the define,
# mm/memory.c uses its own arch_wants_old_prefaulted_pte() (false); the
# patch that puts the define back makes set_pte_range() call
# cpu_has_hw_af() and its read, on the page-fault path.
cp -a t t2
sed -i '/^#define arch_wants_old_prefaulted_pte/d' t2/arch/arm64/include/asm/pgtable.h
"$TRAPCHECK" -p t2 $ROOTS --db warm2.db -q -o /dev/null 2> /dev/null
diff -u t2/arch/arm64/include/asm/pgtable.h t/arch/arm64/include/asm/pgtable.h > back.patch
TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" -p t2 $ROOTS --db warm2.db \
	--diff back.patch --format=json -o back.json 2> back.err
rc=$?
"$TRAPCHECK" -p t2 $ROOTS --diff back.patch --format=json -o back.cold.json \
	2> /dev/null
rc_cold=$?
check_that "the define put back: mm/memory.c parsed again (it names it), the read reported from page-fault through set_pte_range(), the cold answer" \
	'[ $rc -eq 1 ] &&
	 grep -q "^macros: mm/memory.c parsed again: a new macro named in mm/memory.c$" back.err &&
	 python3 -c "
import json, sys
d = json.load(open(\"back.json\"))
f = [f for f in d[\"findings\"] if f[\"function\"] == \"cpu_has_hw_af\"]
assert len(f) == 1 and f[0][\"root\"] == \"page-fault\", d[\"findings\"]
assert \"set_pte_range\" in [c[\"function\"] for c in f[0][\"chain\"]], f[0][\"chain\"]
assert f[0][\"file\"] == \"arch/arm64/include/asm/cpufeature.h\" and f[0][\"line\"] > 0
" && replayed back'

mk unused "$CF" 's/^#define ARM64_NCAPS.*/&\n#define TRAPCHECK_UNUSED_MACRO 1/'
lint unused
check_that "a macro added that nothing names: no includer parsed again, the cold answer (nothing)" \
	'[ ! -s unused.tus ] && [ $rc -eq 0 ] && replayed unused &&
	 grep -q "^trapcheck: a change to macros only (TRAPCHECK_UNUSED_MACRO): 0 of" unused.err'

# A conditional around code, or a declaration: every includer.
mk decl "$CF" 's/^#define ARM64_NCAPS.*/&\nextern int trapcheck_new_decl;/'
lint decl
includers=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(DISTINCT tu) FROM include WHERE file = ?', (sys.argv[2],)).fetchone()[0])" warm.db "$CF")
parsed=$(sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' decl.err)
check_that "a declaration added next to the macros: not macros only, every includer parsed ($parsed of $includers), the cold answer" \
	'! grep -q "a change to macros only" decl.err && [ -s decl.err ] &&
	 { [ -z "$parsed" ] || [ "$parsed" -ge "$includers" ]; } && replayed decl'

# A macro the header itself names in code: every includer.
mk named "$CF" 's/^#define ARM64_NCAPS.*/&\n#define system_capabilities_finalized() 1/'
lint named
check_that "a new macro with the name of a function the header declares: not macros only, the cold answer" \
	'! grep -q "a change to macros only" named.err && replayed named'

# An assembly TU has no macro set: it is parsed whenever it includes one.
"$TRAPCHECK" -p t $ROOTS --db warm.db -q -o /dev/null 2> /dev/null
check "the tree's macro sets: one per C TU, none for the assembly TU" \
	python3 -c "
import sqlite3, sys
c = sqlite3.connect('warm.db')
rows = dict(c.execute('SELECT t.path, m.names FROM tu t LEFT JOIN macro m ON m.tu = t.id'))
assert rows['arch/arm64/kernel/entry.S'] is None, rows['arch/arm64/kernel/entry.S']
assert all(v.startswith('m1:') for k, v in rows.items() if k.endswith('.c')), rows
"

done_testing
