#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Header bodies parsed once per parser process (bodyskip.h), on real
# Linux 6.12 arm64 defconfig (focus tree in make check, full tree in make
# check-full): a cold run with blanked bodies (the default) against one
# with --parse-every-body, both at -j1. Same findings, and the same facts
# as sets (tests/kernel/facts-set.py): every function, call, sink,
# indirect call, assignment, capability and include. The parsers blanked
# bodies in most TUs and parsed few again.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/kernel/lib.sh"
cd "$SCRATCH" || exit 1

tree=$(ktree 6.12)
d=$(kcold "$tree") || exit 1

# run NAME ARGS...: a cold run at -j1 into NAME.txt, kept per binary
# (konce): the parser's counters on its first line, then its facts as
# sets (tests/kernel/facts-set.py). One parser, so that both runs give
# each header function to the same TU: a header body can differ between
# TUs (debug-sr.h under __KVM_NVHE_HYPERVISOR__ or not, a callee defined
# in the TU or only declared), and which TU extracts it is the claims'
# choice, with or without blanking.
run() {
	_name=$1
	shift
	_t=$(date +%s)
	TRAPCHECK_BODYSKIP_STATS=1 "$TRAPCHECK" -p "$tree" -j1 "$@" \
		--db "$_name.db" --format=json -o "$_name.json" 2> "$_name.err"
	_rc=$?
	echo "# $_name: exit $_rc in $(( $(date +%s) - _t )) s"
	{
		sed -n 's/^bodyskip: \([0-9]*\) TUs blanked, \([0-9]*\) parsed again, \([0-9]*\) bodies.*/\1 \2 \3/p' \
			"$_name.err" | tr '\n' ' '
		echo
		python3 "$TOP/tests/kernel/facts-set.py" "$_name.db" \
			"$_name.json"
	} > "$_name.txt"
	return $_rc
}
konce "$tree" bodyskip-every every.txt run every --parse-every-body
rc_every=$rc
konce "$tree" bodyskip-blanked blanked.txt run blanked
rc_blanked=$rc

# The C TUs analysed: the assembly sources have no header bodies.
total=$(python3 -c "import json
s = json.load(open('$d/cold.json'))['summary']['tus_analysed']
S = sum(e['file'].endswith('.S') for e in json.load(open('$tree/compile_commands.json')))
print(s - S)")
read -r blanked redone bodies <<EOF
$(head -n 1 blanked.txt)
EOF
check_that "6.12: the parser blanked header bodies ($bodies) in $blanked of $total C TUs, $redone parsed again" \
	'[ "${blanked:-0}" -ge $((total * 9 / 10)) ] &&
	 [ "${bodies:-0}" -gt 1000 ] && [ "$redone" -le $((total / 20)) ]'
check_that "... --parse-every-body blanked nothing" \
	'[ -z "$(head -n 1 every.txt | tr -d " ")" ]'
check_that "... both runs exit 1 (findings)" \
	'[ "$rc_blanked" = 1 ] && [ "$rc_every" = 1 ]'
tail -n +2 every.txt > every.facts
tail -n +2 blanked.txt > blanked.facts
grep '^== ' blanked.facts | tr '\n' ' ' | sed 's/^/# /'
echo
diff every.facts blanked.facts | head -n 10 | cut -c1-200 | sed 's/^/#  /'
check_that "... the same findings (JSON) and the same facts, row for row" \
	'grep -q "^== call: [1-9]" blanked.facts &&
	 cmp -s every.facts blanked.facts'
# Warnings and notes (since the KVM host reads are notes under
# --outer=kvm, the focus tree warns of 4 sites).
n=$(python3 -c "import json; d = json.load(open('$d/cold.json')); print(len(d['findings']) + len(d['low_confidence']))")
check_that "... and there are findings to compare ($n warnings and notes; cpu_has_hw_af's read among them)" \
	'[ "$n" -ge 5 ] && grep -q "cpu_has_hw_af" blanked.facts'

# The shared cold run (-j$(nproc)) blanks too: its parsers' counters.
sb=$(sed -n 's/^bodyskip: \([0-9]*\) TUs blanked.*/\1/p' "$d/cold.err" |
     awk '{ n += $1 } END { print n + 0 }')
check_that "... the shared cold run's $(nproc) parsers blanked bodies in $sb of $total TUs" \
	'[ "$sb" -ge $((total * 8 / 10)) ]'
done_testing
