# SPDX-License-Identifier: GPL-2.0
# Shared by the make coccicheck suites (coccicheck.t, emitcocci.t), after
# tap.sh: spatch must be there, timing helpers, and the copy of a tree
# that make coccicheck M=arch/arm64 may write into.

if ! command -v spatch > /dev/null; then
	fail "spatch (Coccinelle) is installed"
	done_testing
	exit 1
fi
echo "# $(spatch --version | head -n 1)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# copy_tree TREE COPY: what make coccicheck M=arch/arm64 reads, cp -a
# (spatch --jobs writes a scratch directory in the tree; the cached trees
# are only read).
copy_tree() {
	mkdir -p "$2/arch" &&
	find "$1" -maxdepth 1 -type f -exec cp -a {} "$2/" \; &&
	cp -a "$1/scripts" "$1/include" "$2/" &&
	cp -a "$1/arch/arm64" "$2/arch/"
}

# clean_output FILE: fails, printing up to ten of them, when FILE (what
# make coccicheck printed) has a line that is not a finding, a diff, an
# org-mode item or a line coccicheck always prints.
clean_output() {
	python3 - "$1" <<'PY'
import re, sys
ok = [r'^$', r'^Please check for false positives',
      r'^When using "patch" mode', r'^/usr/bin/spatch ', r'^\S*spatch -D ',
      r'^fatal: not a git repository',      # spatch tries git grep first
      r'^\d+ files match$',
      r'^[^ :]+:\d+:\d+-\d+: WARNING: ',     # report
      r'^\* TODO \[\[view:',                 # org
      r'^diff -u -p ', r'^--- ', r'^\+\+\+ ', r'^@@ ', r'^[-+ ]']
bad = [l for l in open(sys.argv[1]).read().split('\n')
       if not any(re.match(p, l) for p in ok)]
for l in bad[:10]:
    print('# unexpected: ' + l)
sys.exit(1 if bad else 0)
PY
}
