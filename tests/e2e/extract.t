#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Extraction regressions on small trees made from the fixture.
#
# A function whose definition starts with a macro from another file
# (arm_neon.h's "__ai", the kernel's "asmlinkage", SYSCALL_DEFINE3()):
# its extent starts at a macro location, and tokenizing that extent as
# is tokenized from the macro's definition: the guards of its calls were
# lost (other file) and arm_neon.h took minutes (lib/raid6/neon8.c: 72 s,
# every function re-tokenized from the top of the header). The tokens
# now come from the extent in expansion locations.
. "$(dirname "$0")/../tap.sh"
cd "$SCRATCH" || exit 1

cp -a "$TOP/tests/fixtures/kernel" mf
cat > mf/mm/macrofn.h <<'C'
#define __myai static inline __attribute__((__always_inline__))
C
python3 - mf <<'PY'
import json, sys
tree = sys.argv[1]
# A chain of 3000 such functions: the old tokenization was quadratic.
fns = ''.join('__myai void chain_%d(void)\n{\n\tchain_%d();\n}\n\n' %
              (i, i - 1) for i in range(1, 3000))
open(tree + '/mm/macrofn.c', 'w').write('''#include <linux/types.h>
#include <asm/cpufeature.h>
#include "macrofn.h"

extern bool hot_ready(void);

__myai bool hot_helper(void)
{
	if (hot_ready())
		return cpu_has_hw_af();
	return false;
}

__myai void chain_0(void)
{
	hot_helper();
}

''' + fns + '''void macrofn_root(void)
{
	chain_2999();
}
''')
path = tree + '/compile_commands.json'
d = json.load(open(path))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
e = dict(base, file='mm/macrofn.c')
e['arguments'] = [a.replace('mm/memory', 'mm/macrofn') for a in base['arguments']]
d.append(e)
json.dump(d, open(path, 'w'), indent=1)
PY
echo macrofn_root > mf.roots
"$TRAPCHECK" -p mf --roots mf.roots --root-set mf --format=json -q -o mf.json
rc=$?
check "a function that starts with a macro: the run finds cpu_has_hw_af() through 3001 of them" \
	[ $rc -eq 1 ]
python3 - mf.json > steps.txt <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))['findings']:
    if f['chain'][0]['function'] == 'macrofn_root':
        for s in f['chain']:
            print(s['function'], s.get('guards') or '-')
PY
check_that "... the chain is macrofn_root -> chain_2999 -> ... -> chain_0 -> hot_helper -> cpu_has_hw_af" \
	'[ "$(head -n 1 steps.txt)" = "macrofn_root -" ] && [ "$(wc -l < steps.txt)" = 3003 ] &&
	 tail -n 1 steps.txt | grep -q "^cpu_has_hw_af "'
check_that "... and the call in hot_helper() keeps its guard (hot_ready())" \
	'grep -qx "hot_helper hot_ready()" steps.txt'
done_testing
