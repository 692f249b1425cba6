#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --emit-cocci on the fixture tree: one rule per verified fix, pinned to its
# function and its file; spatch in patch mode, run as make coccicheck runs
# it (the file's Options, --dir, --jobs), makes exactly the changes of
# trapcheck --fix and leaves copies of the same code in another function or
# another file alone; report mode points at the sinks; a second run on the
# patched tree has nothing to do; an output that cannot be written gives
# exit 3 and leaves no file.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
LINES="$TOP/tests/e2e/diff-lines.py"
cd "$SCRATCH" || exit 1

if ! command -v spatch > /dev/null; then
	fail "spatch (Coccinelle) is installed"
	done_testing
	exit 1
fi
echo "# $(spatch --version | head -n 1)"

tc() {
	"$TRAPCHECK" -j2 -q --roots "$1/variants.roots" -p "$@"
}

# sp COCCI TREE MODE: spatch as scripts/coccicheck runs it over the whole
# tree; stdout to sp.MODE, stderr to sp.MODE.err, exit status in sp_rc
sp() {
	_flags="--very-quiet"
	case $3 in report|org) _flags="--no-show-diff $_flags" ;; esac
	# shellcheck disable=SC2046
	(cd "$2" && spatch -D "$3" $_flags --cocci-file "$SCRATCH/$1" \
		$(grep "Options:" "$SCRATCH/$1" | cut -d: -f2) \
		--dir . --jobs 2 --chunksize 1) > "sp.$3" 2> "sp.$3.err"
	sp_rc=$?
}

cp -a "$FX" tree
tc tree --emit-cocci fix.cocci --format=json -o report.json
rc=$?
check_that "--emit-cocci: exit 1 (findings) and the semantic patch written" \
	'[ $rc -eq 1 ] && [ -s fix.cocci ]'
tc tree --fix > fix.diff
check "trapcheck --fix on the same tree prints its diff" [ -s fix.diff ]
check "--help names --emit-cocci" \
	sh -c "'$TRAPCHECK' --help | grep -q -- '--emit-cocci FILE'"

python3 - fix.cocci report.json <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
fixed = sorted((f['file'], f['function'], f['line']) for f in d['findings']
               if f.get('fix', '').startswith('fix: '))
rules = re.findall(r'^@fix(\d+) depends on patch(?: disable drop_cast)?@\n'
                   r'position tc_fn : script:python\(\) '
                   r'\{ trapcheck_in\(tc_fn, "([^"]+)"\) \};\n'
                   r'(?:.*\n)*?@@\n\ntc_T (\w+)@tc_fn\(\.\.\.\)\n\{\n'
                   r'<\.\.\.\n', text, re.M)
heads = re.findall(r'^// fix(\d+): ([^:]+):(\d+):\d+ in (\w+)\(\)', text, re.M)
print('# %d fixable findings, %d rules' % (len(fixed), len(rules)))
assert len(fixed) == 6, fixed
assert len(rules) == len(fixed) == len(re.findall(r'^@fix\d+ ', text, re.M))
assert sorted((r[1], r[2]) for r in rules) == [(f, fn) for f, fn, _ in fixed]
assert sorted((h[1], h[3], int(h[2])) for h in heads) == fixed, heads
PY
check "one rule per fixable finding, pinned to its file and its function" \
	[ $? -eq 0 ]

python3 - fix.cocci <<'PY'
import re, sys
t = open(sys.argv[1]).read()
assert t.startswith('// SPDX-License-Identifier: GPL-2.0-only\n')
for want in (r'^/// ', r'^// Confidence: ', r'^// Copyright: ',
             r'^// Options: --no-includes --include-headers$',
             r'^// Requires: 1\.1\.1$', r'^virtual patch$', r'^virtual report$',
             r'^virtual context$', r'^virtual org$'):
    assert re.search(want, t, re.M), want
# scripts/coccicheck greps the whole file for these
assert t.count('Options:') == 1 and t.count('Requires:') == 1
assert 'coccilib.report.print_report' in t and 'coccilib.org.print_todo' in t
PY
check "kernel header conventions; Options: --no-includes --include-headers (sites in headers)" \
	[ $? -eq 0 ]

spatch --parse-cocci fix.cocci -D patch > parse.out 2>&1
rc=$?
check_that "spatch parses it, with no warning" \
	'[ $rc -eq 0 ] && ! grep -i "warning: line\|metavariable" parse.out'
want_q=$(sed -n 's/^tc_T \([A-Za-z0-9_]*\)@tc_fn(.*/\1/p' fix.cocci | sort -u |
	tr '\n' ' ')
for m in patch report; do
	got_q=$(spatch --parse-cocci fix.cocci -D $m 2>&1 |
		sed -n '/^Grep query/{n;p;}' | sed 's/ || /\n/g' | sort | tr '\n' ' ')
	check_that "-D $m: the token prefilter looks for the pinned functions ($got_q)" \
		'[ -n "$want_q" ] && [ "$got_q" = "$want_q" ]'
done

cp -a "$FX" sptree
sp fix.cocci sptree patch
cp sp.patch sp.diff
check_that "spatch in patch mode: exit 0, a diff, nothing on stderr" \
	'[ $sp_rc -eq 0 ] && [ -s sp.diff ] && [ ! -s sp.patch.err ]'
check "spatch's diff changes the lines trapcheck --fix changes, file for file" \
	python3 "$LINES" sp.diff fix.diff
cp -a "$FX" a-sp
cp -a "$FX" a-fix
(cd a-sp && patch -s -p1 < ../sp.diff) &&
	(cd a-fix && patch -s -p1 < ../fix.diff)
rc=$?
check_that "both diffs apply; the patched trees are the same byte for byte" \
	'[ $rc -eq 0 ] && diff -r a-sp a-fix > /dev/null'
sp fix.cocci a-sp patch
check_that "on the patched tree spatch has nothing left to do" \
	'[ $sp_rc -eq 0 ] && [ ! -s sp.patch ] && [ ! -s sp.patch.err ]'
tc a-fix --emit-cocci none.cocci -o /dev/null
grep -c '^@fix[0-9]* depends on patch[ a-z_]*@' none.cocci > none.n
sp none.cocci a-fix patch
check_that "on the fixed tree: no fix rule, and spatch runs it: exit 0, no diff" \
	'[ "$(cat none.n)" = 0 ] && [ $sp_rc -eq 0 ] && [ ! -s sp.patch ] && [ ! -s sp.patch.err ]'

# The other modes: report and org name the sinks of the fixable findings.
sp fix.cocci sptree report
sed -n 's|^\(\./\)\{0,1\}\([^:]*:[0-9]*\):[0-9-]*: WARNING: .*|\2|p' sp.report |
	sort > rep.sites
python3 - report.json <<'PY' > want.sites
import json, sys
for f in json.load(open(sys.argv[1]))['findings']:
    if f.get('fix', '').startswith('fix: '):
        print('%s:%d' % (f['file'], f['line']))
PY
sort -u want.sites -o want.sites
check_that "report mode: one WARNING per fix site, at the sink's line" \
	'[ $sp_rc -eq 0 ] && [ ! -s sp.report.err ] && [ -s rep.sites ] && cmp -s rep.sites want.sites'
check "report mode: the message is trapcheck's, with its rule" \
	grep -q ': WARNING: this_cpu_has_cap(ARM64_HAS_RNG) reads ID_AA64ISAR0_EL1 .*\[local-cap-check\]$' sp.report
sp fix.cocci sptree org
check_that "org mode: the same sites" \
	'[ $sp_rc -eq 0 ] && [ "$(grep -c "^\* TODO" sp.org)" = "$(wc -l < want.sites)" ]'
sp fix.cocci sptree context
check_that "context mode: exit 0, the sinks marked" \
	'[ $sp_rc -eq 0 ] && [ ! -s sp.context.err ] && grep -q "^-.*this_cpu_has_cap(ARM64_HAS_RNG)" sp.context'

# Pinning: the same code in another function of the same file, and the
# same functions in other files, are not rewritten.
cp -a "$FX" pin
python3 - pin <<'PY'
import os, re, sys
root = sys.argv[1]
SITES = [('arch/arm64/include/asm/cpufeature.h', 'cpu_has_hw_af'),
         ('arch/arm64/include/asm/archrandom.h', '__cpu_has_rng'),
         ('drivers/char/random.c', '_extract_crng')]

def function(text, name):
    m = re.search(r'^static [^\n]*\b%s\(.*?^}\n' % re.escape(name), text,
                  re.M | re.S)
    return m.group(0)

def add(path, text):
    full = os.path.join(root, path)
    old = open(full).read() if os.path.exists(full) else ''
    if old.rstrip().endswith('#endif'):	# a header: inside its guard
        i = old.rstrip().rfind('#endif')
        new = old[:i] + text + '\n' + old[i:]
    else:
        new = old + '\n' + text
    open(full, 'w').write(new)

for path, name in SITES:
    fn = function(open(os.path.join(root, path)).read(), name)
    # another function, same file, same body
    add(path, fn.replace(name + '(', name + '_decoy(', 1))
    # the same function in another file
    ext = os.path.splitext(path)[1]
    add(os.path.join(os.path.dirname(path), 'decoy_%s%s' % (name, ext)), fn)
PY
sp fix.cocci pin patch
cp sp.patch pin.diff
check_that "decoys: spatch changes only the fix sites (the same lines as on the plain tree)" \
	'[ $sp_rc -eq 0 ] && python3 "$LINES" pin.diff sp.diff'
check_that "decoys: no decoy file in the diff" \
	'! python3 "$LINES" --files pin.diff | grep -q decoy'
# The controls: without the file pin the decoy files are rewritten; pinned
# to the _decoy functions, the decoys in the sites' own files are.
sed 's/trapcheck_in(tc_fn, "[^"]*")/True/' fix.cocci > nofile.cocci
sp nofile.cocci pin patch
check_that "control: without the file pin, the decoy files are rewritten" \
	'[ "$(python3 "$LINES" --files sp.patch | grep -c decoy)" = 3 ]'
sed 's/^tc_T \([A-Za-z0-9_]*\)@tc_fn(/tc_T \1_decoy@tc_fn(/' fix.cocci > other.cocci
sp other.cocci pin patch
cp -a pin pin-other
(cd pin-other && patch -s -p1 < ../sp.patch)
python3 - pin pin-other <<'PY'
import re, sys
SITES = [('arch/arm64/include/asm/cpufeature.h', 'cpu_has_hw_af'),
         ('arch/arm64/include/asm/archrandom.h', '__cpu_has_rng'),
         ('drivers/char/random.c', '_extract_crng')]

def function(path, name):
    text = open(path).read()
    return re.search(r'^static [^\n]*\b%s\(.*?^}\n' % re.escape(name), text,
                     re.M | re.S).group(0)

for path, name in SITES:
    a, b = sys.argv[1] + '/' + path, sys.argv[2] + '/' + path
    assert function(a, name) == function(b, name), name
    assert function(a, name + '_decoy') != function(b, name + '_decoy'), name
PY
rc=$?
check_that "control: pinned to the _decoy functions, those are rewritten instead" \
	'[ $rc -eq 0 ] && [ -s sp.patch ]'

# Outputs that cannot be written: exit 3, nothing left behind.
tc tree --emit-cocci nodir/x.cocci -o /dev/null 2> nodir.err
rc=$?
check_that "--emit-cocci into a missing directory: exit 3, an error, no file" \
	'[ $rc -eq 3 ] && grep -q "nodir/x.cocci: cannot write" nodir.err && [ ! -e nodir ]'
mkdir isdir
tc tree --emit-cocci isdir -o /dev/null 2> isdir.err
rc=$?
check_that "--emit-cocci onto a directory: exit 3, no temporary left" \
	'[ $rc -eq 3 ] && [ -d isdir ] && [ -z "$(ls isdir)" ] && [ -z "$(ls | grep "isdir\.tmp")" ]'
tc tree --emit-cocci /dev/full -o /dev/null 2> full.err
check "--emit-cocci on a full device: exit 3" [ $? -eq 3 ]

done_testing
