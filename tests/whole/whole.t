#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole kernel (make check-full, make check-whole): every C file of
# Linux 6.12's arm64 defconfig build, vmlinux and modules, drivers
# included (scripts/kernel-tree.sh 6.12 all: kbuild's own command lines,
# the C files not compiled, scripts/kbuild-stub-cc). The cold run
# analyses at least 95% of the C entries; the interrupt entry and the
# NAPI poll are roots from their registrations; two shards joined give
# the single run's findings; a warm run parses nothing; the findings are
# those recorded in tests/kernel/expected/linux-6.12-all.json
# (tests/regen-expected.sh --whole), judged in docs/findings-6.12-all.md.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

t=$(date +%s)
tree=$("$TOP/scripts/kernel-tree.sh" 6.12 all | tail -n 1)
echo "# tree: $tree ($(( $(date +%s) - t )) s)"
read -r nc nm <<EOF
$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(e["file"].endswith(".c") for e in d),
      sum(e["file"].endswith(".mod.c") for e in d))' "$tree/compile_commands.json")
EOF
check "the whole build's compile database: $nc C entries, $nm of them modules' .mod.c" \
	[ "$nc" -ge 9000 -a "$nm" -ge 1000 ]

# The stand-in compiler changes no command line: every entry of the
# drivers tree (a real build of those objects) is in the whole build's
# database, the same command byte for byte (the tree's path aside).
drv=$("$TOP/scripts/kernel-tree.sh" 6.12 drivers | tail -n 1)
python3 - "$drv" "$tree" <<'PY' > same.out
import json, sys
def load(t):
    out = {}
    for e in json.load(open(t + '/compile_commands.json')):
        # (trapcheck-compdb writes paths relative to the tree)
        w = e['command'].replace(t + '/', '').replace(t, 'TREE').split()
        out[w[w.index('-o') + 1]] = ' '.join(w)
    return out
real, stub = load(sys.argv[1]), load(sys.argv[2])
bad = [o for o in real if stub.get(o) != real[o]]
print(len(real), len(bad), ' '.join(bad[:5]))
PY
read -r nreal nbad badlist < same.out
check "the drivers tree's $nreal real-build commands are the whole build's, byte for byte (differ: ${badlist:-none})" \
	[ "$nreal" -ge 200 -a "$nbad" -eq 0 ]

d=$(kcold "$tree")
sed 's/^/# /' "$d/cold.err" | tail -n 3
line=$(grep '^trapcheck: [0-9]* TUs analysed' "$d/cold.err")
na=$(echo "$line" | sed 's/^trapcheck: \([0-9]*\) TUs analysed.*/\1/')
ne=$(echo "$line" | sed 's/.*(\([0-9]*\) with errors.*/\1/')
check_that "cold: $na of $nc C entries analysed (at least 95%), $ne with errors" \
	'[ -n "$na" ] && [ $((na * 100)) -ge $((nc * 95)) ]'
check "cold: exit 0 or 1 (findings), not a failure: $(cat "$d/cold.rc")" \
	[ "$(cat "$d/cold.rc")" -le 1 ]

kdb "$tree" w.db
"$TRAPCHECK" -p "$tree" --db w.db --no-progress --format=json -o warm.json \
	2> warm.err
check_that "warm: no TU parsed again, the graph read as the cold run stored it" \
	'grep -q "^trapcheck: 0 TUs parsed, [0-9]* from the database, linked as stored$" warm.err'
"$TRAPCHECK" -p "$tree" --db w.db --list-roots > roots.txt 2> /dev/null
for r in "irq gic_handle_irq argument 0 of set_handle_irq()" \
	 "net-rx virtnet_poll argument 2 of netif_napi_add_weight()"; do
	set -- $r
	s=$1 f=$2
	shift 2
	check_that "--list-roots: $f, a root of $s, registered as $*" \
		"awk -F'\t' -v s='$s' -v f='$f' -v t='$*' '\$1 == s && \$3 == f &&
			\$5 == \"registered\" && index(\$4, \"registered as \" t)' \
			roots.txt | grep -q ."
done

# Two shards, joined: the single run's findings, field for field.
for k in 1 2; do
	"$TRAPCHECK" -p "$tree" --shard "$k/2" --db "s$k.db" --no-progress \
		2> "s$k.err"
	echo "# $(tail -n 1 "s$k.err")"
done
"$TRAPCHECK" report --db s1.db --db s2.db --format=json -o joined.json \
	2> /dev/null
python3 - joined.json "$d/cold.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a['findings'] == b['findings'], 'findings differ'
for k in ('sink_sites', 'tus_analysed'):
    if k in b['summary']:
        assert a['summary'][k] == b['summary'][k], k
PY
check "two shards joined: the single run's findings, field for field" [ $? -eq 0 ]

pkg=$(sed -n 's/.* package=\([^ ]*\) .*/\1/p' "$tree/.trapcheck-key")
"$TOP/tests/golden.py" compare "$TOP/tests/kernel/expected/linux-6.12-all.json" \
	"$d/cold.json" --package "$pkg" > cmp.out
case $? in
0) ok "the findings are the recorded (and judged) ones" ;;
2) echo "ok $((tap_n += 1)) # skip the record: $(cat cmp.out)" ;;
*) sed 's/^/# /' cmp.out | head -n 60
   fail "the findings are the recorded (and judged) ones" ;;
esac

done_testing
