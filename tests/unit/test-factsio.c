// SPDX-License-Identifier: GPL-2.0
/*
 * test-factsio.c - a TU's facts through bytes and back (the parser
 * processes' message), and the decoder's refusals: every truncation, a
 * trailing byte, an index out of range, a bad magic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/store/factsio.h"
#include "trapcheck/model/sinks.h"

/*
 * Facts with every field set, NULL strings where NULL is allowed (a
 * site's file is not: facts.def makes it a KEY).
 */
static void sample(struct tu_facts *f)
{
	struct tu_func *fn;
	struct tu_call *c;
	struct tu_sink *k;
	struct tu_assign *as;
	struct tu_icall *ic;
	struct tu_warning *w;

	memset(f, 0, sizeof(*f));
	f->file = xstrdup("mm/memory.c");
	f->parse_error = 0;
	f->nr_errors = 2;
	f->first_error = xstrdup("mm/memory.c:1:2: error: x");
	f->retried = true;
	f->tables_seen = 4;
	fn = PUSH(f->funcs, f->nr_funcs, f->alloc_funcs);
	memset(fn, 0, sizeof(*fn));
	fn->key = xstrdup("c:@F@handle_mm_fault");
	fn->name = xstrdup("handle_mm_fault");
	fn->file = xstrdup("mm/memory.c");
	fn->line = 10;
	fn->col = 3;
	fn->cold = true;
	fn = PUSH(f->funcs, f->nr_funcs, f->alloc_funcs);
	memset(fn, 0, sizeof(*fn));
	fn->key = xstrdup("c:cpufeature.h@F@cpu_has_hw_af");
	fn->name = xstrdup("cpu_has_hw_af");
	fn->file = xstrdup("arch/arm64/include/asm/cpufeature.h");
	fn->is_static = true;
	fn->indirect_calls = true;
	c = PUSH(f->calls, f->nr_calls, f->alloc_calls);
	memset(c, 0, sizeof(*c));
	c->caller = 0;
	c->callee_key = xstrdup("c:cpufeature.h@F@cpu_has_hw_af");
	c->callee_name = xstrdup("cpu_has_hw_af");
	c->file = xstrdup("mm/memory.c");
	c->line = 12;
	c->via = xstrdup("arch_wants_old_prefaulted_pte");
	c->guards = xstrdup("!x");
	c->loop = 8;
	c->loop_guess = 2;
	c->args = xstrdup("0=var:oom_notify_list;1=$0");
	k = PUSH(f->sinks, f->nr_sinks, f->alloc_sinks);
	memset(k, 0, sizeof(*k));
	k->func = 1;
	k->sink = (int)sink_count() - 1;
	k->arg = xstrdup("ID_AA64MMFR1_EL1");
	k->file = xstrdup("arch/arm64/include/asm/cpufeature.h");
	k->line = 133;
	k->off = 4000;
	facts_add_row(f, &(struct table_row_in){
		.kind = 2, .table = "arm64_features", .key = "ARM64_HAS_RNG",
		.v = { NULL, NULL, "ID_AA64ISAR0_EL1" }, .flag = true,
		.num = 5, .file = "arch/arm64/kernel/cpufeature.c",
	});
	facts_add_row(f, &(struct table_row_in){
		.kind = 1, .table = "arm64_ftr_regs", .key = "ID_AA64PFR0_EL1",
	});
	/* The same row again: kept once. */
	facts_add_row(f, &(struct table_row_in){
		.kind = 1, .table = "arm64_ftr_regs", .key = "ID_AA64PFR0_EL1",
	});
	as = PUSH(f->assigns, f->nr_assigns, f->alloc_assigns);
	memset(as, 0, sizeof(*as));
	as->member = xstrdup("vm_operations_struct.map_pages");
	as->fn_key = xstrdup("c:@F@filemap_map_pages");
	as->fn_name = xstrdup("filemap_map_pages");
	as->fn_line = 3;
	as->object = xstrdup("var:pm_notifier@drivers/char/random.c");
	as->file = xstrdup("mm/filemap.c");
	as->line = 3912;
	ic = PUSH(f->icalls, f->nr_icalls, f->alloc_icalls);
	memset(ic, 0, sizeof(*ic));
	ic->caller = 0;
	ic->member = xstrdup("vm_operations_struct.map_pages");
	ic->file = xstrdup("mm/filemap.c");
	ic->loop = 2;
	ic->loop_guess = 1;
	*PUSH(f->includes, f->nr_includes, f->alloc_includes) =
		xstrdup("include/linux/mm.h");
	w = PUSH(f->warnings, f->nr_warnings, f->alloc_warnings);
	memset(w, 0, sizeof(*w));
	w->flag = xstrdup("-fbogus");
	w->text = xstrdup("mm/memory.c: warning: unknown compiler flag");
}

static void test_round_trip(void **state)
{
	struct tu_facts f, g;
	struct bytes a = { 0 }, b = { 0 };
	uint64_t h = 0;

	sample(&f);
	factsio_encode(&f, 0x1234567890abcdefULL, &a);
	assert_int_equal(factsio_decode(a.data, a.len, &g, &h), 0);
	assert_true(h == 0x1234567890abcdefULL);
	assert_string_equal(g.file, "mm/memory.c");
	assert_int_equal(g.nr_errors, 2);
	assert_true(g.retried && g.tables_seen == 4);
	assert_int_equal(g.nr_funcs, 2);
	assert_true(g.funcs[0].cold && !g.funcs[0].is_static);
	assert_true(g.funcs[1].is_static && g.funcs[1].indirect_calls);
	assert_int_equal(g.nr_calls, 1);
	assert_null(g.calls[0].callee_file);
	assert_string_equal(g.calls[0].via, "arch_wants_old_prefaulted_pte");
	assert_int_equal(g.calls[0].loop, 8);
	assert_int_equal(g.calls[0].loop_guess, 2);
	assert_string_equal(g.calls[0].args, "0=var:oom_notify_list;1=$0");
	assert_string_equal(g.assigns[0].object,
			    "var:pm_notifier@drivers/char/random.c");
	assert_int_equal(g.icalls[0].loop_guess, 1);
	assert_int_equal(g.sinks[0].func, 1);
	assert_int_equal(g.sinks[0].sink, (int)sink_count() - 1);
	assert_int_equal(g.sinks[0].off, 4000);
	assert_int_equal(g.nr_rows, 2);
	assert_true(g.rows[0].flag);
	assert_int_equal(g.rows[0].num, 5);
	assert_int_equal(g.rows[0].kind, 2);
	assert_null(g.rows[0].v1);
	assert_string_equal(g.rows[0].v3, "ID_AA64ISAR0_EL1");
	assert_string_equal(g.rows[1].key, "ID_AA64PFR0_EL1");
	assert_string_equal(g.assigns[0].fn_name, "filemap_map_pages");
	assert_string_equal(g.assigns[0].file, "mm/filemap.c");
	assert_int_equal(g.assigns[0].line, 3912);
	assert_int_equal(g.icalls[0].loop, 2);
	assert_string_equal(g.includes[0], "include/linux/mm.h");
	assert_string_equal(g.warnings[0].flag, "-fbogus");
	/* The decoded facts encode to the same bytes. */
	factsio_encode(&g, h, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	facts_free(&f);
	facts_free(&g);
	bytes_free(&a);
	bytes_free(&b);
}

static void test_truncated(void **state)
{
	struct tu_facts f, g;
	struct bytes a = { 0 };
	uint64_t h;
	size_t n;

	sample(&f);
	factsio_encode(&f, 1, &a);
	for (n = 0; n < a.len; n++) {
		/* A copy of exactly n bytes, so ASan sees any overread. */
		unsigned char *cut = malloc(n + 1);

		memcpy(cut, a.data, n);
		assert_int_equal(factsio_decode(cut, n, &g, &h), -EINVAL);
		assert_null(g.funcs);
		free(cut);
	}
	bytes_put(&a, "", 1);
	assert_int_equal(factsio_decode(a.data, a.len, &g, &h), -EINVAL);
	facts_free(&f);
	bytes_free(&a);
}

static void test_bad_index(void **state)
{
	struct tu_facts f, g;
	struct bytes a = { 0 };
	uint64_t h;

	sample(&f);
	f.calls[0].caller = 2;		/* only two functions */
	factsio_encode(&f, 1, &a);
	assert_int_equal(factsio_decode(a.data, a.len, &g, &h), -EINVAL);
	bytes_free(&a);
	f.calls[0].caller = 0;
	f.sinks[0].sink = (int)sink_count();
	factsio_encode(&f, 1, &a);
	assert_int_equal(factsio_decode(a.data, a.len, &g, &h), -EINVAL);
	bytes_free(&a);
	f.sinks[0].sink = 0;
	factsio_encode(&f, 1, &a);
	a.data[0] ^= 1;			/* the magic */
	assert_int_equal(factsio_decode(a.data, a.len, &g, &h), -EINVAL);
	facts_free(&f);
	bytes_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
