// SPDX-License-Identifier: GPL-2.0
/*
 * factsio.c - a TU's facts to bytes and back (see factsio.h).
 *
 * The encoder and the decoder walk the same descriptions of the facts
 * (checker/model/facts.def, fact_records[]), field by field; the unit test
 * (tests/unit/test-factsio.c) round-trips every field and cuts messages
 * at every length, and tests/fuzz/fuzz-factsio.c feeds the decoder
 * arbitrary bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/store/factsio.h"
#include "trapcheck/model/sinks.h"

#define FACTS_MAGIC	0x33464354u	/* "TCF3" */
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

static void put_record(struct bytes *b, const struct fact_record *r,
		       void *e)
{
	size_t k;

	for (k = 0; k < r->nr_fields; k++) {
		const struct fact_field *fd = &r->fields[k];

		switch (fd->kind) {
		case FACT_KEY:
		case FACT_STR:
			put_str(b, *fact_str(e, fd));
			break;
		case FACT_U32:
			put_u32(b, *fact_u32(e, fd));
			break;
		case FACT_BOOL:
			put_u32(b, *fact_bool(e, fd));
			break;
		case FACT_INT:
		case FACT_FUNC:
		case FACT_SINK:
			put_u32(b, (uint32_t)*fact_int(e, fd));
			break;
		}
	}
}

void factsio_encode(const struct tu_facts *f, uint64_t flags_hash,
		  struct bytes *out)
{
	size_t i, j;

	put_u32(out, FACTS_MAGIC);
	put_u64(out, flags_hash);
	put_str(out, f->file);
	put_u32(out, (uint32_t)f->parse_error);
	put_u32(out, f->nr_errors);
	put_str(out, f->first_error);
	put_u32(out, f->retried);
	put_u32(out, f->tables_seen);
	for (i = 0; i < fact_records_size; i++) {
		const struct fact_record *r = &fact_records[i];
		char *v = *fact_array(f, r->array);
		size_t nr = *fact_count(f, r->count);

		put_u32(out, (uint32_t)nr);
		for (j = 0; j < nr; j++)
			put_record(out, r, v + j * r->size);
	}
	for (i = 0; i < fact_strlists_size; i++) {
		char **v = *(char ***)fact_array(f, fact_strlists[i].array);
		size_t nr = *fact_count(f, fact_strlists[i].count);

		put_u32(out, (uint32_t)nr);
		for (j = 0; j < nr; j++)
			put_str(out, v[j]);
	}
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

/* The next @n bytes into @v, left as it is when they are missing. */
static void get_bytes(struct rd *r, void *v, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return;
	}
	memcpy(v, r->p, n);
	r->p += n;
}

static uint32_t get_u32(struct rd *r)
{
	uint32_t v = 0;

	get_bytes(r, &v, sizeof(v));
	return v;
}

static uint64_t get_u64(struct rd *r)
{
	uint64_t v = 0;

	get_bytes(r, &v, sizeof(v));
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

/*
 * One element of @rec: every index checked (FUNC against the functions
 * decoded before, SINK against the sink table), every KEY present.
 */
static void get_record(struct rd *r, const struct fact_record *rec, void *e,
		       size_t nr_funcs)
{
	size_t k;

	for (k = 0; k < rec->nr_fields; k++) {
		const struct fact_field *fd = &rec->fields[k];

		switch (fd->kind) {
		case FACT_KEY:
			*fact_str(e, fd) = get_str(r);
			r->bad |= !*fact_str(e, fd);
			break;
		case FACT_STR:
			*fact_str(e, fd) = get_str(r);
			break;
		case FACT_U32:
			*fact_u32(e, fd) = get_u32(r);
			break;
		case FACT_BOOL:
			*fact_bool(e, fd) = get_u32(r) & 1;
			break;
		case FACT_INT:
			*fact_int(e, fd) = (int)get_u32(r);
			break;
		case FACT_FUNC:
			*fact_int(e, fd) = get_index(r, nr_funcs);
			break;
		case FACT_SINK:
			*fact_int(e, fd) = get_index(r, sink_count());
			break;
		}
	}
}

int factsio_decode(const void *buf, size_t len, struct tu_facts *f,
		 uint64_t *flags_hash)
{
	struct rd r = { .p = buf, .end = (const unsigned char *)buf + len };
	uint32_t bits;
	size_t i, n;

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
	f->tables_seen = get_u32(&r);
	if (!f->file)
		r.bad = true;

	/* Each array is read only while nothing went wrong before it. */
	for (i = 0; i < fact_records_size && !r.bad; i++) {
		const struct fact_record *rec = &fact_records[i];

		/* Every field takes at least 4 bytes. */
		n = get_count(&r, 4 * rec->nr_fields);
		while (!r.bad && n--)
			get_record(&r, rec, fact_push(f, rec), f->nr_funcs);
	}
	for (i = 0; i < fact_strlists_size && !r.bad; i++) {
		const struct fact_strlist *l = &fact_strlists[i];
		char ***v = (char ***)fact_array(f, l->array);
		size_t *nr = fact_count(f, l->count);

		n = get_count(&r, 4);
		*v = n ? xcalloc(n, sizeof(**v)) : NULL;
		*fact_count(f, l->alloc) = n;
		while (!r.bad && *nr < n) {
			(*v)[*nr] = get_str(&r);
			r.bad |= !(*v)[(*nr)++];
		}
	}
	n = get_count(&r, 8);
	f->warnings = n ? xcalloc(n, sizeof(*f->warnings)) : NULL;
	f->alloc_warnings = n;
	while (!r.bad && f->nr_warnings < n) {
		struct tu_warning *w = &f->warnings[f->nr_warnings++];

		w->flag = get_str(&r);
		w->text = get_str(&r);
		r.bad |= !w->flag || !w->text;
	}
	if (r.bad || r.p != r.end) {
		facts_free(f);
		return -EINVAL;
	}
	return 0;
}
