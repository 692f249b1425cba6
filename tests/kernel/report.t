#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CI output on real Linux 6.12: SARIF of the whole subset validated by
# Microsoft's validator; a baseline written before the __cpu_has_rng() fix and
# compared after; a waiver on __cpu_has_rng; the HTML page in Chromium.
# Both databases start from the tree's shared cold run (lib.sh).
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$(ktree 6.12)
plain=$(kvariant "$tree" plain)
fixed=$(kvariant "$tree" fix-000)
mt=${TRAPCHECK_NPM_CACHE:-/var/cache/trapcheck/npm}/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
kdb "$tree" p.db
kdb "$tree" f.db

start=$(date +%s)
"$TRAPCHECK" -p "$plain" --db p.db -q --format=sarif -o all.sarif \
	--write-baseline base.json --root-set crng
echo "# base run: $(( $(date +%s) - start )) s"
if [ -x "$mt" ]; then
	DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$mt" validate all.sarif \
		--output all.val --log ForceOverwrite > val.log 2>&1
	python3 - all.val <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))['runs'][0].get('results', [])
bad = [r for r in res if r.get('level') == 'error']
print('# validator: %d errors, %d results' % (len(bad), len(res)))
sys.exit(1 if bad else 0)
PY
	check "SARIF of the whole subset: zero validator errors" [ $? -eq 0 ]
else
	fail "Microsoft's SARIF validator is not installed (tests/e2e/report.t installs it)"
fi
check "the SARIF holds the __cpu_has_rng finding" grep -q '__cpu_has_rng' all.sarif

"$TRAPCHECK" -p "$fixed" --db f.db --root-set crng --baseline base.json \
	> new.txt 2> new.err
rc=$?
grep '^trapcheck: baseline' new.err | sed 's/^/# /'
check_that "baseline before the __cpu_has_rng() fix, compared after: 0 new, 1 fixed" \
	'[ $rc -eq 0 ] && grep -q "^trapcheck: baseline: 0 new, [0-9]* known, 1 fixed$" new.err'

printf 'local-cap-check __cpu_has_rng boot only; the fix is on the list\n' > waivers
"$TRAPCHECK" -p "$plain" --db p.db --root-set crng --waivers waivers \
	--format=json -o w.json 2> w.err
python3 - w.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [f for f in d['findings'] if f['function'] == '__cpu_has_rng']
assert d['summary']['waived'] >= 1, d['summary']
PY
check "a waiver on __cpu_has_rng silences it and is counted" [ $? -eq 0 ]

"$TRAPCHECK" -p "$plain" --db p.db --root-set crng -q --html page.html
check "the HTML page shows the __cpu_has_rng chain" \
	grep -q 'crng_make_state</span>.*extract_entropy</span>.*__cpu_has_rng' page.html
if command -v chromium > /dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$SCRATCH/chrome" --window-size=1400,1000 \
		--screenshot="$SCRATCH/page.png" "file://$SCRATCH/page.html" \
		> chrome.log 2>&1
	art=${TRAPCHECK_ARTEFACTS:-/tmp/trapcheck-artefacts}
	mkdir -p "$art" && cp page.png "$art/page-6.12.png"
	echo "# screenshot: $art/page-6.12.png"
	check "headless Chromium renders the 6.12 page" [ -s page.png ]
else
	fail "headless Chromium is not installed (scripts/install-deps.sh)"
fi
done_testing
