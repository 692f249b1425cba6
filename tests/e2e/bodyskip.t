#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Header bodies parsed once per parser process (bodyskip.h): a TU after
# the first gets the headers an earlier TU had with those bodies blanked.
# The findings must be those of --parse-every-body, also when the text at
# a blanked place is another function in this TU (a header included with
# another macro naming its function) or when the blanking makes an error:
# both parse that TU again in full.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1

stats() {	# the parser's counters: TUs blanked, parsed again, bodies
	sed -n 's/^bodyskip: \([0-9]*\) TUs blanked, \([0-9]*\) parsed again, \([0-9]*\) bodies.*/\1 \2 \3/p' "$1"
}

# One parser (-j1): the TUs meet the headers in the database's order.
TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" -p "$TOP/tests/fixtures/kernel" \
	-j1 --format=json -o skip.json 2> skip.err
rc_skip=$?
TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" -p "$TOP/tests/fixtures/kernel" \
	-j1 --parse-every-body --format=json -o every.json 2> every.err
rc_every=$?
read -r tus redone bodies <<EOF
$(stats skip.err)
EOF
check_that "fixture: later TUs were parsed with bodies blanked ($tus TUs, $bodies bodies)" \
	'[ "${tus:-0}" -gt 0 ] && [ "${bodies:-0}" -gt 0 ] && [ "$redone" = 0 ]'
check_that "... --parse-every-body blanks nothing" \
	'! grep -q "^bodyskip:" every.err'
check_that "... same exit status ($rc_skip) and the same JSON, byte for byte" \
	'[ $rc_skip -eq $rc_every ] && [ $rc_skip -eq 1 ] && cmp skip.json every.json'
grep -v "^bodyskip:" skip.err > skip.diag
grep -v "^bodyskip:" every.err > every.diag
check_that "... and the same findings on stderr" \
	'[ -s skip.diag ] && cmp skip.diag every.diag'

# A header without a guard whose functions a macro names: the same bytes
# are gen_a() in one TU and gen_b() in the next, and only gen_b() reaches
# the sink. Its body was blanked for b.c; nothing else claimed gen_b().
# gen_b2() is the same case, met in the full parse that gen_b() asked
# for: that parse walks it (it once stopped there, gen_root_b2's TU lost).
cp -a "$TOP/tests/fixtures/kernel" mt
cat > mt/mm/gen.h <<'C'
static inline bool GEN_NAME(void)
{
	return GEN_BODY;
}

static inline bool GEN_NAME2(void)
{
	return GEN_BODY;
}
C
cat > mt/mm/gen_a.c <<'C'
#include <linux/types.h>
#include <asm/cpufeature.h>
#define GEN_NAME gen_a
#define GEN_NAME2 gen_a2
#define GEN_BODY false
#include "gen.h"

void gen_root_a(void)
{
	gen_a();
}
C
cat > mt/mm/gen_b.c <<'C'
#include <linux/types.h>
#include <asm/cpufeature.h>
#define GEN_NAME gen_b
#define GEN_NAME2 gen_b2
#define GEN_BODY cpu_has_hw_af()
#include "gen.h"

void gen_root_b(void)
{
	gen_b();
}

void gen_root_b2(void)
{
	gen_b2();
}
C
# And a body whose blanking breaks the TU: a macro defined with the
# digraph `%:` (blanked, as any token that is not a `#` line) and used
# outside any body. A blanked parse with an error: the TU is parsed
# again in full. (A `#` line in a comment is no directive: blanked with
# the comment, tests/unit/test-bodyskip.c.)
cat > mt/mm/odd.h <<'C'
static inline bool odd_helper(void)
{
	/* a comment whose second line starts with a hash:
# not a directive */
%:define ODD_LEVEL 1
	return cpu_has_hw_af();
}

static const int odd_level = ODD_LEVEL;
C
for f in odd_a odd_b; do
	cat > mt/mm/$f.c <<C
#include <linux/types.h>
#include <asm/cpufeature.h>
#include "odd.h"

void ${f}_root(void)
{
	if (odd_level)
		odd_helper();
}
C
done
python3 - mt <<'PY'
import json, sys
tree = sys.argv[1]
path = tree + '/compile_commands.json'
d = json.load(open(path))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
# Only the new TUs, in this order: gen_a before gen_b, odd_a first.
d = []
for name in ('gen_a', 'gen_b', 'odd_a', 'odd_b'):
    e = dict(base, file='mm/%s.c' % name)
    e['arguments'] = [a.replace('mm/memory', 'mm/' + name)
                      for a in base['arguments']]
    d.append(e)
json.dump(d, open(path, 'w'), indent=1)
PY
printf 'gen_root_a\ngen_root_b\n' > gen.roots
printf 'gen_root_b2\n' > gen2.roots
printf 'odd_a_root\nodd_b_root\n' > odd.roots
set -- -p mt --roots gen.roots --roots gen2.roots --roots odd.roots \
	--root-set gen,gen2,odd \
	--per-root -j1 --format=json
TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" "$@" -o mt-skip.json 2> mt-skip.err
rc_skip=$?
"$TRAPCHECK" "$@" --parse-every-body -o mt-every.json 2> mt-every.err
rc_every=$?
python3 - mt-skip.json > mt-skip.chains <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))['findings']:
    print('%s:%s %s %s' % (f['file'], f['line'], f['rule'],
          ' -> '.join(s['function'] for s in f['chain'])))
PY
sed 's/^/# /' mt-skip.chains
read -r tus redone bodies <<EOF
$(stats mt-skip.err)
EOF
check_that "gen_b.c and odd_b.c parsed again in full ($redone of $tus TUs)" \
	'[ "$tus" = 3 ] && [ "$redone" = 2 ]'
check_that "... the macro-named gen_b(): trapping-idreg-read in cpufeature.h through gen_root_b -> gen_b -> cpu_has_hw_af" \
	'grep -q "^arch/arm64/include/asm/cpufeature.h:[0-9]* trapping-idreg-read gen_root_b -> gen_b -> cpu_has_hw_af\$" mt-skip.chains'
check_that "... and gen_b2(), met in gen_b.c's full parse: through gen_root_b2 -> gen_b2 -> cpu_has_hw_af" \
	'grep -q "^arch/arm64/include/asm/cpufeature.h:[0-9]* trapping-idreg-read gen_root_b2 -> gen_b2 -> cpu_has_hw_af\$" mt-skip.chains'
check_that "... the body with the error: trapping-idreg-read in cpufeature.h through odd_a_root -> odd_helper -> cpu_has_hw_af" \
	'grep -q "^arch/arm64/include/asm/cpufeature.h:[0-9]* trapping-idreg-read odd_a_root -> odd_helper -> cpu_has_hw_af\$" mt-skip.chains'
check_that "... no TU left with errors (the blanked parse's error is not reported)" \
	'grep -q "4 TUs analysed (0 with errors" mt-skip.err'
check_that "... same exit status ($rc_skip) and JSON as --parse-every-body" \
	'[ $rc_skip -eq $rc_every ] && [ $rc_skip -eq 1 ] && cmp mt-skip.json mt-every.json'
done_testing
