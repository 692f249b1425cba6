// SPDX-License-Identifier: GPL-2.0
/*
 * graphio.c - the merged call graph to bytes and back (see graphio.h).
 *
 * Each record is described once, by a function that moves its fields
 * through a struct io: written when encoding, read and checked when
 * decoding, so that the two directions cannot drift apart. The unit test
 * (tests/unit/test-graphio.c) compares a decoded graph with the one
 * merged from the same facts and cuts the bytes at every length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/graph/graphio.h"
#include "trapcheck/model/sinks.h"

#define GRAPH_MAGIC	0x31475254u	/* "TRG1" */
#define NO_STR		0xffffffffu

struct io {
	struct graph *g;
	struct bytes *out;			/* encoding */
	const unsigned char *p, *end;		/* decoding */
	bool bad;				/* set once, sticks */
};

static void io_u32(struct io *io, unsigned int *v)
{
	uint32_t x = *v;

	if (io->out) {
		bytes_put(io->out, &x, sizeof(x));
		return;
	}
	if (io->bad || (size_t)(io->end - io->p) < sizeof(x)) {
		io->bad = true;
		*v = 0;
		return;
	}
	memcpy(&x, io->p, sizeof(x));
	io->p += sizeof(x);
	*v = x;
}

/* An index into an array of @nr elements (decoding checks it). */
static void io_index(struct io *io, int *v, size_t nr)
{
	unsigned int x = (unsigned int)*v;

	io_u32(io, &x);
	if (!io->out && x >= nr)
		io->bad = true;
	*v = io->bad ? 0 : (int)x;
}

/*
 * A string of the graph's pool, as its index there: every string of a
 * merged graph is interned (graph.c), and the pool is decoded first.
 */
static void io_str(struct io *io, const char **s)
{
	unsigned int x = NO_STR;
	int i;

	if (io->out && *s) {
		i = strmap_get(&io->g->pool.map, *s);
		/* Not the pool's: refuse to encode rather than lose it. */
		if (i < 0 || io->g->pool.strs[i] != *s)
			io->bad = true;
		x = i < 0 ? NO_STR : (unsigned int)i;
	}
	io_u32(io, &x);
	if (io->out)
		return;
	if (!io->bad && x != NO_STR && x >= io->g->pool.nr)
		io->bad = true;
	*s = io->bad || x == NO_STR ? NULL : io->g->pool.strs[x];
}

/* A string that must be there (a key, a name, a site's file). */
static void io_key(struct io *io, const char **s)
{
	io_str(io, s);
	if (!io->out && !*s)
		io->bad = true;
}

static void io_bool(struct io *io, bool *b)
{
	unsigned int x = *b;

	io_u32(io, &x);
	if (!io->out && x > 1)
		io->bad = true;
	*b = x == 1;
}

/* A count of the elements to follow, each at least @min bytes. */
static void io_count(struct io *io, size_t *n, size_t min)
{
	unsigned int x = (unsigned int)*n;

	if (io->out && *n >= NO_STR)
		io->bad = true;
	io_u32(io, &x);
	if (!io->out && !io->bad && x > (size_t)(io->end - io->p) / min)
		io->bad = true;
	*n = io->bad ? 0 : x;
}

/* The site every graph record has: file, line, column, guards, loops. */
#define IO_SITE(io, r) do {						\
	io_key(io, &(r)->file);						\
	io_u32(io, &(r)->line);						\
	io_u32(io, &(r)->col);						\
	io_str(io, &(r)->guards);					\
	io_u32(io, &(r)->loop);						\
	io_u32(io, &(r)->loop_guess);					\
} while (0)

static void io_node(struct io *io, struct gnode *n)
{
	io_key(io, &n->key);
	io_key(io, &n->name);
	io_str(io, &n->file);
	io_u32(io, &n->line);
	io_u32(io, &n->col);
	io_bool(io, &n->defined);
	io_bool(io, &n->is_static);
	io_bool(io, &n->indirect_calls);
	io_bool(io, &n->cold);
	io_u32(io, &n->region_in);
	io_u32(io, &n->region_seen);
	io_u32(io, &n->region_out);
	io_str(io, &n->params);
}

static void io_edge(struct io *io, struct gedge *e)
{
	size_t nr = io->g->nr_nodes;

	io_index(io, &e->caller, nr);
	io_index(io, &e->callee, nr);
	IO_SITE(io, e);
	io_str(io, &e->via);
	io_bool(io, &e->boot);
	io_bool(io, &e->periodic);
	io_bool(io, &e->rare);
	io_bool(io, &e->inferred);
	io_bool(io, &e->registered);
	io_bool(io, &e->feature_only);
	io_str(io, &e->consts);
}

static void io_sink(struct io *io, struct gsink *s)
{
	io_index(io, &s->func, io->g->nr_nodes);
	io_index(io, &s->sink, sink_count());
	io_str(io, &s->arg);
	io_str(io, &s->mask);
	io_str(io, &s->feature);
	io_str(io, &s->fields);
	IO_SITE(io, s);
	io_bool(io, &s->boot);
	io_bool(io, &s->periodic);
	io_bool(io, &s->rare);
	io_u32(io, &s->ordinal);
}

static void io_icall(struct io *io, struct gicall *c)
{
	io_index(io, &c->caller, io->g->nr_nodes);
	io_key(io, &c->member);
	io_str(io, &c->object);
	io_str(io, &c->consts);
	IO_SITE(io, c);
}

static void io_assign(struct io *io, struct gassign *a)
{
	io_key(io, &a->member);
	io_index(io, &a->fn, io->g->nr_nodes);
	io_str(io, &a->object);
	io_str(io, &a->file);
	io_u32(io, &a->line);
}

static void io_copy(struct io *io, struct gcopy *c)
{
	io_key(io, &c->member);
	io_key(io, &c->from);
	io_str(io, &c->file);
	io_u32(io, &c->line);
}

static void io_argsite(struct io *io, struct gargsite *a)
{
	size_t nr = io->g->nr_nodes;

	io_index(io, &a->caller, nr);
	io_index(io, &a->callee, nr);
	io_key(io, &a->args);
	IO_SITE(io, a);
}

static void io_row(struct io *io, struct grow *r)
{
	size_t i;

	io_u32(io, &r->kind);
	io_key(io, &r->table);
	io_key(io, &r->key);
	for (i = 0; i < ARRAY_SIZE(r->v); i++)
		io_str(io, &r->v[i]);
	io_u32(io, &r->num);
	io_bool(io, &r->flag);
	io_str(io, &r->file);
	io_u32(io, &r->line);
}

/* An array of records: its count, then each (grown when decoding). */
#define IO_ARRAY(io, v, nr, alloc, fn, min) do {			\
	size_t n_ = (nr), i_;						\
									\
	io_count(io, &n_, min);						\
	if (!(io)->out) {						\
		(nr) = 0;						\
		GROW(v, alloc, n_ + 1);					\
		memset(v, 0, (n_ + 1) * sizeof(*(v)));			\
	}								\
	for (i_ = 0; i_ < n_ && !(io)->bad; i_++) {			\
		fn(io, &(v)[i_]);					\
		if (!(io)->out)						\
			(nr) = i_ + 1;					\
	}								\
} while (0)

/*
 * The architecture's rows: decoded into an array of their own, then added
 * one by one (each once, indexed as graph_merge() adds them).
 */
static void io_rows(struct io *io)
{
	struct graph *g = io->g;
	struct grow *v = g->rows;
	size_t nr = g->nr_rows, alloc = g->alloc_rows, i;

	io_u32(io, &g->tables_seen);
	if (io->out) {
		IO_ARRAY(io, v, nr, alloc, io_row, 4 * 11);
		return;
	}
	v = NULL;
	nr = alloc = 0;
	IO_ARRAY(io, v, nr, alloc, io_row, 4 * 11);
	for (i = 0; i < nr && !io->bad; i++)
		graph_add_row(g, &v[i]);
	free(v);
}

/* Everything after the pool, in one order for both directions. */
static void io_records(struct io *io)
{
	struct graph *g = io->g;

	IO_ARRAY(io, g->nodes, g->nr_nodes, g->alloc_nodes, io_node, 4 * 13);
	IO_ARRAY(io, g->edges, g->nr_edges, g->alloc_edges, io_edge, 4 * 15);
	IO_ARRAY(io, g->sinks, g->nr_sinks, g->alloc_sinks, io_sink, 4 * 16);
	IO_ARRAY(io, g->icalls, g->nr_icalls, g->alloc_icalls, io_icall,
		 4 * 10);
	IO_ARRAY(io, g->assigns, g->nr_assigns, g->alloc_assigns, io_assign,
		 4 * 5);
	IO_ARRAY(io, g->copies, g->nr_copies, g->alloc_copies, io_copy,
		 4 * 4);
	IO_ARRAY(io, g->argsites, g->nr_argsites, g->alloc_argsites,
		 io_argsite, 4 * 9);
	io_rows(io);
}

uint64_t graphio_hash(void)
{
	uint64_t h = hash_str("graphio 6");
	size_t i;

	for (i = 0; i < sink_count(); i++)
		h = hash_mix(h, hash_str(sink_at((int)i)->name));
	return h;
}

/*
 * The checksum of the bytes after the header: SQLite checks the pages a
 * blob is spread over, not what they hold (a zeroed last page of one
 * reads as zeros). Eight bytes a step: a whole kernel's graph is big.
 */
static uint64_t checksum(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ^ len;
}

#define HEADER_LEN	12	/* the magic and the checksum */

void graphio_encode(const struct graph *g, struct bytes *out)
{
	struct io io = { .g = (struct graph *)g, .out = out };
	unsigned int magic = GRAPH_MAGIC, len;
	size_t i, start = out->len, nr = g->pool.nr;
	uint64_t sum = 0;

	/* A finished graph holds what its own run worked out: refused. */
	io.bad = g->finished;
	io_u32(&io, &magic);
	bytes_put(out, &sum, sizeof(sum));
	io_count(&io, &nr, 1);
	for (i = 0; i < nr; i++) {
		len = (unsigned int)strlen(g->pool.strs[i]) + 1;
		io_u32(&io, &len);
		bytes_put(out, g->pool.strs[i], len);
	}
	io_records(&io);
	if (io.bad) {
		out->len = start;	/* nothing rather than a part */
		return;
	}
	sum = checksum(out->data + start + HEADER_LEN,
		       out->len - start - HEADER_LEN);
	memcpy(out->data + start + 4, &sum, sizeof(sum));
}

/*
 * The pool's strings, each with its NUL, interned in order: copied into
 * one buffer the pool takes over (strpool_adopt()), not one by one.
 */
static void get_pool(struct io *io)
{
	struct graph *g = io->g;
	const unsigned char *from;
	size_t nr = 0, i, total = 0;
	unsigned int len;
	char *bytes;

	io_count(io, &nr, 5);
	from = io->p;
	for (i = 0; i < nr && !io->bad; i++) {
		const char *s;

		io_u32(io, &len);
		s = (const char *)io->p;
		if (io->bad || !len || len > (size_t)(io->end - io->p) ||
		    s[len - 1] || memchr(s, 0, len - 1)) {
			io->bad = true;
			return;
		}
		io->p += len;
		total += len;
	}
	if (io->bad)
		return;
	bytes = xmalloc(total + 1);
	for (io->p = from, total = 0, i = 0; i < nr; i++) {
		io_u32(io, &len);
		memcpy(bytes + total, io->p, len);
		io->p += len;
		total += len;
	}
	/* Each string once: else the indices would shift. */
	if (!strpool_adopt(&g->pool, bytes, total, nr) ||
	    g->pool.nr != nr)
		io->bad = true;
}

/* The indices a merged graph keeps beside its arrays, made again. */
static void relink(struct io *io)
{
	struct graph *g = io->g;
	size_t i;

	if (!io->bad)
		graph_reserve(g, g->nr_nodes, g->nr_edges);
	for (i = 0; i < g->nr_nodes && !io->bad; i++) {
		struct gnode *n = &g->nodes[i];

		if (strmap_put(&g->node_index, n->key, (int)i) != (int)i)
			io->bad = true;	/* a key twice */
		n->opaque = sink_is_opaque(n->name);
	}
	for (i = 0; i < g->nr_edges && !io->bad; i++)
		if (graph_index_edge(g, (int)i))
			io->bad = true;	/* a caller/callee pair twice */
}

int graphio_decode(const void *buf, size_t len, struct graph *g)
{
	struct io io = { .g = g, .p = buf,
			 .end = (const unsigned char *)buf + len };
	unsigned int magic = 0;
	size_t max_targets = g->max_targets;
	uint64_t sum = 0;

	io_u32(&io, &magic);
	if (magic != GRAPH_MAGIC || len < HEADER_LEN)
		io.bad = true;
	if (!io.bad) {
		memcpy(&sum, io.p, sizeof(sum));
		io.p += sizeof(sum);
		if (sum != checksum(io.p, len - HEADER_LEN))
			io.bad = true;
	}
	get_pool(&io);
	io_records(&io);
	if (!io.bad && io.p != io.end)
		io.bad = true;		/* bytes after the graph */
	relink(&io);
	if (io.bad) {
		graph_free(g);
		graph_init(g);
		g->max_targets = max_targets;
		return -EINVAL;
	}
	return 0;
}
