// SPDX-License-Identifier: GPL-2.0
/*
 * test-graphio.c - the merged call graph through bytes and back (the
 * stored link): the decoded graph encodes to the same bytes and answers
 * the same lookups; every truncation, a trailing byte, an index out of
 * range, a bad magic and a finished graph are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/graph/graph.h"
#include "trapcheck/graph/graphio.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/model/sinks.h"

static struct tu_func *func(struct tu_facts *f, const char *key,
			    const char *name, const char *file)
{
	struct tu_func *fn = PUSH(f->funcs, f->nr_funcs, f->alloc_funcs);

	memset(fn, 0, sizeof(*fn));
	fn->key = xstrdup(key);
	fn->name = xstrdup(name);
	fn->file = xstrdup(file);
	fn->line = 10 + (unsigned int)f->nr_funcs;
	fn->col = 3;
	return fn;
}

static struct tu_call *call(struct tu_facts *f, int caller, const char *key,
			    const char *name)
{
	struct tu_call *c = PUSH(f->calls, f->nr_calls, f->alloc_calls);

	memset(c, 0, sizeof(*c));
	c->caller = caller;
	c->callee_key = xstrdup(key);
	c->callee_name = xstrdup(name);
	c->file = xstrdup(f->file);
	c->line = 20 + (unsigned int)f->nr_calls;
	c->col = 5;
	return c;
}

/* Two TUs with every kind of fact a graph keeps. */
static void tu_mm(struct tu_facts *f)
{
	struct tu_func *fn;
	struct tu_call *c;
	struct tu_sink *k;
	struct tu_assign *as;
	struct tu_icall *ic;

	memset(f, 0, sizeof(*f));
	f->file = xstrdup("mm/memory.c");
	f->tables_seen = 2;
	fn = func(f, "c:@F@handle_mm_fault", "handle_mm_fault",
		  "mm/memory.c");
	fn->cold = true;
	fn->region_in = 1;
	fn->region_seen = 2;
	fn->region_out = 4;
	fn->params = xstrdup("vcpu,~reg");
	fn = func(f, "c:cpufeature.h@F@cpu_has_hw_af", "cpu_has_hw_af",
		  "arch/arm64/include/asm/cpufeature.h");
	fn->is_static = true;
	fn->indirect_calls = true;
	c = call(f, 0, "c:cpufeature.h@F@cpu_has_hw_af", "cpu_has_hw_af");
	c->via = xstrdup("arch_wants_old_prefaulted_pte");
	c->guards = xstrdup("!x");
	c->loop = 8;
	c->loop_guess = 2;
	c->args = xstrdup("0=var:oom_notify_list;1=$0");
	c->consts = xstrdup("1=#12:CSSELR_EL1");
	/* The same pair again: one edge, two variants of constants. */
	c = call(f, 0, "c:cpufeature.h@F@cpu_has_hw_af", "cpu_has_hw_af");
	c->consts = xstrdup("1=$0");
	c = call(f, 1, "c:@F@undefined_elsewhere", "undefined_elsewhere");
	c->callee_file = xstrdup("include/linux/mm.h");
	k = PUSH(f->sinks, f->nr_sinks, f->alloc_sinks);
	memset(k, 0, sizeof(*k));
	k->func = 1;
	k->sink = (int)sink_count() - 1;
	k->arg = xstrdup("ID_AA64MMFR1_EL1");
	k->mask = xstrdup("(1u << 20)");
	k->feature = xstrdup("HAFDBS");
	k->file = xstrdup("arch/arm64/include/asm/cpufeature.h");
	k->line = 133;
	k->guards = xstrdup("system_state < SYSTEM_RUNNING");
	as = PUSH(f->assigns, f->nr_assigns, f->alloc_assigns);
	memset(as, 0, sizeof(*as));
	as->member = xstrdup("vm_operations_struct.map_pages");
	as->fn_key = xstrdup("c:@F@filemap_map_pages");
	as->fn_name = xstrdup("filemap_map_pages");
	as->object = xstrdup("var:pm_notifier@drivers/char/random.c");
	as->file = xstrdup("mm/filemap.c");
	as->line = 3912;
	ic = PUSH(f->icalls, f->nr_icalls, f->alloc_icalls);
	memset(ic, 0, sizeof(*ic));
	ic->member = xstrdup("vm_operations_struct.map_pages");
	ic->file = xstrdup("mm/memory.c");
	ic->loop = 2;
	ic->loop_guess = 1;
	facts_add_row(f, &(struct table_row_in){
		.kind = 1, .table = "arm64_ftr_regs", .key = "ID_AA64PFR0_EL1",
	});
	facts_add_row(f, &(struct table_row_in){
		.kind = 4, .table = "arm64_ftr_regs", .key = "ID_AA64PFR0_EL1",
		.v = { "ID_AA64PFR0_EL1_CSV3_SHIFT", "S" },
	});
	facts_add_row(f, &(struct table_row_in){
		.kind = 3, .table = "id_aa64mmfr0_el1_sys_val",
		.key = "id_aa64mmfr0_el1_sys_val",
	});
	facts_add_row(f, &(struct table_row_in){
		.kind = ROW_BODY_WORD, .table = "cpu_has_hw_af", .key = "HAFDBS",
	});
}

static void tu_cpufeature(struct tu_facts *f)
{
	struct tu_assign *as;
	struct tu_icall *ic;

	memset(f, 0, sizeof(*f));
	f->file = xstrdup("arch/arm64/kernel/cpufeature.c");
	f->tables_seen = 4;
	/* The header function again: the first body stays. */
	func(f, "c:cpufeature.h@F@cpu_has_hw_af", "cpu_has_hw_af",
	     "arch/arm64/include/asm/cpufeature.h");
	func(f, "c:@F@this_cpu_has_cap", "this_cpu_has_cap",
	     "arch/arm64/kernel/cpufeature.c");
	call(f, 1, "c:@F@handle_mm_fault", "handle_mm_fault");
	/* A static call set from an ops member: a copy, then a call. */
	as = PUSH(f->assigns, f->nr_assigns, f->alloc_assigns);
	memset(as, 0, sizeof(*as));
	as->member = xstrdup("static_call(fault_hook)");
	as->from_member = xstrdup("vm_operations_struct.map_pages");
	as->fn_key = xstrdup("");
	as->fn_name = xstrdup("");
	as->file = xstrdup("arch/arm64/kernel/cpufeature.c");
	as->line = 40;
	ic = PUSH(f->icalls, f->nr_icalls, f->alloc_icalls);
	memset(ic, 0, sizeof(*ic));
	ic->caller = 1;
	ic->member = xstrdup("static_call(fault_hook)");
	ic->file = xstrdup("arch/arm64/kernel/cpufeature.c");
	ic->line = 41;
	ic->loop = 1;
	facts_add_row(f, &(struct table_row_in){
		.kind = 2, .table = "arm64_features", .key = "ARM64_HAS_RNG",
		.v = { "ARM64_CPUCAP_SYSTEM_FEATURE", "has_cpuid_feature",
		       "ID_AA64ISAR0_EL1", "RNDR", "IMP" },
		.file = "arch/arm64/kernel/cpufeature.c", .line = 2900,
		.num = 5, .flag = true,
	});
	/* A row another TU has too: the graph keeps it once. */
	facts_add_row(f, &(struct table_row_in){
		.kind = ROW_BODY_WORD, .table = "cpu_has_hw_af", .key = "HAFDBS",
	});
}

static void merged(struct graph *g)
{
	struct tu_facts a, b;

	graph_init(g);
	tu_mm(&a);
	tu_cpufeature(&b);
	graph_merge(g, &a);
	graph_merge(g, &b);
	facts_free(&a);
	facts_free(&b);
}

static void test_round_trip(void **state)
{
	struct graph g, h;
	struct bytes a = { 0 }, b = { 0 };
	int n, e;

	merged(&g);
	graphio_encode(&g, &a);
	assert_true(a.len > 0);
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), 0);
	assert_int_equal(h.nr_nodes, g.nr_nodes);
	assert_int_equal(h.nr_edges, g.nr_edges);
	assert_int_equal(h.nr_sinks, 1);
	assert_int_equal(h.nr_argsites, 1);
	assert_int_equal(h.nr_rows, 5);
	assert_int_equal(h.tables_seen, 6);
	/* Lookups work on the decoded graph: keys, pairs, calls. */
	n = graph_find(&h, "c:cpufeature.h@F@cpu_has_hw_af");
	assert_true(n >= 0);
	assert_string_equal(h.nodes[n].file,
			    "arch/arm64/include/asm/cpufeature.h");
	assert_true(h.nodes[n].is_static && h.nodes[n].indirect_calls);
	assert_int_equal(h.nodes[n].opaque, g.nodes[n].opaque);
	e = h.nodes[graph_find(&h, "c:@F@handle_mm_fault")].out[0];
	assert_int_equal(h.edges[e].callee, n);
	assert_string_equal(h.edges[e].via, "arch_wants_old_prefaulted_pte");
	assert_string_equal(h.edges[e].consts, "1=#12:CSSELR_EL1|1=$0");
	assert_int_equal(h.edges[e].loop, 8);
	assert_string_equal(h.sinks[0].feature, "HAFDBS");
	assert_string_equal(h.rows[4].v[4], "IMP");
	assert_true(h.rows[4].flag && h.rows[4].num == 5);
	assert_string_equal(h.rows[3].table, "cpu_has_hw_af");
	assert_string_equal(h.rows[3].key, "HAFDBS");
	/* A pair already there is found, not added: the index was made. */
	assert_int_equal(graph_index_edge(&h, e), -EEXIST);
	/* Every field: the decoded graph encodes to the same bytes. */
	graphio_encode(&h, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	assert_int_equal(h.nr_copies, 1);
	assert_string_equal(h.copies[0].from, "vm_operations_struct.map_pages");
	/* And it finishes as the merged one does. */
	graph_finish(&g);
	graph_finish(&h);
	assert_int_equal(g.nr_edges, h.nr_edges);
	/* The static call reaches what the member it was set from holds. */
	n = graph_find(&h, "c:@F@this_cpu_has_cap");
	assert_int_equal(h.nodes[n].nr_out, 2);
	e = h.nodes[n].out[0];
	if (h.edges[e].callee == graph_find(&h, "c:@F@handle_mm_fault"))
		e = h.nodes[n].out[1];
	assert_string_equal(h.nodes[h.edges[e].callee].name,
			    "filemap_map_pages");
	assert_string_equal(h.edges[e].via, "static_call(fault_hook)");
	assert_true(h.edges[e].inferred);
	assert_int_equal(h.dispatch.by_static, 1);
	assert_int_equal(g.sinks[0].ordinal, h.sinks[0].ordinal);
	graph_free(&g);
	graph_free(&h);
	bytes_free(&a);
	bytes_free(&b);
}

/* Many sinks beside few other records: each counts at its true size. */
static void test_many_sinks(void **state)
{
	struct tu_facts f;
	struct graph g, h;
	struct bytes a = { 0 };
	size_t i;

	memset(&f, 0, sizeof(f));
	f.file = xstrdup("arch/arm64/kernel/cpufeature.c");
	func(&f, "c:@F@lonely", "lonely", f.file);
	for (i = 0; i < 64; i++) {
		struct tu_sink *k = PUSH(f.sinks, f.nr_sinks, f.alloc_sinks);

		memset(k, 0, sizeof(*k));
		k->file = xstrdup(f.file);
		k->line = (unsigned int)i + 1;
	}
	graph_init(&g);
	graph_merge(&g, &f);
	graphio_encode(&g, &a);
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), 0);
	assert_int_equal(h.nr_sinks, 64);
	assert_int_equal(h.sinks[63].line, 64);
	facts_free(&f);
	graph_free(&g);
	graph_free(&h);
	bytes_free(&a);
}

static void test_truncated(void **state)
{
	struct graph g, h;
	struct bytes a = { 0 };
	size_t n;

	merged(&g);
	graphio_encode(&g, &a);
	for (n = 0; n < a.len; n++) {
		/* A copy of exactly n bytes, so ASan sees any overread. */
		unsigned char *cut = malloc(n + 1);

		memcpy(cut, a.data, n);
		graph_init(&h);
		h.max_targets = 7;
		assert_int_equal(graphio_decode(cut, n, &h), -EINVAL);
		assert_int_equal(h.nr_nodes, 0);
		assert_int_equal(h.pool.nr, 0);
		assert_int_equal(h.max_targets, 7);
		graph_free(&h);
		free(cut);
	}
	bytes_put(&a, "", 1);
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), -EINVAL);
	graph_free(&h);
	graph_free(&g);
	bytes_free(&a);
}

static void test_refused(void **state)
{
	struct graph g, h;
	struct bytes a = { 0 };

	merged(&g);
	g.edges[0].callee = (int)g.nr_nodes;	/* no such node */
	graphio_encode(&g, &a);
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), -EINVAL);
	graph_free(&h);
	bytes_free(&a);
	g.edges[0].callee = g.edges[1].callee;
	g.edges[0].caller = g.edges[1].caller;	/* a pair twice */
	graphio_encode(&g, &a);
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), -EINVAL);
	graph_free(&h);
	bytes_free(&a);
	graph_free(&g);

	merged(&g);
	g.sinks[0].sink = (int)sink_count();
	graphio_encode(&g, &a);
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), -EINVAL);
	graph_free(&h);
	bytes_free(&a);
	g.sinks[0].sink = 0;
	graphio_encode(&g, &a);
	a.data[0] ^= 1;				/* the magic */
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), -EINVAL);
	graph_free(&h);
	bytes_free(&a);
	/* A value that still decodes (a line): the checksum finds it. */
	graphio_encode(&g, &a);
	/* A string's index, still one of the pool's. */
	a.data[a.len - 4 * 3] ^= 0x10;
	graph_init(&h);
	assert_int_equal(graphio_decode(a.data, a.len, &h), -EINVAL);
	graph_free(&h);
	bytes_free(&a);
	/* A string not of the pool, and a finished graph: nothing. */
	g.nodes[0].params = "not interned";
	graphio_encode(&g, &a);
	assert_int_equal(a.len, 0);
	g.nodes[0].params = NULL;
	graph_finish(&g);
	graphio_encode(&g, &a);
	assert_int_equal(a.len, 0);
	bytes_free(&a);
	graph_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_many_sinks),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
