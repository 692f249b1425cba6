#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Make the fuzz-db seed and its regression inputs again (after a schema
# change: db.h DB_SCHEMA_VERSION): a database of two TUs of the fixture,
# 512-byte pages (small enough for -max_len), and copies of it with one
# value a valid SQLite file may hold and trapcheck may not trust (what
# the fuzzer found: tests/fuzz/fuzz-db.c).
#   tests/fuzz/make-db-seeds.sh [TRAPCHECK]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tc=${1:-$top/trapcheck}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$top/tests/fixtures/kernel" "$tmp/tree"
python3 - "$tmp/tree/compile_commands.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d = [e for e in d if e['file'] in ('drivers/char/rng_variants.c', 'mm/memory.c')]
json.dump(d, open(sys.argv[1], 'w'), indent=1)
PY
"$tc" -p "$tmp/tree" -q --db "$tmp/s.db" -o /dev/null || [ $? -eq 1 ]
python3 - "$tmp/s.db" "$top/tests/fuzz" <<'PY'
import shutil, sqlite3, sys
db, out = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
c.execute('PRAGMA journal_mode=DELETE')
c.execute('PRAGMA page_size=512')
c.execute('VACUUM')
c.close()
shutil.copy(db, out + '/corpus/db/two-tus.db')
for name, sql in [('null-sink-file.db', 'UPDATE sink SET file = NULL'),
                  ('func-out-of-range.db', 'UPDATE call SET caller = 100000'),
                  ('null-key.db', 'UPDATE func SET key = NULL'),
                  ('null-include.db', 'UPDATE include SET file = NULL')]:
    p = out + '/regressions/db/' + name
    shutil.copy(db, p)
    c = sqlite3.connect(p)
    c.execute(sql)
    c.commit()
    c.close()
PY
