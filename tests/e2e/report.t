#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CI output on the fixture tree: SARIF validated by Microsoft's validator,
# baselines, the pre-submit flow, waivers, DOT pictures and the HTML page
# (rendered in headless Chromium).
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
ROOTS="--roots $FX/variants.roots"
cd "$SCRATCH" || exit 1

# Microsoft's SARIF validator, from the npm registry, cached.
npmdir=${TRAPCHECK_NPM_CACHE:-/var/cache/trapcheck/npm}
mt="$npmdir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ ! -x "$mt" ]; then
	mkdir -p "$npmdir"
	(cd "$npmdir" && npm install --no-audit --no-fund \
		@microsoft/sarif-multitool-linux > /dev/null 2>&1)
	chmod u+x "$mt" 2>/dev/null
fi
validate() {
	DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$mt" validate "$1" \
		--output "$1.val" --log ForceOverwrite > "$1.log" 2>&1 &&
	python3 - "$1.val" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))['runs'][0].get('results', [])
bad = [r for r in res if r.get('level') in ('error', 'warning')]
for r in bad:
    print('# ' + r['message'].get('text', '')[:300])
sys.exit(1 if bad else 0)
PY
}
check "Microsoft's SARIF validator is installed" [ -x "$mt" ]

"$TRAPCHECK" -p "$FX" -q $ROOTS --format=sarif -o out.sarif
check "SARIF: zero errors and warnings from the validator" validate out.sarif
python3 - out.sarif <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
run = d['runs'][0]
assert d['version'] == '2.1.0'
drv = run['tool']['driver']
assert drv['name'] == 'trapcheck' and drv['version'] and drv['informationUri']
ids = [r['id'] for r in drv['rules']]
# The generic rules, then each architecture's own (rules.h rules_at()).
assert ids == ['trapping-idreg-read', 'slow-entropy', 'preempt-guard',
               'local-cap-check', 'trapping-msr-read',
               'trapping-pmc-read'], ids
assert 'HCR_EL2.TID3' in drv['rules'][0]['help']['text']
# Each rule's help is its docs/diagnostics.md entry.
assert 'RDPMC' in drv['rules'][5]['help']['text'], drv['rules'][5]
rng = [r for r in run['results']
       if r['ruleId'] == 'local-cap-check' and
       r['properties']['capability'] == 'ARM64_HAS_RNG'][0]
steps = rng['codeFlows'][0]['threadFlows'][0]['locations']
names = [s['location']['message']['text'] for s in steps]
assert names[0].startswith('get_random_bytes() calls'), names
assert names[-1] == 'the sink, in __cpu_has_rng()', names
assert steps[-1]['location']['physicalLocation']['artifactLocation']['uri'] \
    == 'arch/arm64/include/asm/archrandom.h'
assert len(rng['partialFingerprints']['trapcheck/v2']) == 16
# One fingerprint per result: two sites of one function never share one.
fps = [r['partialFingerprints']['trapcheck/v2'] for r in run['results']]
assert len(fps) == len(set(fps)), fps
p = rng['properties']
assert p['root'] == 'crng' and p['phase'] == 'boot'
assert p['register'] == 'ID_AA64ISAR0_EL1' and p['trapClass'] == 'HCR_EL2.TID3'
PY
check "SARIF: rules with help from the docs, codeFlows root to sink, fingerprints, properties" [ $? -eq 0 ]

# Baselines.
"$TRAPCHECK" -p "$FX" -q $ROOTS --write-baseline base.json > /dev/null
"$TRAPCHECK" -p "$FX" -q $ROOTS --baseline base.json > same.txt
rc=$?
check_that "baseline of the same tree: nothing new, exit 0" \
	'[ $rc -eq 0 ] && [ ! -s same.txt ]'
cp -a "$FX" fixed
(cd fixed && git apply "$FX"/expected-fixes/0006-arm64-archrandom-*.patch)
"$TRAPCHECK" -p fixed $ROOTS --baseline base.json > new.txt 2> new.err
rc=$?
check_that "baseline after the __cpu_has_rng() fix: 0 new, 1 fixed" \
	'[ $rc -eq 0 ] && grep -q "^trapcheck: baseline: 0 new, [0-9]* known, 1 fixed$" new.err'
# Moved: lines above the read, and above its function; not new.
sed 's/^	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/	\/* one *\/\n	\/* two *\/\n&/; 1s/^/\/* moved *\/\n/' \
	"$FX/arch/arm64/include/asm/cpufeature.h" > fixed/arch/arm64/include/asm/cpufeature.h
"$TRAPCHECK" -p fixed -q $ROOTS --baseline base.json > moved.txt
check "fingerprints ignore line numbers: a moved read is no new finding" \
	[ $? -eq 0 ]
# Repeated: a second read in the same function is a second site, new.
sed 's/	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);\n	mmfr1 |= read_cpuid(ID_AA64MMFR1_EL1);/' \
	"$FX/arch/arm64/include/asm/cpufeature.h" > fixed/arch/arm64/include/asm/cpufeature.h
"$TRAPCHECK" -p fixed $ROOTS --baseline base.json > twice.txt 2> twice.err
rc=$?
check_that "a second read in the same function is new: one warning, at its line, exit 1" \
	'[ $rc -eq 1 ] && [ "$(grep -c ": warning: " twice.txt)" -eq 1 ] &&
	 grep -q "^arch/arm64/include/asm/cpufeature.h:135:[0-9]*: warning: read_cpuid(ID_AA64MMFR1_EL1)" twice.txt &&
	 grep -q "^trapcheck: baseline: 1 new, [0-9]* known, 1 fixed$" twice.err'

# The same, the new read above the old one (before: it took the old one's
# ordinal, so the warning was at the old read's line, 135).
sed 's/	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/	mmfr1 = read_cpuid(ID_AA64MMFR1_EL1) \& 0xf;\n&/' \
	"$FX/arch/arm64/include/asm/cpufeature.h" > fixed/arch/arm64/include/asm/cpufeature.h
"$TRAPCHECK" -p fixed $ROOTS --baseline base.json > above.txt 2> above.err
rc=$?
check_that "... a second read above the old one: the warning at the new read's line (134), exit 1" \
	'[ $rc -eq 1 ] && [ "$(grep -c ": warning: " above.txt)" -eq 1 ] &&
	 grep -q "^arch/arm64/include/asm/cpufeature.h:134:[0-9]*: warning: read_cpuid(ID_AA64MMFR1_EL1)" above.txt &&
	 grep -q "^trapcheck: baseline: 1 new, [0-9]* known, 1 fixed$" above.err'
python3 - base.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert all(len(e.get('line_hash', '')) == 16 and len(e.get('context_hash', '')) == 16
           for e in b['findings']), b['findings'][:2]
PY
check "a baseline's entries carry the hashes of their line's text and context" [ $? -eq 0 ]

# Two preempt-guard sites in one function (fault.c, is_el1_permission_fault_hot):
# a baseline made before the second existed does not hide it.
FAULT=arch/arm64/mm/fault.c
cp -a "$FX" one-site
sed -i 's/^	return this_cpu_has_cap(ARM64_HAS_PAN);$/	return false;/' one-site/$FAULT
"$TRAPCHECK" -p one-site -q $ROOTS --write-baseline one-site.json > /dev/null
"$TRAPCHECK" -p "$FX" $ROOTS --baseline one-site.json > second.txt 2> second.err
rc=$?
check_that "a second site of a function, added after the baseline: reported (preempt-guard and local-cap-check at fault.c:80)" \
	'[ $rc -eq 1 ] && [ "$(grep -c ": warning: " second.txt)" -eq 2 ] &&
	 grep -q "^$FAULT:80:[0-9]*: warning: .*\[preempt-guard\]$" second.txt &&
	 grep -q "^$FAULT:80:[0-9]*: warning: .*\[local-cap-check\]$" second.txt'
python3 - base.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b['trapcheck_baseline'] == 2, b
fps = [e['fingerprint'] for e in b['findings']]
assert len(fps) == len(set(fps)), fps
pg = [f for f in fps if f.startswith('preempt-guard:is_el1_permission_fault_hot@arch/arm64/mm/fault.c:this_cpu_has_cap:')]
assert sorted(pg) == sorted([
    'preempt-guard:is_el1_permission_fault_hot@arch/arm64/mm/fault.c:this_cpu_has_cap:ARM64_WORKAROUND_1418040:page-fault:1',
    'preempt-guard:is_el1_permission_fault_hot@arch/arm64/mm/fault.c:this_cpu_has_cap:ARM64_HAS_PAN:page-fault:1']), pg
PY
check "baseline version 2: unique fingerprints, a static function named with its file, the argument and ordinal in each" [ $? -eq 0 ]

# A version 1 baseline (fingerprints rule:function:sink:register:root,
# one entry for two sites) is still read, by line: the site it was
# written at is known, the other one is new.
TRAPCHECK="$TRAPCHECK" python3 - "$FX" <<'PY' > v1.json
import json, os, subprocess, sys
out = subprocess.run([os.environ['TRAPCHECK'], '-p', sys.argv[1], '-q',
                      '--roots', sys.argv[1] + '/variants.roots',
                      '--format=json'], capture_output=True, text=True).stdout
seen, entries = set(), []
for f in json.loads(out)['findings']:
    for r in [f] + f['also_reached']:
        fp = ':'.join([f['rule'], f['function'], f['sink'],
                       f['register'] or '-', r['root']])
        # Version 1 kept the first site of a shared fingerprint only.
        if fp in seen or (f['line'] == 80 and f['file'].endswith('fault.c')):
            continue
        seen.add(fp)
        entries.append({'fingerprint': fp, 'file': f['file'], 'line': f['line']})
print(json.dumps({'trapcheck_baseline': 1, 'findings': entries}))
PY
"$TRAPCHECK" -p "$FX" $ROOTS --baseline v1.json > v1.txt 2> v1.err
rc=$?
check_that "a version 1 baseline: matched by fingerprint and line, a note says to write it again; the second site is new" \
	'[ $rc -eq 1 ] && grep -q "^v1.json: note: a version 1 baseline" v1.err &&
	 [ "$(grep -c ": warning: " v1.txt)" -eq 2 ] &&
	 [ "$(grep -c "^$FAULT:80:[0-9]*: warning: " v1.txt)" -eq 2 ]'

# The pre-submit flow on a git repository of the fixture.
cp -a "$FX" repo
(cd repo && git init -q && git add -A &&
 git -c user.name=t -c user.email=t@example.org commit -q -m base)
sed 's/^	pte_t entry = vmf->orig_pte;$/&\n	entry.pte |= read_sysreg_s(SYS_ID_AA64MMFR0_EL1) \& 1;/' \
	"$FX/mm/memory.c" > memory.c.new
diff -u --label a/mm/memory.c --label b/mm/memory.c "$FX/mm/memory.c" \
	memory.c.new > add-read.patch
TRAPCHECK="$TRAPCHECK" TRAPCHECK_SARIF="$SCRATCH/presubmit.sarif" \
	"$TOP/contrib/presubmit.sh" repo HEAD add-read.patch $ROOTS \
	> presubmit.txt 2> presubmit.err
rc=$?
check_that "contrib/presubmit.sh reports exactly the new read, exit 1" \
	'[ $rc -eq 1 ] && [ "$(grep -c warning: presubmit.txt)" -eq 1 ] &&
	 grep -q "^mm/memory.c:[0-9]*:[0-9]*: warning: read_sysreg_s(SYS_ID_AA64MMFR0_EL1) reads ID_AA64MMFR0_EL1" presubmit.txt'
check "presubmit SARIF validates" validate presubmit.sarif
check "presubmit leaves the work tree as it was (presubmit.t: byte for byte)" \
	sh -c "cd repo && git diff --quiet"

# Waivers.
cp -a "$FX" waived
sed -i 's|		return this_cpu_has_cap(ARM64_HAS_RNG);|		return this_cpu_has_cap(ARM64_HAS_RNG); /* trapcheck: allow local-cap-check: reviewed, boot only */|' \
	waived/arch/arm64/include/asm/archrandom.h
"$TRAPCHECK" -p waived $ROOTS --format=json -o w.json 2> w.err
python3 - w.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [f for f in d['findings'] if f['function'] == '__cpu_has_rng']
assert d['summary']['waived'] == 1, d['summary']
PY
check "a source waiver on the sink's line silences it and is counted" [ $? -eq 0 ]
check "the summary counts it" grep -q '^trapcheck: 1 waived$' w.err
"$TRAPCHECK" -p waived -q $ROOTS --no-waivers > nw.txt
check "--no-waivers shows it, with its reason" \
	grep -q 'archrandom.h:[0-9]*:[0-9]*: note: waived: reviewed, boot only (arch/arm64/include/asm/archrandom.h:[0-9]*)$' nw.txt
sed -i 's|allow local-cap-check: reviewed, boot only|allow local-cap-check|' \
	waived/arch/arm64/include/asm/archrandom.h
"$TRAPCHECK" -p waived -q $ROOTS > /dev/null 2> nr.err
rc=$?
check_that "a source waiver without a reason is an error (exit 2)" \
	'[ $rc -eq 2 ] && grep -q "archrandom.h:[0-9]*: error: trapcheck waiver for local-cap-check without a reason" nr.err'
printf '# reviewed\nslow-entropy _extract_crng RDRAND patch shape kept as a fixture\n' > waivers.txt
"$TRAPCHECK" -p "$FX" $ROOTS --waivers waivers.txt --format=json -o wf.json 2>/dev/null
python3 -c "
import json; d = json.load(open('wf.json'))
assert not [f for f in d['findings'] if f['rule'] == 'slow-entropy']
assert d['summary']['waived'] == 1" 
check "a waivers file entry by function" [ $? -eq 0 ]
printf 'slow-entropy _extract_crng\n' > bad-waivers.txt
"$TRAPCHECK" -p "$FX" -q $ROOTS --waivers bad-waivers.txt > /dev/null 2> bw.err
rc=$?
check_that "a waivers file line without a reason: exit 2 naming file:line" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: bad-waivers.txt:1: waiver without a reason" bw.err'

# Pictures: one per finding (one finding per site).
"$TRAPCHECK" -p "$FX" -q $ROOTS --format=json -o pics.json
nf=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['findings']))" pics.json)
"$TRAPCHECK" -p "$FX" -q $ROOTS --graph pics > /dev/null
n=$(ls pics/*.dot | wc -l)
check "--graph: one DOT file per finding ($nf)" [ "$n" -eq "$nf" ]
check "the DOT of __cpu_has_rng names root, chain and sink" \
	sh -c "grep -q 'root -> n0' pics/*local-cap-check-__cpu_has_rng.dot &&
	       grep -q 'label=\"__cpu_has_rng\"' pics/*local-cap-check-__cpu_has_rng.dot"
check_that "DOT labels break lines with DOT's escape, not a literal backslash and n" \
	'grep -q "label=\"mm/memory.c:[0-9]*\\\\nwhen " pics/0001-*.dot &&
	 ! grep -q "\\\\\\\\n" pics/*.dot'
if command -v dot > /dev/null; then
	check "--graph: SVG beside each DOT (graphviz)" \
		[ "$(ls pics/*.svg | wc -l)" -eq "$nf" ]
	check "... whose text shows no backslash and n" \
		sh -c '! grep -q "\\\\n" pics/*.svg' 
else
	fail "--graph: SVG beside each DOT: graphviz's dot is not installed (scripts/install-deps.sh)"
fi
"$TRAPCHECK" -p "$FX" -q $ROOTS --html page.html > /dev/null
check "--html writes one page with every finding" \
	[ "$(grep -c 'class="f"' page.html)" -eq "$nf" ]
check_that "... an index linking each, the rate, the fix status and every chain" \
	'[ "$(grep -o "<a href=\"#f[0-9]*\">" page.html | sort -u | wc -l)" -eq "$nf" ] &&
	 [ "$(grep -c "<p class=\"rate\">about [0-9.]* reads\? per " page.html)" -gt 0 ] &&
	 [ "$(grep -c "<p class=\"fix\">fix: " page.html)" -eq "$nf" ] &&
	 grep -q "another way in:" page.html &&
	 grep -q "<li>under <code>prefault</code> in <code>set_pte_range()</code></li>" page.html'
"$TRAPCHECK" -p "$FX" -q $ROOTS --html fixpage.html --fix-dir fixdir > /dev/null
check "... with --fix-dir, each finding's fix status" \
	grep -q '<p class="fix">fix: fix: fixdir/0001-' fixpage.html
if command -v chromium > /dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$SCRATCH/chrome" --window-size=1400,1800 \
		--screenshot="$SCRATCH/page.png" "file://$SCRATCH/page.html" \
		> chrome.log 2>&1
	art=${TRAPCHECK_ARTEFACTS:-/tmp/trapcheck-artefacts}
	mkdir -p "$art" && cp page.png page.html "$art/" 2>/dev/null
	echo "# screenshot: $art/page.png"
	check "headless Chromium renders the page (screenshot)" [ -s page.png ]
	python3 - page.png <<'PY'
import sys, struct
b = open(sys.argv[1], 'rb').read()
w, h = struct.unpack('>II', b[16:24])
assert b[:8] == b'\x89PNG\r\n\x1a\n' and w >= 1000 and h >= 1000, (w, h)
PY
	check "the screenshot is a full-size PNG" [ $? -eq 0 ]
	# At 1280 pixels, nothing scrolls sideways: the page measures itself.
	sed 's|</body>|<script>document.body.setAttribute("data-scroll", document.documentElement.scrollWidth + " " + document.documentElement.clientWidth)</script></body>|' \
		page.html > probe.html
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$SCRATCH/chrome" --window-size=1280,900 \
		--dump-dom "file://$SCRATCH/probe.html" > probe.dom 2> /dev/null
	sw=$(sed -n 's/.*data-scroll="\([0-9]*\) [0-9]*".*/\1/p' probe.dom)
	cw=$(sed -n 's/.*data-scroll="[0-9]* \([0-9]*\)".*/\1/p' probe.dom)
	check_that "at 1280 px the page does not scroll sideways (width ${sw:-?} of ${cw:-?})" \
		'[ -n "$sw" ] && [ -n "$cw" ] && [ "$sw" -le "$cw" ]' 
else
	fail "headless Chromium is not installed (scripts/install-deps.sh)"
fi

done_testing
