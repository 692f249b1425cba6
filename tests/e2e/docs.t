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
groff -ww -man -z "$TOP/docs/trapcheck.1" > groff.out 2>&1
rc=$?
check_that "the man page renders without a warning (groff -ww -man)" \
	'[ $rc -eq 0 ] && [ ! -s groff.out ]'
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
make -s -C "$TOP" install DESTDIR="$SCRATCH/inst" PREFIX=/usr > inst.log 2>&1
check_that "make install installs the man page" \
	'[ -f inst/usr/share/man/man1/trapcheck.1 ] && [ -x inst/usr/bin/trapcheck ]'
done_testing
