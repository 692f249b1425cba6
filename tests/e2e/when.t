#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# When it runs (docs/diagnostics.md): the conditions on every chain by
# kind (rare, flag, mode, feature, argument), each present and absent, as
# the tags of tests/fixtures/when say (check-tags.py: CHECK-COND,
# CHECK-COND-NOT, CHECK-NOTE, CHECK-RATE); a site every chain of which
# needs a rare condition is a note, the first chain shown is the one with
# the fewest rare conditions; rates per operation; modes by condition
# and by path.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/when"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --format=json -o w.json
check "the when fixture: exit 1" [ $? -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" w.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "its findings, notes, conditions and rates are its tags" [ $rc -eq 0 ]
python3 - w.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x['function']: x for x in d['findings']}
low = {x['function']: x for x in d['low_confidence']}
# Every warning has conditions and a rate per operation.
for x in d['findings']:
    assert isinstance(x['conditions'], list), x
    assert x['rate']['per'] and x['rate']['how'] == 'modelled', x['rate']
    for c in x['conditions']:
        assert set(c) >= {'kind', 'text', 'function', 'file', 'line'}, c
# A condition names where it holds.
c = [c for c in f['flagged']['conditions'] if c['kind'] == 'flag'][0]
assert c['function'] == 'flagged' and c['file'] == 'mm/when.c', c
# The rare way in is the second chain; its step shows the condition.
s = f['shared_read']
assert [x['function'] for x in s['chain']] == ['when_root', 'common_way',
                                                'shared_read'], s['chain']
other = s['other_chains'][0]
assert [x['function'] for x in other] == ['when_root', 'rare_way',
                                          'shared_read'], other
rare = [c for st in other for c in st.get('conditions', [])
        if c['kind'] == 'rare']
assert rare and rare[0]['text'] == 'unlikely(err)', other
# Rare notes: per the rare event.
assert low['serror_exit']['rate'] == {'per': 'SError exit', 'value': 1.0,
                                      'how': 'modelled',
                                      'rare': 'SError exit'}, low['serror_exit']['rate']
# The loop that repeats the exit does not repeat the read within it.
r = low['serror_exit_once']['rate']
assert r['per'] == 'SError exit' and r['value'] == 1.0, r
assert [s['function'] for s in low['serror_exit_once']['chain']] == \
    ['when_root', 'serror_run_loop', 'serror_exit_once'], low['serror_exit_once']
assert low['rare_not_likely']['conditions'][0]['text'] == '!likely(src)', \
    low['rare_not_likely']['conditions']
# Modes: by condition and by path, counted per root set.
assert f['nvhe_only']['modes'] == [{'mode': 'nVHE host', 'root': 'when',
                                    'per': 'test event', 'chains': 1}], f['nvhe_only']['modes']
assert f['nvhe_path_read']['mode'] == 'nVHE host'
# Constants carried along chains: the way that passes the case's value
# is the chain shown, and the value holds (no "only when" note); two
# sites every way into which passes another value are counted, not shown.
a = f['arg_switch']
assert 'only_when' not in a or not a['only_when'], a
assert [x['function'] for x in a['chain']] == ['when_root', 'arg_three',
                                                'arg_switch'], a['chain']
assert all([x['function'] for x in o][-2] != 'arg_four'
           for o in a.get('other_chains', [])), a['other_chains']
assert d['summary']['argument_refuted_sites'] == 2, d['summary']
ex = d['summary']['argument_refuted_examples']
assert [e.split(' in ')[1] for e in ex] == ['arg_enum()', 'arg_flag()'], ex
assert 'arg_enum' not in f and 'arg_enum' not in low
assert 'arg_flag' not in f and 'arg_flag' not in low
# A parameter the body changes is not followed: still a note.
assert low['arg_enum2']['only_when'] == '<argument r is ARG_REG_B (1)>', \
    low['arg_enum2']
# Hyp code: not read_sanitised_ftr_reg(), the copy the tree keeps.
m = f['nvhe_path_read']['message']
assert 'read_sanitised_ftr_reg() cannot be called, read the copy the host keeps, id_aa64pfr0_el1_sys_val' in m, m
assert 'the sanitised copy is' not in m, m
PY
check "JSON: conditions with where they hold, the rare chain second, rates per operation or per rare event, modes; constants carried along chains; hyp code's advice names the copy the tree keeps" [ $? -eq 0 ]

"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q > w.txt
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" 2> w.err > /dev/null
check_that "text: the sites constants rule out are counted" \
	'grep -q "^trapcheck: 2 sites not reported: every way in passes a value that makes its condition false (mm/when.c:[0-9]* in arg_enum(), mm/when.c:[0-9]* in arg_flag())$" w.err'
check_that "text: an under: note with each condition's kind, a rate per operation, the argument note" \
	'grep -q "^mm/when.c:[0-9]*:10: note: under: vcpu_get_flag(vcpu,DEBUG_DIRTY) in flagged() \[flag\]$" w.txt &&
	 grep -q "^mm/when.c:[0-9]*:10: note: about 1 read per test event (mode: nVHE host; its root set.s operation; loops 1)$" w.txt &&
	 grep -q "^mm/when.c:[0-9]*:10: note: rare, not warned of: serror_exit() reached from when only under a rare condition (SError exit): about 1 read per SError exit: when_root -> serror_exit \[trapping-idreg-read\]$" w.txt &&
	 grep -q "^mm/when.c:[0-9]*:10: note: low confidence, not warned of: arg_enum2() reached from when only when <argument r is ARG_REG_B (1)> (no way in is known to pass it): when_root -> arg_changed -> arg_enum2 \[trapping-idreg-read\]$" w.txt'
python3 - w.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x['function']: x for x in d['findings']}
# Two unguarded call paths from the root in one event: the rate adds up.
two = f['save_state']
assert two['rate']['value'] == 2 and two['estimate']['reads_per_call'] == 2, two['rate']
assert two['estimate']['value'] == 2 * two['estimate']['root_weight'], two['estimate']
# Two paths under an if/else: alternatives, one read per event.
one = f['picked']
assert one['rate']['value'] == 1 and one['estimate']['reads_per_call'] == 1, one['rate']
assert len(one['other_chains']) == 1, one
PY
check "rates: call paths that all run in one event add up (2), alternatives under a condition do not (1)" [ $? -eq 0 ]
check_that "text: the note says how many call paths" \
	'grep -q "^mm/when.c:[0-9]*:9: note: about 2 reads per test event (its root set.s operation; loops 1; 2 call paths in each)$" w.txt'
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" -q --all-chains --format=json -o all.json
python3 - all.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {x['function'] for x in d['findings']}
assert {'rare_unlikely', 'rare_not_likely', 'serror_exit'} <= names, names
PY
check "--all-chains warns of the sites only rare branches reach" [ $? -eq 0 ]
# The machine's features (--features): a test of one it lacks rules the
# site out, the other side stays; given as present, the reverse.
for feat in '!ARM64_HAS_FGT' 'ARM64_HAS_FGT,!ARM64_HAS_RNG'; do
	"$TRAPCHECK" -p "$FX" --roots-dir "$FX" --features="$feat" \
		--format=json -o "f.json" 2> f.err
	echo "$?" > f.rc
	python3 - f.json "$feat" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {x['function'] for x in d['findings'] + d['low_confidence']}
has = not sys.argv[2].startswith('!')
assert ('featured' in names) == has, (sys.argv[2], names)
assert ('featured_not' in names) != has, (sys.argv[2], names)
assert 'featureless' in names and 'feature_both_read' in names, names
assert d['summary']['ruled_out_sites'] == 1, d['summary']
PY
	check "--features=$feat: the site under the test it fails is ruled out, the other side and the untested site stay" \
		[ $? -eq 0 ] && [ "$(cat f.rc)" -eq 1 ]
done
check_that "text: the sites --features rules out are counted" \
	'grep -q "^trapcheck: 1 call and sink site under a feature test the machine fails (--features) ruled out$" f.err'
"$TRAPCHECK" -p "$FX" --roots-dir "$FX" --features='ARM64_HAS_FGT,-X' \
	> /dev/null 2> bad.err
echo "$?" > bad.rc
check_that "--features: a malformed item is a usage error naming it" \
	'[ "$(cat bad.rc)" -eq 2 ] && grep -q "^trapcheck: error: --features: \"-X\" is not NAME or !NAME$" bad.err'
done_testing
