// SPDX-License-Identifier: GPL-2.0
/*
 * test-graph.c - merging TU facts, reachability from a root set and the
 * rule engine over a hand-built call graph.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trapcheck/clang/extract.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/graph/reach.h"
#include "trapcheck/input/roots.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/base/util.h"

#define MEMORY_C	"mm/memory.c"
#define RANDOM_C	"drivers/char/random.c"
#define CPUFEATURE_H	"arch/arm64/include/asm/cpufeature.h"
#define CPUFEATURE_C	"arch/arm64/kernel/cpufeature.c"

#define KEY_ROOT	"c:@F@root_fn"
#define KEY_MID		"c:@F@mid"
#define KEY_LONG_A	"c:@F@long_a"
#define KEY_LONG_B	"c:@F@long_b"
#define KEY_TARGET	"c:@F@target"
#define KEY_HDR		"c:cpufeature.h@F@hdr_inline"
#define KEY_CHECK_MM	"c:memory.c@F@check_one@mm/memory.c"
#define KEY_CHECK_RND	"c:random.c@F@check_one@drivers/char/random.c"
#define KEY_LONELY	"c:@F@lonely"
#define KEY_CAP		"c:@F@this_cpu_has_cap"
#define KEY_HIDDEN	"c:@F@hidden"

/* Functions of the first TU, mm/memory.c, in tu_facts.funcs order. */
enum {
	MM_ROOT, MM_MID, MM_LONG_A, MM_LONG_B, MM_TARGET, MM_HDR,
	MM_CHECK_ONE, MM_LONELY,
};

/* Functions of the second TU, drivers/char/random.c. */
enum { RND_HDR, RND_CHECK_ONE, RND_CAP, RND_HIDDEN };

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void facts_init(struct tu_facts *f, const char *file)
{
	memset(f, 0, sizeof(*f));
	f->file = xstrdup(file);
}

static int add_func(struct tu_facts *f, const char *key, const char *name,
		    const char *file, unsigned line, bool is_static)
{
	struct tu_func *fn = PUSH(f->funcs, f->nr_funcs, f->alloc_funcs);

	memset(fn, 0, sizeof(*fn));
	fn->key = xstrdup(key);
	fn->name = xstrdup(name);
	fn->file = xstrdup(file);
	fn->line = line;
	fn->col = 1;
	fn->is_static = is_static;
	return (int)(f->nr_funcs - 1);
}

static void add_call(struct tu_facts *f, int caller, const char *key,
		     const char *name, const char *file, unsigned line,
		     unsigned col, const char *via)
{
	struct tu_call *c = PUSH(f->calls, f->nr_calls, f->alloc_calls);

	memset(c, 0, sizeof(*c));
	c->caller = caller;
	c->callee_key = xstrdup(key);
	c->callee_name = xstrdup(name);
	c->callee_file = xstrdup("include/linux/decls.h");
	c->callee_line = 1;
	c->file = xstrdup(file);
	c->line = line;
	c->col = col;
	c->via = dup_or_null(via);
}

static void add_sink(struct tu_facts *f, int func, int sink,
		     const char *arg, const char *file, unsigned line)
{
	struct tu_sink *s = PUSH(f->sinks, f->nr_sinks, f->alloc_sinks);

	assert_true(sink >= 0);
	memset(s, 0, sizeof(*s));
	s->func = func;
	s->sink = sink;
	s->arg = dup_or_null(arg);
	s->file = xstrdup(file);
	s->line = line;
	s->col = 9;
}

/*
 * mm/memory.c:
 *   root_fn -> long_a -> long_b -> target	(first call site)
 *   root_fn -> mid -> target			(shorter)
 *   root_fn -> mid				(a second, earlier site)
 *   root_fn -> this_cpu_has_cap		(opaque)
 *   root_fn -> hdr_inline -> mid
 *   lonely -> check_one			(not reachable)
 * drivers/char/random.c:
 *   hdr_inline -> mid				(the same header body)
 *   this_cpu_has_cap -> hidden			(behind the opaque sink)
 *   check_one					(another static one)
 */
static void build_tu_memory(struct tu_facts *f)
{
	facts_init(f, MEMORY_C);
	add_func(f, KEY_ROOT, "root_fn", MEMORY_C, 10, false);
	add_func(f, KEY_MID, "mid", MEMORY_C, 20, false);
	add_func(f, KEY_LONG_A, "long_a", MEMORY_C, 30, false);
	add_func(f, KEY_LONG_B, "long_b", MEMORY_C, 40, false);
	add_func(f, KEY_TARGET, "target", MEMORY_C, 50, false);
	add_func(f, KEY_HDR, "hdr_inline", CPUFEATURE_H, 100, true);
	add_func(f, KEY_CHECK_MM, "check_one", MEMORY_C, 60, true);
	add_func(f, KEY_LONELY, "lonely", MEMORY_C, 70, false);

	add_call(f, MM_ROOT, KEY_LONG_A, "long_a", MEMORY_C, 11, 2, NULL);
	add_call(f, MM_ROOT, KEY_MID, "mid", MEMORY_C, 13, 2, NULL);
	add_call(f, MM_ROOT, KEY_MID, "mid", MEMORY_C, 12, 9, "mid_alias");
	add_call(f, MM_ROOT, KEY_CAP, "this_cpu_has_cap", MEMORY_C, 14, 2,
		 NULL);
	add_call(f, MM_ROOT, KEY_HDR, "hdr_inline", MEMORY_C, 15, 2, NULL);
	add_call(f, MM_LONG_A, KEY_LONG_B, "long_b", MEMORY_C, 31, 2, NULL);
	add_call(f, MM_LONG_B, KEY_TARGET, "target", MEMORY_C, 41, 2, NULL);
	add_call(f, MM_MID, KEY_TARGET, "target", MEMORY_C, 21, 2, NULL);
	add_call(f, MM_HDR, KEY_MID, "mid", CPUFEATURE_H, 101, 2, NULL);
	add_call(f, MM_LONELY, KEY_CHECK_MM, "check_one", MEMORY_C, 71, 2,
		 NULL);
}

static void build_tu_random(struct tu_facts *f)
{
	facts_init(f, RANDOM_C);
	add_func(f, KEY_HDR, "hdr_inline", CPUFEATURE_H, 100, true);
	add_func(f, KEY_CHECK_RND, "check_one", RANDOM_C, 80, true);
	add_func(f, KEY_CAP, "this_cpu_has_cap", CPUFEATURE_C, 3, false);
	add_func(f, KEY_HIDDEN, "hidden", RANDOM_C, 90, false);

	add_call(f, RND_HDR, KEY_MID, "mid", CPUFEATURE_H, 101, 2, NULL);
	add_call(f, RND_CAP, KEY_HIDDEN, "hidden", CPUFEATURE_C, 5, 2, NULL);
}

struct sink_spec {
	bool random_tu;		/* else mm/memory.c */
	int func;
	enum sink_how how;
	const char *name;
	const char *arg;
	const char *file;
	unsigned line;
};

/* Merge both TUs, their facts freed at once: the graph owns copies. */
static void build_graph(struct graph *g, const struct sink_spec *sinks,
			size_t nr_sinks)
{
	struct tu_facts mm, rnd;
	size_t i;

	build_tu_memory(&mm);
	build_tu_random(&rnd);
	for (i = 0; i < nr_sinks; i++) {
		const struct sink_spec *s = &sinks[i];

		add_sink(s->random_tu ? &rnd : &mm, s->func,
			 sink_lookup(s->how, s->name), s->arg, s->file,
			 s->line);
	}
	graph_init(g);
	graph_merge(g, &mm);
	facts_free(&mm);
	graph_merge(g, &rnd);
	facts_free(&rnd);
	graph_finish(g);
}

static int node(const struct graph *g, const char *key)
{
	int n = graph_find(g, key);

	if (n < 0)
		print_error("no node %s\n", key);
	assert_true(n >= 0);
	return n;
}

/* The edges from @caller to @callee; the last one's index in *@edge. */
static int count_edges(const struct graph *g, int caller, int callee,
		       int *edge)
{
	size_t i;
	int n = 0;

	for (i = 0; i < g->nr_edges; i++) {
		if (g->edges[i].caller == caller &&
		    g->edges[i].callee == callee) {
			n++;
			*edge = (int)i;
		}
	}
	return n;
}

static void test_merge_nodes(void **state)
{
	struct graph g;
	int found[4], hdr, cap;
	size_t n;

	build_graph(&g, NULL, 0);
	/* 8 + this_cpu_has_cap (called) + check_one, hidden of random.c */
	assert_int_equal(g.nr_nodes, 11);

	/* A header static inline seen by both TUs is one node. */
	assert_int_equal(graph_find_name(&g, "hdr_inline", found, 4), 1);
	hdr = node(&g, KEY_HDR);
	assert_int_equal(found[0], hdr);
	assert_string_equal(g.nodes[hdr].name, "hdr_inline");
	assert_string_equal(g.nodes[hdr].file, CPUFEATURE_H);
	assert_true(g.nodes[hdr].defined);
	assert_true(g.nodes[hdr].is_static);

	/* Two static functions of one name stay apart. */
	n = graph_find_name(&g, "check_one", found, 4);
	assert_int_equal(n, 2);
	assert_int_not_equal(found[0], found[1]);
	assert_true(found[0] == node(&g, KEY_CHECK_MM) ||
		    found[1] == node(&g, KEY_CHECK_MM));
	assert_true(found[0] == node(&g, KEY_CHECK_RND) ||
		    found[1] == node(&g, KEY_CHECK_RND));
	assert_string_equal(g.nodes[node(&g, KEY_CHECK_MM)].file, MEMORY_C);
	assert_string_equal(g.nodes[node(&g, KEY_CHECK_RND)].file, RANDOM_C);
	assert_int_equal(graph_find_name(&g, "no_such_function", found, 4),
			 0);
	assert_int_equal(graph_find(&g, "c:@F@no_such_function"), -1);

	/* Called from memory.c, defined in random.c's facts. */
	cap = node(&g, KEY_CAP);
	assert_true(g.nodes[cap].defined);
	assert_true(g.nodes[cap].opaque);
	assert_string_equal(g.nodes[cap].file, CPUFEATURE_C);
	assert_int_equal(g.nodes[cap].line, 3);
	assert_false(g.nodes[node(&g, KEY_MID)].opaque);

	/* Interned: equal strings are one pointer. */
	assert_ptr_equal(g.nodes[node(&g, KEY_ROOT)].file,
			 g.nodes[node(&g, KEY_MID)].file);
	graph_free(&g);
}

/*
 * A header static inline claimed by a later TU: the first TU only calls
 * it, so the node exists, undefined, before the definition arrives.
 */
static void test_merge_defined_later(void **state)
{
	struct tu_facts caller, owner;
	struct gnode n;
	struct graph g;
	size_t nr_nodes;
	bool defined_early;
	int hdr;

	facts_init(&caller, MEMORY_C);
	add_func(&caller, KEY_ROOT, "root_fn", MEMORY_C, 10, false);
	add_call(&caller, 0, KEY_HDR, "hdr_inline", MEMORY_C, 11, 2, NULL);
	facts_init(&owner, RANDOM_C);
	add_func(&owner, KEY_HDR, "hdr_inline", CPUFEATURE_H, 100, true);

	graph_init(&g);
	graph_merge(&g, &caller);
	hdr = graph_find(&g, KEY_HDR);
	defined_early = hdr >= 0 && g.nodes[hdr].defined;
	graph_merge(&g, &owner);
	facts_free(&caller);
	facts_free(&owner);
	graph_finish(&g);
	nr_nodes = g.nr_nodes;
	n = g.nodes[node(&g, KEY_HDR)];
	assert_int_equal(graph_find(&g, KEY_HDR), hdr);
	assert_string_equal(n.file, CPUFEATURE_H);
	/* Checked after graph_free(): a failure leaks nothing. */
	graph_free(&g);

	assert_true(hdr >= 0);
	assert_false(defined_early);
	assert_int_equal(nr_nodes, 2);
	assert_true(n.defined);
	assert_int_equal(n.line, 100);
	assert_int_equal(n.col, 1);
	assert_true(n.is_static);
}

static void test_merge_edges(void **state)
{
	struct graph g;
	int root, mid, hdr, e = -1;

	build_graph(&g, NULL, 0);
	/* Ten distinct caller -> callee pairs over both TUs. */
	assert_int_equal(g.nr_edges, 10);

	root = node(&g, KEY_ROOT);
	mid = node(&g, KEY_MID);
	hdr = node(&g, KEY_HDR);

	/* Called at lines 13 and 12: one edge, at the earlier site. */
	assert_int_equal(count_edges(&g, root, mid, &e), 1);
	assert_string_equal(g.edges[e].file, MEMORY_C);
	assert_int_equal(g.edges[e].line, 12);
	assert_int_equal(g.edges[e].col, 9);
	assert_non_null(g.edges[e].via);
	assert_string_equal(g.edges[e].via, "mid_alias");

	/* The header body's call, extracted by both TUs: one edge. */
	assert_int_equal(count_edges(&g, hdr, mid, &e), 1);
	assert_string_equal(g.edges[e].file, CPUFEATURE_H);
	assert_int_equal(g.edges[e].line, 101);
	assert_null(g.edges[e].via);

	/* Out edges are in call-site order after graph_finish(). */
	assert_int_equal(g.nodes[root].nr_out, 4);
	assert_int_equal(g.edges[g.nodes[root].out[0]].callee,
			 node(&g, KEY_LONG_A));
	assert_int_equal(g.edges[g.nodes[root].out[1]].callee, mid);
	assert_int_equal(g.edges[g.nodes[root].out[2]].callee,
			 node(&g, KEY_CAP));
	assert_int_equal(g.edges[g.nodes[root].out[3]].callee, hdr);
	graph_free(&g);
}

static char *crng_funcs[] = { "root_fn" };
static struct root_set crng_set = {
	.name = "crng",
	.path = "roots/crng.roots",
	.funcs = crng_funcs,
	.nr = 1,
	.alloc = 1,
};
static const struct root_sets crng_sets = {
	.sets = &crng_set,
	.nr = 1,
	.alloc = 1,
};

static void test_reach_shortest(void **state)
{
	struct graph g;
	struct reach r;
	int root, mid, target, long_b, *edges = NULL;
	size_t n;

	build_graph(&g, NULL, 0);
	reach_compute(&g, &crng_set, false, NULL, NULL, &r);
	root = node(&g, KEY_ROOT);
	mid = node(&g, KEY_MID);
	target = node(&g, KEY_TARGET);
	long_b = node(&g, KEY_LONG_B);

	assert_int_equal(r.nr_roots, 1);
	assert_true(reach_has(&r, root));
	assert_int_equal(r.parent[root], REACH_ROOT);
	assert_int_equal(reach_chain(&g, &r, root, &edges), 0);
	free(edges);

	/* root_fn -> mid -> target, not the earlier-called long way. */
	assert_true(reach_has(&r, target));
	assert_int_equal(r.depth[target], 2);
	n = reach_chain(&g, &r, target, &edges);
	assert_int_equal(n, 2);
	assert_int_equal(g.edges[edges[0]].caller, root);
	assert_int_equal(g.edges[edges[0]].callee, mid);
	assert_int_equal(g.edges[edges[0]].line, 12);
	assert_int_equal(g.edges[edges[1]].caller, mid);
	assert_int_equal(g.edges[edges[1]].callee, target);
	free(edges);

	assert_true(reach_has(&r, long_b));
	n = reach_chain(&g, &r, long_b, &edges);
	assert_int_equal(n, 2);
	assert_int_equal(g.edges[edges[0]].callee, node(&g, KEY_LONG_A));
	assert_int_equal(g.edges[edges[1]].callee, long_b);
	free(edges);

	assert_true(reach_has(&r, node(&g, KEY_HDR)));
	reach_free(&r);
	graph_free(&g);
}

static void test_reach_unreachable(void **state)
{
	struct graph g;
	struct reach r;

	build_graph(&g, NULL, 0);
	reach_compute(&g, &crng_set, false, NULL, NULL, &r);
	assert_false(reach_has(&r, node(&g, KEY_LONELY)));
	assert_int_equal(r.parent[node(&g, KEY_LONELY)], REACH_NONE);
	assert_false(reach_has(&r, node(&g, KEY_CHECK_MM)));
	assert_false(reach_has(&r, node(&g, KEY_CHECK_RND)));
	reach_free(&r);
	graph_free(&g);
}

static void test_reach_opaque(void **state)
{
	struct graph g;
	struct reach r;

	build_graph(&g, NULL, 0);
	reach_compute(&g, &crng_set, false, NULL, NULL, &r);
	/* this_cpu_has_cap() is reported at its call, never entered. */
	assert_false(reach_has(&r, node(&g, KEY_CAP)));
	assert_false(reach_has(&r, node(&g, KEY_HIDDEN)));
	reach_free(&r);
	graph_free(&g);
}

static void test_reach_no_roots(void **state)
{
	char *funcs[] = { "not_in_graph" };
	struct root_set set = { .name = "none", .funcs = funcs, .nr = 1 };
	struct graph g;
	struct reach r;
	size_t i;

	build_graph(&g, NULL, 0);
	reach_compute(&g, &set, false, NULL, NULL, &r);
	assert_int_equal(r.nr_roots, 0);
	for (i = 0; i < g.nr_nodes; i++)
		assert_false(reach_has(&r, (int)i));
	reach_free(&r);
	graph_free(&g);
}

/*
 * a -> b -> c -> d directly, and a -> d through an ops table: the chain
 * to d is the direct one (no inferred call beats a shorter chain with
 * one); with b another root set's entry point, d is reached only through
 * the ops table, and b is not entered.
 */
static void build_inferred(struct graph *g)
{
	struct tu_facts f;
	struct tu_call c = { .file = (char *)"lib/x.c", .line = 5, .col = 2,
			     .via = (char *)"x_ops.op" };
	int a, b, cc;

	facts_init(&f, "lib/x.c");
	a = add_func(&f, "c:@F@a", "a", "lib/x.c", 1, false);
	b = add_func(&f, "c:@F@b", "b", "lib/x.c", 10, false);
	cc = add_func(&f, "c:@F@c", "c", "lib/x.c", 20, false);
	add_func(&f, "c:@F@d", "d", "lib/x.c", 30, false);
	add_call(&f, a, "c:@F@b", "b", "lib/x.c", 2, 2, NULL);
	add_call(&f, b, "c:@F@c", "c", "lib/x.c", 11, 2, NULL);
	add_call(&f, cc, "c:@F@d", "d", "lib/x.c", 21, 2, NULL);
	graph_init(g);
	graph_merge(g, &f);
	facts_free(&f);
	graph_add_edge(g, node(g, "c:@F@a"), node(g, "c:@F@d"), &c, true);
	graph_finish(g);
}

/*
 * What the sites of one caller/callee pair pass: one variant per
 * different site; past eight, one "" (not known) and no more.
 */
static void test_edge_consts(void **state)
{
	struct graph g;
	struct tu_facts f;
	struct tu_call c = { .file = (char *)"lib/x.c", .line = 5 };
	char buf[16];
	int a, e, i, empty = 0;
	const char *p;

	facts_init(&f, "lib/x.c");
	add_func(&f, "c:@F@a", "a", "lib/x.c", 1, false);
	add_func(&f, "c:@F@b", "b", "lib/x.c", 10, false);
	graph_init(&g);
	graph_merge(&g, &f);
	facts_free(&f);
	a = node(&g, "c:@F@a");
	c.consts = (char *)"0=#1";
	e = graph_add_edge(&g, a, node(&g, "c:@F@b"), &c, false);
	assert_string_equal(g.edges[e].consts, "0=#1");
	/* The same again: no new variant. A site passing nothing known. */
	graph_add_edge(&g, a, node(&g, "c:@F@b"), &c, false);
	c.consts = NULL;
	graph_add_edge(&g, a, node(&g, "c:@F@b"), &c, false);
	assert_string_equal(g.edges[e].consts, "0=#1|");
	for (i = 2; i < 20; i++) {
		snprintf(buf, sizeof(buf), "0=#%d", i);
		c.consts = buf;
		graph_add_edge(&g, a, node(&g, "c:@F@b"), &c, false);
	}
	for (p = g.edges[e].consts, i = 1; *p; p++)
		i += *p == '|';
	assert_int_equal(i, 8);
	for (p = g.edges[e].consts; p; p = strchr(p, '|')) {
		p += *p == '|';
		empty += *p == '|' || !*p;
	}
	assert_int_equal(empty, 1);
	graph_free(&g);
}

static void test_reach_fewest_inferred(void **state)
{
	char *funcs[] = { "a" };
	struct root_set set = { .name = "x", .funcs = funcs, .nr = 1 };
	struct graph g;
	struct reach r;
	int d, *edges;
	size_t n;

	build_inferred(&g);
	d = node(&g, "c:@F@d");
	reach_compute(&g, &set, false, NULL, NULL, &r);
	assert_true(reach_has(&r, d));
	assert_int_equal(r.inferred[d], 0);
	n = reach_chain(&g, &r, d, &edges);
	assert_int_equal(n, 3);
	assert_false(g.edges[edges[2]].inferred);
	free(edges);
	reach_free(&r);
	graph_free(&g);
}

static void test_reach_stops(void **state)
{
	char *a[] = { "a" }, *b[] = { "b" };
	struct root_set sets[2] = {
		{ .name = "x", .funcs = a, .nr = 1 },
		{ .name = "y", .funcs = b, .nr = 1 },
	};
	struct root_sets rs = { .sets = sets, .nr = 2, .alloc = 2 };
	struct graph g;
	struct reach r;
	bool *stop, *again, *in[2];
	int d;

	build_inferred(&g);
	d = node(&g, "c:@F@d");
	stop = reach_stops(&g, &rs, 0, NULL);
	assert_true(stop[node(&g, "c:@F@b")]);
	assert_false(stop[node(&g, "c:@F@a")]);
	/* Each set's members made once give the same stops. */
	in[0] = reach_members(&g, &sets[0]);
	in[1] = reach_members(&g, &sets[1]);
	assert_true(in[0][node(&g, "c:@F@a")]);
	assert_false(in[0][node(&g, "c:@F@b")]);
	assert_true(in[1][node(&g, "c:@F@b")]);
	again = reach_stops(&g, &rs, 0, in);
	assert_memory_equal(stop, again, g.nr_nodes * sizeof(*stop));
	free(again);
	free(in[0]);
	free(in[1]);
	reach_compute(&g, &sets[0], false, stop, NULL, &r);
	assert_false(reach_has(&r, node(&g, "c:@F@b")));
	assert_false(reach_has(&r, node(&g, "c:@F@c")));
	assert_true(reach_has(&r, d));
	assert_int_equal(r.inferred[d], 1);
	assert_int_equal(r.depth[d], 1);
	assert_int_equal(r.stopped, 1);
	reach_free(&r);
	free(stop);
	graph_free(&g);
}

static void run_rules(const struct sink_spec *sinks, size_t nr,
		      struct graph *g, struct findings *fs)
{
	build_graph(g, sinks, nr);
	memset(fs, 0, sizeof(*fs));
	rules_run(g, &crng_sets, NULL, fs, NULL, NULL);
}

static void test_rules_local_cap(void **state)
{
	static const struct sink_spec sinks[] = {
		{ false, MM_TARGET, SINK_CALL, "this_cpu_has_cap",
		  "ARM64_HAS_RNG", MEMORY_C, 52 },
	};
	struct findings fs;
	struct finding *f;
	struct graph g;

	run_rules(sinks, ARRAY_SIZE(sinks), &g, &fs);
	/*
	 * Two findings: the trap, and preempt-guard (no !preemptible()
	 * guard and nothing on the chain disables preemption).
	 */
	assert_int_equal(fs.nr, 2);
	f = !strcmp(fs.v[0].rule, "local-cap-check") ? &fs.v[0] : &fs.v[1];
	assert_string_equal((f == &fs.v[0] ? &fs.v[1] : &fs.v[0])->rule,
			    "preempt-guard");
	assert_string_equal(f->rule, "local-cap-check");
	assert_string_equal(f->root, "crng");
	assert_string_equal(f->fn->name, "target");
	assert_string_equal(finding_sink(f), "this_cpu_has_cap");
	assert_non_null(f->read.cap);
	assert_string_equal(f->read.cap, "ARM64_HAS_RNG");
	assert_string_equal(f->site->file, MEMORY_C);
	assert_int_equal(f->site->line, 52);
	assert_int_equal(f->site->col, 9);
	assert_non_null(f->message);
	assert_non_null(strstr(f->message, "ARM64_HAS_RNG"));

	/* The shortest chain, root first; each step at its call site. */
	assert_int_equal(f->chains[0].len, 3);
	assert_string_equal(f->chains[0].steps[0].function, "root_fn");
	assert_string_equal(f->chains[0].steps[1].function, "mid");
	assert_string_equal(f->chains[0].steps[2].function, "target");
	assert_int_equal(f->chains[0].steps[0].line, 12);
	assert_int_equal(f->chains[0].steps[1].line, 21);
	assert_int_equal(f->chains[0].steps[2].line, 52);
	assert_null(f->chains[0].steps[0].via);
	assert_string_equal(f->chains[0].steps[1].via, "mid_alias");
	findings_free(&fs);
	graph_free(&g);
}

static void test_rules_untrapped_register(void **state)
{
	static const struct sink_spec sinks[] = {
		{ false, MM_MID, SINK_MACRO, "read_cpuid", "MIDR_EL1",
		  MEMORY_C, 22 },
	};
	struct findings fs;
	struct graph g;

	run_rules(sinks, ARRAY_SIZE(sinks), &g, &fs);
	assert_int_equal(g.nr_sinks, 1);
	assert_int_equal(fs.nr, 0);
	findings_free(&fs);
	graph_free(&g);
}

static void test_rules_trapping_idreg(void **state)
{
	static const struct sink_spec sinks[] = {
		{ false, MM_MID, SINK_MACRO, "read_cpuid",
		  "ID_AA64MMFR1_EL1", MEMORY_C, 22 },
	};
	struct findings fs;
	struct finding *f;
	struct graph g;

	run_rules(sinks, ARRAY_SIZE(sinks), &g, &fs);
	assert_int_equal(fs.nr, 1);
	f = &fs.v[0];
	assert_string_equal(f->rule, "trapping-idreg-read");
	assert_string_equal(f->root, "crng");
	assert_string_equal(finding_sink(f), "read_cpuid");
	assert_non_null(f->read.reg);
	assert_string_equal(f->read.reg, "ID_AA64MMFR1_EL1");
	assert_non_null(f->read.trap);
	assert_string_equal(f->read.trap, "HCR_EL2.TID3");
	assert_null(f->read.cap);
	assert_int_equal(f->chains[0].len, 2);
	assert_string_equal(f->chains[0].steps[0].function, "root_fn");
	assert_string_equal(f->chains[0].steps[1].function, "mid");
	findings_free(&fs);
	graph_free(&g);
}

static void test_rules_unreachable_sink(void **state)
{
	static const struct sink_spec sinks[] = {
		{ false, MM_LONELY, SINK_MACRO, "read_cpuid",
		  "ID_AA64MMFR1_EL1", MEMORY_C, 72 },
		{ true, RND_HIDDEN, SINK_CALL, "this_cpu_has_cap",
		  "ARM64_HAS_RNG", RANDOM_C, 91 },
	};
	struct findings fs;
	struct graph g;

	run_rules(sinks, ARRAY_SIZE(sinks), &g, &fs);
	assert_int_equal(g.nr_sinks, 2);
	assert_int_equal(fs.nr, 0);
	findings_free(&fs);
	graph_free(&g);
}

/* A sink in a header body both TUs extracted is reported once. */
static void test_rules_header_sink_once(void **state)
{
	static const struct sink_spec sinks[] = {
		{ false, MM_HDR, SINK_MACRO, "read_cpuid",
		  "ID_AA64MMFR1_EL1", CPUFEATURE_H, 102 },
		{ true, RND_HDR, SINK_MACRO, "read_cpuid",
		  "ID_AA64MMFR1_EL1", CPUFEATURE_H, 102 },
	};
	struct findings fs;
	struct graph g;

	run_rules(sinks, ARRAY_SIZE(sinks), &g, &fs);
	assert_int_equal(g.nr_sinks, 1);
	assert_int_equal(fs.nr, 1);
	assert_string_equal(fs.v[0].fn->name, "hdr_inline");
	assert_string_equal(fs.v[0].site->file, CPUFEATURE_H);
	assert_int_equal(fs.v[0].chains[0].len, 2);
	findings_free(&fs);
	graph_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_nodes),
		cmocka_unit_test(test_merge_defined_later),
		cmocka_unit_test(test_merge_edges),
		cmocka_unit_test(test_reach_shortest),
		cmocka_unit_test(test_reach_unreachable),
		cmocka_unit_test(test_reach_opaque),
		cmocka_unit_test(test_reach_no_roots),
		cmocka_unit_test(test_edge_consts),
		cmocka_unit_test(test_reach_fewest_inferred),
		cmocka_unit_test(test_reach_stops),
		cmocka_unit_test(test_rules_local_cap),
		cmocka_unit_test(test_rules_untrapped_register),
		cmocka_unit_test(test_rules_trapping_idreg),
		cmocka_unit_test(test_rules_unreachable_sink),
		cmocka_unit_test(test_rules_header_sink_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
