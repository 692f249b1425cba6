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
