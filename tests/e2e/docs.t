#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One option table: --help, README's table and the man page come from
# checker/programs/options.def (and checker/base/exits.def); the man page renders
# without a warning; make install puts it where man finds it.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1

python3 "$TOP/scripts/gen-options.py" readme "$TOP/README.md" readme.md
check "README.md's option table is checker/programs/options.def's (make docs)" \
	cmp -s readme.md "$TOP/README.md"
python3 "$TOP/scripts/gen-options.py" man trapcheck.1
check "docs/trapcheck.1 is checker/programs/options.def's (make docs)" \
	cmp -s trapcheck.1 "$TOP/docs/trapcheck.1"
python3 "$TOP/scripts/gen-design.py" check > design.diff
rc=$?
sed 's/^/# /' design.diff | head -n 40
check "docs/design.md's tables of layers and interfaces are the tree's (make docs)" \
	[ $rc -eq 0 ]
# design.md's claims, true of the built library: it reads no environment
# variable (the programs read them and pass options in: nm finds no
# getenv() outside checker/programs/), and the seam runs one way
# (layers.t: no object outside checker/arch/ refers to one inside).
envs=$(cd "$TOP" && for o in checker/*/*.o checker/arch/*.o checker/arch/*/*.o; do
	case $o in checker/programs/*) continue ;; esac
	nm "$o" | grep -qE ' U (getenv|secure_getenv|setenv|putenv|unsetenv|clearenv)$' &&
		echo "$o"
done)
check_that "the library reads no environment variable (nm: no getenv() but in the programs):$envs" \
	'[ -z "$envs" ] && grep -q "reads no environment variable" "$TOP/docs/design.md" &&
	 [ -n "$(ls "$TOP"/checker/base/*.o)" ]'
groff -ww -man -z "$TOP/docs/trapcheck.1" > groff.out 2>&1
rc=$?
check_that "the man page renders without a warning (groff -ww -man)" \
	'[ $rc -eq 0 ] && [ ! -s groff.out ]'
# The man page's SYNOPSIS has every command of the usage; ENVIRONMENT
# names every variable the programs read (getenv() in checker/); FILES
# and EXAMPLES are there.
MANWIDTH=300 MANPAGER=cat man -l "$TOP/docs/trapcheck.1" 2> /dev/null | col -b |
	tr -s " \t" "  " > man.txt
"$TRAPCHECK" --help 2>&1 | sed -n 's/^ *\(usage:\)\{0,1\} *trapcheck \([a-z]*\).*/\2/p' |
	sort -u > cmds.txt
missing=
for c in $(cat cmds.txt); do
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' man.txt | grep -q "trapcheck $c\|trapcheck.*| $c" ||
		missing="$missing $c"
done
for v in $(grep -rhno 'getenv("[A-Z_]*")' "$TOP"/checker --include=*.c |
	   sed 's/.*getenv("\([A-Z_]*\)").*/\1/' | sort -u); do
	sed -n '/^ENVIRONMENT/,/^FILES/p' man.txt | grep -qw "$v" ||
		missing="$missing \$$v"
done
check_that "the man page: every command in SYNOPSIS, every variable read in ENVIRONMENT, FILES and EXAMPLES:$missing" \
	'[ -z "$missing" ] && [ -s cmds.txt ] && grep -q "^FILES" man.txt &&
	 grep -q "^EXAMPLES" man.txt && grep -q "trapcheck trace" man.txt'
"$TRAPCHECK" --help > help.txt
python3 - help.txt "$TOP/checker/programs/options.def" "$TOP/checker/base/exits.def" <<'PY'
import re, sys
help_ = open(sys.argv[1]).read()
opts = re.findall(r'OPTION\(\s*\w+,\s*(NULL|"[^"]*"),\s*(0|\'.\')',
                  open(sys.argv[2]).read())
for name, letter in opts:
    want = '--' + name.strip('"') if name != 'NULL' else '-' + letter[1]
    assert want in help_, want
for code, text in re.findall(r'EXIT\(\s*\w+,\s*(\d+),\s*"([^"]*)"\)',
                             open(sys.argv[3]).read()):
    assert '%s %s' % (code, text) in help_, (code, text)
PY
check "--help names every option and every exit status of the tables" [ $? -eq 0 ]
# The docs name no facts database schema but the binary's.
want=$(sed -n 's/^#define DB_SCHEMA_VERSION \([0-9]*\)$/\1/p' "$TOP/include/trapcheck/store/db.h")
grep -rnoE '[Ss]chema \(?(version )?[0-9]+' "$TOP/docs" "$TOP/README.md" |
	grep -vE "[Ss]chema \(?(version )?$want\b" > schema.txt
check_that "docs name the schema version db.h has ($want), no other" \
	'[ -n "$want" ] && [ ! -s schema.txt ] || { sed "s/^/# /" schema.txt; false; }'
# README's JSON keys, rules and root sets are the program's: every key a
# finding, a chain step, a condition or a rate has in the fixtures' runs
# (arm64 and x86) is in README's JSON table; its rules table is the
# program's rules (generic and the architectures', as SARIF lists them),
# its root sets are roots/*.roots.
"$TRAPCHECK" -p "$TOP/tests/fixtures/kernel" -q --format=json -o arm.json
"$TRAPCHECK" -p "$TOP/tests/fixtures/x86" -q --format=json -o x86.json
"$TRAPCHECK" -p "$TOP/tests/fixtures/x86" -q --format=sarif -o x86.sarif
python3 - "$TOP" arm.json x86.json <<'PY'
import glob, json, os, re, sys
top = sys.argv[1]
readme = open(os.path.join(top, 'README.md')).read()
js = readme[readme.index('JSON: '):readme.index('## Rules')]
named = set(w for span in re.findall(r'`([^`]*)`', js)
            for w in re.findall(r'[a-z_]+', span))
keys = set()
for path in sys.argv[2:]:
    d = json.load(open(path))
    keys |= set(d)
    for f in d['findings'] + d['low_confidence']:
        keys |= set(f)
        chains = [f['chain']] + f.get('other_chains', []) + \
            [a.get('chain', []) for a in f.get('also_reached') or []]
        for c in chains:
            for step in c:
                keys |= set(step)
                for cond in step.get('conditions', []):
                    keys |= set(cond)
        for cond in f.get('conditions', []):
            keys |= set(cond)
        keys |= set(f.get('rate') or {})
missing = sorted(keys - named)
assert not missing, 'README lacks JSON keys: %s' % missing
rules = re.findall(r'^\| `([a-z-]+)` \|', readme[readme.index('## Rules'):], re.M)
want = [r['id'] for r in
        json.load(open('x86.sarif'))['runs'][0]['tool']['driver']['rules']]
assert sorted(rules) == sorted(want), (rules, want)
m = re.search(r'Root sets ship in .*?: (`.*?`)\. ', readme, re.S)
sets = re.findall(r'`([a-z-]+)`', m.group(1))
have = [os.path.basename(p)[:-6] for p in glob.glob(os.path.join(top, 'roots/*.roots'))]
assert sorted(sets) == sorted(have), (sets, have)
PY
check "README's JSON keys, rules and root sets are the program's" [ $? -eq 0 ]
python3 "$TOP/tests/e2e/diag-doc.py" "$TOP" > undocumented.txt
check_that "every message with a format of its own is in docs/diagnostics.md" \
	'[ ! -s undocumented.txt ] || { sed "s/^/# /" undocumented.txt; false; }'
make -s -C "$TOP" install DESTDIR="$SCRATCH/inst" PREFIX=/usr > inst.log 2>&1
check_that "make install installs the man page" \
	'[ -f inst/usr/share/man/man1/trapcheck.1 ] && [ -x inst/usr/bin/trapcheck ]'
# docs/measured.md's generated tables are docs/measured.json's, and the
# record's comparison is what its runs and findings give.
python3 "$TOP/tests/oracle/record.py" md "$TOP/docs/measured.json" \
	"$TOP/docs/measured.md" --check 2> measured.err
rc=$?
check_that "docs/measured.md's tables and comparison are docs/measured.json's (tests/oracle/record.py md)" \
	'[ $rc -eq 0 ] && [ ! -s measured.err ]'
python3 "$TOP/tests/oracle/record.py" md "$TOP/docs/measured.json" \
	"$TOP/docs/fixes.md" --check 2> fixes.err
rc=$?
check_that "docs/fixes.md's table of fixes proven in the oracle is docs/measured.json's" \
	'[ $rc -eq 0 ] && [ ! -s fixes.err ]'
cp "$TOP/docs/measured.md" m.md
sed -i 's/^| x86_64 6.12 shipped io | `lib\/zstd\/common\/cpu.h:68` .*/| edited |/' m.md
python3 "$TOP/tests/oracle/record.py" md "$TOP/docs/measured.json" m.md \
	--check 2> /dev/null
check "... and a table edited by hand is caught" [ $? -eq 1 ]

done_testing
