// SPDX-License-Identifier: GPL-2.0
/*
 * factsio.c - a TU's facts to bytes and back (see factsio.h).
 *
 * The encoder and the decoder walk the fields in the same order; the
 * unit test (tests/unit/test-factsio.c) round-trips every field and cuts
 * messages at every length, and tests/fuzz/fuzz-factsio.c feeds the
 * decoder arbitrary bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/factsio.h"
#include "trapcheck/sinks.h"

#define FACTS_MAGIC	0x32464354u	/* "TCF2" */
#define NO_STR		0xffffffffu

static void put_u32(struct bytes *b, uint32_t v)
{
	bytes_put(b, &v, sizeof(v));
}

static void put_u64(struct bytes *b, uint64_t v)
{
	bytes_put(b, &v, sizeof(v));
}

static void put_str(struct bytes *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u32(b, s ? (uint32_t)n : NO_STR);
	bytes_put(b, s, n);
}

static void put_func(struct bytes *b, const struct tu_func *fn)
{
	put_str(b, fn->key);
	put_str(b, fn->name);
	put_str(b, fn->file);
	put_u32(b, fn->line);
	put_u32(b, fn->col);
	put_u32(b, fn->is_static | fn->indirect_calls << 1 | fn->cold << 2);
}

static void put_call(struct bytes *b, const struct tu_call *c)
{
	put_u32(b, (uint32_t)c->caller);
	put_str(b, c->callee_key);
	put_str(b, c->callee_name);
	put_str(b, c->callee_file);
	put_u32(b, c->callee_line);
	put_str(b, c->file);
	put_u32(b, c->line);
	put_u32(b, c->col);
	put_str(b, c->via);
	put_u32(b, c->off);
	put_str(b, c->guards);
	put_u32(b, c->loop);
	put_u32(b, c->loop_guess);
	put_str(b, c->args);
}

static void put_sink(struct bytes *b, const struct tu_sink *k)
{
	put_u32(b, (uint32_t)k->func);
	put_u32(b, (uint32_t)k->sink);
	put_str(b, k->arg);
	put_str(b, k->file);
	put_u32(b, k->line);
	put_u32(b, k->col);
	put_u32(b, k->off);
	put_str(b, k->guards);
	put_u32(b, k->loop);
	put_u32(b, k->loop_guess);
}

static void put_cap(struct bytes *b, const struct tu_cap *c)
{
	put_str(b, c->name);
	put_str(b, c->type);
	put_u32(b, c->scope);
	put_str(b, c->matches);
	put_str(b, c->reg);
	put_str(b, c->field);
	put_str(b, c->min);
	put_u32(b, c->midr);
	put_str(b, c->table);
	put_str(b, c->file);
	put_u32(b, c->line);
}

static void put_assign(struct bytes *b, const struct tu_assign *a)
{
	put_str(b, a->member);
	put_str(b, a->fn_key);
	put_str(b, a->fn_name);
	put_str(b, a->fn_file);
	put_u32(b, a->fn_line);
	put_str(b, a->object);
}

static void put_icall(struct bytes *b, const struct tu_icall *c)
{
	put_u32(b, (uint32_t)c->caller);
	put_str(b, c->member);
	put_str(b, c->file);
	put_u32(b, c->line);
	put_u32(b, c->col);
	put_u32(b, c->off);
	put_str(b, c->guards);
	put_u32(b, c->loop);
	put_u32(b, c->loop_guess);
}

void facts_encode(const struct tu_facts *f, uint64_t flags_hash,
		  struct bytes *out)
{
	size_t i;

	put_u32(out, FACTS_MAGIC);
	put_u64(out, flags_hash);
	put_str(out, f->file);
	put_u32(out, (uint32_t)f->parse_error);
	put_u32(out, f->nr_errors);
	put_str(out, f->first_error);
	put_u32(out, f->retried | f->have_ftr << 1 | f->have_caps << 2);
	put_u32(out, (uint32_t)f->nr_funcs);
	for (i = 0; i < f->nr_funcs; i++)
		put_func(out, &f->funcs[i]);
	put_u32(out, (uint32_t)f->nr_calls);
	for (i = 0; i < f->nr_calls; i++)
		put_call(out, &f->calls[i]);
	put_u32(out, (uint32_t)f->nr_sinks);
	for (i = 0; i < f->nr_sinks; i++)
		put_sink(out, &f->sinks[i]);
	put_u32(out, (uint32_t)f->nr_caps);
	for (i = 0; i < f->nr_caps; i++)
		put_cap(out, &f->caps[i]);
	put_u32(out, (uint32_t)f->nr_ftr);
	for (i = 0; i < f->nr_ftr; i++)
		put_str(out, f->ftr_regs[i]);
	put_u32(out, (uint32_t)f->nr_assigns);
	for (i = 0; i < f->nr_assigns; i++)
		put_assign(out, &f->assigns[i]);
	put_u32(out, (uint32_t)f->nr_icalls);
	for (i = 0; i < f->nr_icalls; i++)
		put_icall(out, &f->icalls[i]);
	put_u32(out, (uint32_t)f->nr_includes);
	for (i = 0; i < f->nr_includes; i++)
		put_str(out, f->includes[i]);
	put_u32(out, (uint32_t)f->nr_warnings);
	for (i = 0; i < f->nr_warnings; i++) {
		put_str(out, f->warnings[i].flag);
		put_str(out, f->warnings[i].text);
	}
}

/* The decoder's cursor; @bad sticks once anything did not fit. */
struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t get_u32(struct rd *r)
{
	uint32_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static uint64_t get_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static char *get_str(struct rd *r)
{
	uint32_t n = get_u32(r);
	char *s;

	if (r->bad || n == NO_STR)
		return NULL;
	if ((size_t)(r->end - r->p) < n || memchr(r->p, 0, n)) {
		r->bad = true;
		return NULL;
	}
	s = xstrndup((const char *)r->p, n);
	r->p += n;
	return s;
}

/* An array count: each element takes at least @min bytes. */
static size_t get_count(struct rd *r, size_t min)
{
	uint32_t n = get_u32(r);

	if (!r->bad && n > (size_t)(r->end - r->p) / min)
		r->bad = true;
	return r->bad ? 0 : n;
}

/* An index into an array of @nr elements. */
static int get_index(struct rd *r, size_t nr)
{
	uint32_t v = get_u32(r);

	if (v >= nr)
		r->bad = true;
	return r->bad ? 0 : (int)v;
}

#define GET_ARRAY(r, arr, nr, alloc, min)				\
	do {								\
		(nr) = 0;						\
		(alloc) = get_count(r, min);				\
		(arr) = (alloc) ? xcalloc((alloc), sizeof(*(arr))) : NULL; \
	} while (0)

static void get_func(struct rd *r, struct tu_func *fn)
{
	uint32_t bits;

	fn->key = get_str(r);
	fn->name = get_str(r);
	fn->file = get_str(r);
	fn->line = get_u32(r);
	fn->col = get_u32(r);
	bits = get_u32(r);
	fn->is_static = bits & 1;
	fn->indirect_calls = bits & 2;
	fn->cold = bits & 4;
	if (!fn->key || !fn->name)
		r->bad = true;
}

static void get_call(struct rd *r, struct tu_call *c, size_t nr_funcs)
{
	c->caller = get_index(r, nr_funcs);
	c->callee_key = get_str(r);
	c->callee_name = get_str(r);
	c->callee_file = get_str(r);
	c->callee_line = get_u32(r);
	c->file = get_str(r);
	c->line = get_u32(r);
	c->col = get_u32(r);
	c->via = get_str(r);
	c->off = get_u32(r);
	c->guards = get_str(r);
	c->loop = get_u32(r);
	c->loop_guess = get_u32(r);
	c->args = get_str(r);
	if (!c->callee_key || !c->callee_name)
		r->bad = true;
}

static void get_sink(struct rd *r, struct tu_sink *k, size_t nr_funcs)
{
	k->func = get_index(r, nr_funcs);
	k->sink = get_index(r, sink_table_size);
	k->arg = get_str(r);
	k->file = get_str(r);
	k->line = get_u32(r);
	k->col = get_u32(r);
	k->off = get_u32(r);
	k->guards = get_str(r);
	k->loop = get_u32(r);
	k->loop_guess = get_u32(r);
}

static void get_cap(struct rd *r, struct tu_cap *c)
{
	c->name = get_str(r);
	c->type = get_str(r);
	c->scope = get_u32(r);
	c->matches = get_str(r);
	c->reg = get_str(r);
	c->field = get_str(r);
	c->min = get_str(r);
	c->midr = get_u32(r) & 1;
	c->table = get_str(r);
	c->file = get_str(r);
	c->line = get_u32(r);
	if (!c->name)
		r->bad = true;
}

static void get_assign(struct rd *r, struct tu_assign *a)
{
	a->member = get_str(r);
	a->fn_key = get_str(r);
	a->fn_name = get_str(r);
	a->fn_file = get_str(r);
	a->fn_line = get_u32(r);
	a->object = get_str(r);
	if (!a->member || !a->fn_key || !a->fn_name)
		r->bad = true;
}

static void get_icall(struct rd *r, struct tu_icall *c, size_t nr_funcs)
{
	c->caller = get_index(r, nr_funcs);
	c->member = get_str(r);
	c->file = get_str(r);
	c->line = get_u32(r);
	c->col = get_u32(r);
	c->off = get_u32(r);
	c->guards = get_str(r);
	c->loop = get_u32(r);
	c->loop_guess = get_u32(r);
	if (!c->member)
		r->bad = true;
}

int facts_decode(const void *buf, size_t len, struct tu_facts *f,
		 uint64_t *flags_hash)
{
	struct rd r = { .p = buf, .end = (const unsigned char *)buf + len };
	uint32_t bits;

	memset(f, 0, sizeof(*f));
	if (get_u32(&r) != FACTS_MAGIC)
		return -EINVAL;
	*flags_hash = get_u64(&r);
	f->file = get_str(&r);
	f->parse_error = (int)get_u32(&r);
	f->nr_errors = get_u32(&r);
	f->first_error = get_str(&r);
	bits = get_u32(&r);
	f->retried = bits & 1;
	f->have_ftr = bits & 2;
	f->have_caps = bits & 4;
	if (!f->file)
		r.bad = true;

	/* Each array is read only while nothing went wrong before it. */
	GET_ARRAY(&r, f->funcs, f->nr_funcs, f->alloc_funcs, 24);
	while (!r.bad && f->nr_funcs < f->alloc_funcs)
		get_func(&r, &f->funcs[f->nr_funcs++]);
	GET_ARRAY(&r, f->calls, f->nr_calls, f->alloc_calls, 48);
	while (!r.bad && f->nr_calls < f->alloc_calls)
		get_call(&r, &f->calls[f->nr_calls++], f->nr_funcs);
	GET_ARRAY(&r, f->sinks, f->nr_sinks, f->alloc_sinks, 36);
	while (!r.bad && f->nr_sinks < f->alloc_sinks)
		get_sink(&r, &f->sinks[f->nr_sinks++], f->nr_funcs);
	GET_ARRAY(&r, f->caps, f->nr_caps, f->alloc_caps, 44);
	while (!r.bad && f->nr_caps < f->alloc_caps)
		get_cap(&r, &f->caps[f->nr_caps++]);
	GET_ARRAY(&r, f->ftr_regs, f->nr_ftr, f->alloc_ftr, 4);
	while (!r.bad && f->nr_ftr < f->alloc_ftr) {
		f->ftr_regs[f->nr_ftr] = get_str(&r);
		r.bad |= !f->ftr_regs[f->nr_ftr++];
	}
	GET_ARRAY(&r, f->assigns, f->nr_assigns, f->alloc_assigns, 20);
	while (!r.bad && f->nr_assigns < f->alloc_assigns)
		get_assign(&r, &f->assigns[f->nr_assigns++]);
	GET_ARRAY(&r, f->icalls, f->nr_icalls, f->alloc_icalls, 32);
	while (!r.bad && f->nr_icalls < f->alloc_icalls)
		get_icall(&r, &f->icalls[f->nr_icalls++], f->nr_funcs);
	GET_ARRAY(&r, f->includes, f->nr_includes, f->alloc_includes, 4);
	while (!r.bad && f->nr_includes < f->alloc_includes) {
		f->includes[f->nr_includes] = get_str(&r);
		r.bad |= !f->includes[f->nr_includes++];
	}
	GET_ARRAY(&r, f->warnings, f->nr_warnings, f->alloc_warnings, 8);
	while (!r.bad && f->nr_warnings < f->alloc_warnings) {
		struct tu_warning *w = &f->warnings[f->nr_warnings++];

		w->flag = get_str(&r);
		w->text = get_str(&r);
		r.bad |= !w->flag || !w->text;
	}
	if (r.bad || r.p != r.end) {
		tu_facts_free(f);
		return -EINVAL;
	}
	return 0;
}
