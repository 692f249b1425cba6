#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The architecture seam runs one way (docs/design.md, "An
# architecture"): an architecture is its folder checker/arch/<name>/ and
# one line of checker/arch/arches.def, and nothing else names it. The
# skeleton riscv (one sink, sbi_get_mvendorid()) is found from its
# compile database's compiler and -I.../arch/riscv/include, and reported
# on its fixture (tests/fixtures/riscv, // CHECK: tags). Then a fourth
# architecture with a table it reads from the tree and a rule of its own
# is added to a copy of trapcheck, as a developer would: its folder and
# one line of arches.def, nothing else touched, built and run.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/riscv"
cd "$SCRATCH" || exit 1

"$TRAPCHECK" -p "$FX" -q --format=json -o rv.json --db rv.db
rc=$?
check "riscv fixture: exit 1 (a finding)" [ $rc -eq 1 ]
python3 "$TOP/tests/e2e/check-tags.py" "$FX" rv.json > tags.out
rc=$?
sed 's/^/# /' tags.out
check "riscv fixture: the findings are its // CHECK: tags" [ $rc -eq 0 ]
python3 - rv.json rv.db <<'PY'
import json, sqlite3, sys
f = json.load(open(sys.argv[1]))['findings']
assert len(f) == 1, f
f = f[0]
assert f['rule'] == 'trapping-idreg-read' and f['register'] == 'MVENDORID', f
assert f['trap_class'] == 'SBI ecall', f
assert 'cache the value of MVENDORID' in f['message'], f['message']
arch = sqlite3.connect(sys.argv[2]).execute(
    "SELECT value FROM meta WHERE key = 'arch'").fetchone()[0]
assert arch == 'riscv', arch
PY
check "riscv: its trap class and the generic advice; the database records arch/riscv" [ $? -eq 0 ]

# Nothing outside its folder and arches.def names an architecture: the
# generic code reaches each through struct arch (model/arch.h) alone.
# (input/checkflags.def lists sparse's CHECKFLAGS of every kernel
# architecture, which trapcheck check drops whatever its tables.)
cd "$TOP" || exit 1
for a in riscv arm64 x86; do
	named=$(grep -rlisI --include='*.[ch]' --include='*.def' "\\<$a\\>" \
		checker include Makefile |
		grep -v "^checker/arch/\|^checker/input/checkflags.def$")
	# Comments may name it; code may not (layers.t: the words).
	code=""
	for f in $named; do
		sed 's|//.*||' "$f" | tr '\n' '\001' |
			sed 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' |
			tr '\001' '\n' | grep -qiw "$a" && code="$code $f"
	done
	check_that "no code of checker/ (but checker/arch/), include/ or the Makefile names $a:$code" \
		'[ -z "$code" ]'
done
check "arches.def lists every folder of checker/arch/" \
	sh -c 'for d in checker/arch/*/; do
		 grep -q "^ARCH($(basename "$d"))$" checker/arch/arches.def || exit 1
	       done'

# A fourth architecture, in a copy: its folder and one line, nothing else.
# The copy keeps the built objects (make only builds what is new).
COPY="$SCRATCH/copy"
mkdir "$COPY"
{ cd "$TOP" && git ls-files --cached --others --exclude-standard
  ls checker/*/*.[od] checker/arch/*.[od] checker/arch/*/*.[od] \
	libtrapcheck.a checker/output/rule-help.inc .deps-installed \
	2> /dev/null
} | sort -u | (cd "$TOP" && tar -cf - -T -) | tar -xpf - -C "$COPY"
cd "$SCRATCH" || exit 1
(cd "$COPY" && git init -q . && git add -A && git -c user.name=t \
	-c user.email=t@t commit -qm base) > /dev/null 2>&1
mkdir "$COPY/checker/arch/demo"
cat > "$COPY/checker/arch/demo/demo.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/*
 * demo.c - an architecture made to show what one takes: a sink that
 * reads a register (demo_read_id()), a table the tree keeps of the
 * registers it caches (demo_cached[]), and a rule of its own that
 * reports a read of a register the table does not cache.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

#define SINK_DEMO_READ	SINK_ARCH
enum { ARCH_TRAP_NONE = TRAP_NONE, ARCH_TRAP_TRAPS };
enum { ARCH_ROW_CACHED = 1 };

static const struct sink_def sinks[] = {
	ARCH_SINK(CALL, "demo_read_id", DEMO_READ, LEAF, true, NULL)
};
static const char *const trap_names[] = { "none", "demo trap" };
static const char *const triples[] = { "demo-" };
static const struct arch_table tables[] = {
	ARCH_TABLE_LINE("demo_cached", CACHED, ENTRIES)
};

static void read_table(const struct table_view *v, struct tu_facts *out)
{
	size_t e;

	for (e = 0; e < v->nr_entries; e++)
		facts_add_row(out, &(struct table_row_in){
			.kind = ARCH_ROW_CACHED, .table = v->name,
			.key = v->tok[v->entries[e].tok],
		});
}

static void *tables_load(const struct graph *g)
{
	return (void *)g;
}

static void tables_free(void *t)
{
}

static int tables_print(FILE *out, const void *t)
{
	const struct graph *g = t;
	size_t i;

	for (i = 0; i < g->nr_rows; i++)
		fprintf(out, "cached %s\n", g->rows[i].key);
	return 0;
}

static bool check(const struct rule_ctx *ctx, struct finding *f,
		  enum rule_scope *scope)
{
	const struct graph *g = ctx->graph;
	size_t i;

	if (ctx->def->class != SINK_DEMO_READ || !ctx->site->arg)
		return false;
	for (i = 0; i < g->nr_rows; i++)
		if (!strcmp(g->rows[i].key, ctx->site->arg))
			return false;
	f->message = xasprintf("demo_read_id(%s) reads a register "
			       "demo_cached[] does not keep",
			       ctx->site->arg);
	return true;
}

static const struct rule rules[] = {
	{ .id = "demo-uncached-read", .summary = "an uncached demo read",
	  .check = check },
	{ .id = NULL },
};

const struct arch arch_demo = {
	.name = "demo",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(trap_names),
	ARCH_TABLE(tables),
	.read_table = read_table,
	.tables_load = tables_load,
	.tables_free = tables_free,
	.tables_print = tables_print,
	.own_rules = rules,
};
EOF
echo 'ARCH(demo)' >> "$COPY/checker/arch/arches.def"
(cd "$COPY" && git add -A && git status --porcelain) > copy.status
check_that "the fourth architecture touches its folder and one line of arches.def:$(tr '\n' ' ' < copy.status)" \
	'[ "$(cat copy.status)" = "$(printf "M  checker/arch/arches.def\nA  checker/arch/demo/demo.c")" ] &&
	 [ "$(cd "$COPY" && git diff --cached --numstat checker/arch/arches.def)" = "$(printf "1\t0\tchecker/arch/arches.def")" ]'
make -s -C "$COPY" trapcheck > copy.make 2>&1
rc=$?
sed 's/^/# /' copy.make | tail -n 20
check "the copy builds with it (make)" [ $rc -eq 0 ]

# A tree of the demo architecture: a hot path reads a cached register and
# an uncached one; the tree's table says which it caches.
mkdir -p demo/kernel demo/arch/demo/include
cat > demo/kernel/hot.c <<'EOF'
unsigned long demo_read_id(int reg);

const int demo_cached[] = { 7, 8 };

unsigned long hot_path(void)
{
	return demo_read_id(7) + demo_read_id(9);
}
EOF
printf '[{"directory": "%s", "file": "kernel/hot.c", "arguments": ["gcc", "-I./arch/demo/include", "-c", "kernel/hot.c", "-o", "kernel/hot.o"]}]\n' \
	"$SCRATCH/demo" > demo/compile_commands.json
printf 'weight: 1\nper: call\nhot_path\n' > hot.roots
"$COPY/trapcheck" -p demo -q --roots hot.roots --root-set hot \
	--format=json -o demo.json 2> demo.err
rc=$?
sed 's/^/# /' demo.err
python3 - demo.json <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))['findings']
assert len(f) == 1, f
f = f[0]
assert f['rule'] == 'demo-uncached-read' and f['file'] == 'kernel/hot.c', f
assert f['line'] == 7 and f['root'] == 'hot', f
assert [s['function'] for s in f['chain']] == ['hot_path'], f['chain']
assert f['message'] == 'demo_read_id(9) reads a register demo_cached[] does not keep', f
PY
check "its rule reports the uncached read only (kernel/hot.c:7, demo-uncached-read, hot: hot_path), exit 1" \
	[ $? -eq 0 -a $rc -eq 1 ]
"$COPY/trapcheck" -p demo -q --roots hot.roots --list-caps > caps.out
check_that "its table, read from the tree (--list-caps)" \
	'[ "$(cat caps.out)" = "$(printf "cached 7\ncached 8")" ]'
"$COPY/trapcheck" -p "$FX" -q -Wno-demo-uncached-read --format=json \
	-o rv2.json
rc=$?
python3 -c 'import json, sys
a, b = (json.load(open(f))["findings"] for f in sys.argv[1:])
sys.exit(a != b)' rv.json rv2.json
check "its rule is known to the switches, and the other architectures run as before" \
	[ $? -eq 0 -a $rc -eq 1 ]
done_testing
