// SPDX-License-Identifier: GPL-2.0
/*
 * macrodefs.c - #define lines read from source text, and the macros that
 * may expand a changed one (macrodefs.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/macrodefs.h"
#include "trapcheck/model/macroset.h"
#include "trapcheck/base/util.h"

struct mdef {
	char *name;
	uint32_t h;
};

/* Definition @def names @ident in its body. */
struct mref {
	uint32_t ident;
	uint32_t def;
};

/* Definition @def pastes a name that begins (@prefix) or ends with @s. */
struct mfrag {
	char *s;
	bool prefix;
	uint32_t def;
};

struct macro_defs {
	struct mdef *defs;
	size_t nr_defs, alloc_defs;
	struct mref *refs;
	size_t nr_refs, alloc_refs;
	struct mfrag *frags;
	size_t nr_frags, alloc_frags;
	struct strmap frag_seen;	/* "<+|->frag\tname": read once */
	bool sorted;
};

struct macro_defs *macro_defs_new(void)
{
	struct macro_defs *d = xcalloc(1, sizeof(*d));

	strmap_init(&d->frag_seen);
	return d;
}

void macro_defs_free(struct macro_defs *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr_defs; i++)
		free(d->defs[i].name);
	for (i = 0; i < d->nr_frags; i++)
		free(d->frags[i].s);
	free(d->defs);
	free(d->refs);
	free(d->frags);
	strmap_free(&d->frag_seen);
	free(d);
}

/* One #define's body being read. */
struct body {
	const char *p, *end;
	const char *params[64];	/* into the text, with their lengths */
	size_t plen[64];
	unsigned int nr_params;
};

static bool is_param(const struct body *b, const char *s, size_t n)
{
	unsigned int i;

	for (i = 0; i < b->nr_params; i++)
		if (b->plen[i] == n && !strncmp(b->params[i], s, n))
			return true;
	return false;
}

/* Skip blanks and line continuations; false at the end of the line. */
static bool skip_space(struct body *b)
{
	while (b->p < b->end) {
		if (*b->p == ' ' || *b->p == '\t' || *b->p == '\r' ||
		    *b->p == '\f' || *b->p == '\v') {
			b->p++;
		} else if (*b->p == '\\' && b->p + 1 < b->end &&
			   (b->p[1] == '\n' || (b->p[1] == '\r' &&
						b->p + 2 < b->end &&
						b->p[2] == '\n'))) {
			b->p += b->p[1] == '\n' ? 2 : 3;
		} else if (*b->p == '/' && b->p + 1 < b->end &&
			   b->p[1] == '*') {
			const char *q = b->p + 2;

			while (q + 1 < b->end && !(q[0] == '*' && q[1] == '/'))
				q++;
			b->p = q + 1 < b->end ? q + 2 : b->end;
		} else if (*b->p == '/' && b->p + 1 < b->end &&
			   b->p[1] == '/') {
			while (b->p < b->end && *b->p != '\n')
				b->p++;
		} else {
			break;
		}
	}
	return b->p < b->end && *b->p != '\n';
}

static void add_frag(struct macro_defs *d, const char *s, size_t n,
		     bool prefix, uint32_t def)
{
	char *key = xasprintf("%c%.*s\t%s", prefix ? '+' : '-', (int)n, s,
			      d->defs[def].name);
	struct mfrag *f;

	if (strmap_get(&d->frag_seen, key) < 0) {
		strmap_put(&d->frag_seen, key, 0);
		f = PUSH(d->frags, d->nr_frags, d->alloc_frags);
		f->s = xstrndup(s, n);
		f->prefix = prefix;
		f->def = def;
	}
	free(key);
}

/*
 * The body of definition @def at b->p: each name it mentions (not a
 * parameter), and each literal part of a pasted name.
 */
static void read_body(struct macro_defs *d, struct body *b, uint32_t def)
{
	const char *last = NULL;	/* the last token, a literal name */
	size_t last_n = 0;
	bool paste = false;		/* the last token was ## */

	while (skip_space(b)) {
		const char *s = b->p;

		if (ident_start(*s)) {
			size_t n;
			bool lit;

			while (b->p < b->end && ident_char(*b->p))
				b->p++;
			n = (size_t)(b->p - s);
			lit = !is_param(b, s, n);
			if (lit) {
				struct mref *r = PUSH(d->refs, d->nr_refs,
						      d->alloc_refs);

				r->ident = macroset_hash(s, n);
				r->def = def;
				if (paste)
					add_frag(d, s, n, false, def);
			}
			last = lit ? s : NULL;
			last_n = n;
			paste = false;
			continue;
		}
		if (*s == '#' && b->p + 1 < b->end && s[1] == '#') {
			if (last)
				add_frag(d, last, last_n, true, def);
			b->p += 2;
			paste = true;
			last = NULL;
			continue;
		}
		if (*s == '"' || *s == '\'') {
			char q = *s;

			for (b->p++; b->p < b->end && *b->p != q &&
			     *b->p != '\n'; b->p++)
				if (*b->p == '\\' && b->p + 1 < b->end)
					b->p++;
			b->p += b->p < b->end && *b->p == q;
		} else if (isdigit((unsigned char)*s)) {
			while (b->p < b->end && (ident_char(*b->p) ||
						 *b->p == '.'))
				b->p++;
		} else {
			b->p++;
		}
		last = NULL;
		paste = false;
	}
}

/* A #define at @p (after the '#' and blanks); the end of what it read. */
static const char *read_define(struct macro_defs *d, const char *p,
			       const char *end)
{
	struct body b = { .p = p + strlen("define"), .end = end };
	const char *name;
	struct mdef *m;

	if (!skip_space(&b) || !ident_start(*b.p))
		return b.p;
	name = b.p;
	while (b.p < end && ident_char(*b.p))
		b.p++;
	m = PUSH(d->defs, d->nr_defs, d->alloc_defs);
	m->name = xstrndup(name, (size_t)(b.p - name));
	m->h = macroset_hash(name, (size_t)(b.p - name));
	if (b.p < end && *b.p == '(') {
		for (b.p++; skip_space(&b) && *b.p != ')';) {
			const char *s = b.p;

			if (ident_start(*s)) {
				while (b.p < end && ident_char(*b.p))
					b.p++;
				if (b.nr_params < ARRAY_SIZE(b.params)) {
					b.params[b.nr_params] = s;
					b.plen[b.nr_params++] =
						(size_t)(b.p - s);
				}
			} else {
				b.p++;
			}
		}
		b.p += b.p < end && *b.p == ')';
	}
	read_body(d, &b, (uint32_t)(d->nr_defs - 1));
	d->sorted = false;
	return b.p;
}

void macro_defs_read(struct macro_defs *d, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *q, *nl;

	while (p < end) {
		q = p;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == '#') {
			q++;
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if ((size_t)(end - q) > 6 && !strncmp(q, "define", 6) &&
			    !ident_char(q[6]))
				p = read_define(d, q, end);
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
}

static int ref_cmp(const void *a, const void *b)
{
	const struct mref *x = a, *y = b;

	return x->ident < y->ident ? -1 : x->ident > y->ident;
}

/* An open-addressing set of hashes (0 stands for itself by a flag). */
struct hset {
	uint32_t *v;
	size_t mask, used;
	bool zero;
};

static bool hset_add(struct hset *s, uint32_t h)
{
	size_t i;

	if (!h) {
		bool had = s->zero;

		s->zero = true;
		return !had;
	}
	if (!s->v || (s->used + 1) * 2 > s->mask) {
		struct hset n = { .mask = s->v ? s->mask * 2 + 1 : 1023,
				  .zero = s->zero };

		n.v = xcalloc(n.mask + 1, sizeof(*n.v));
		for (i = 0; s->v && i <= s->mask; i++)
			if (s->v[i])
				hset_add(&n, s->v[i]);
		free(s->v);
		*s = n;
	}
	for (i = h & s->mask; s->v[i]; i = (i + 1) & s->mask)
		if (s->v[i] == h)
			return false;
	s->v[i] = h;
	s->used++;
	return true;
}

static bool frag_matches(const struct mfrag *f, const char *name)
{
	size_t n = strlen(f->s), len = strlen(name);

	if (len < n)
		return false;
	return f->prefix ? !strncmp(name, f->s, n) :
			   !strcmp(name + len - n, f->s);
}

uint32_t *macro_defs_closure(struct macro_defs *d, char *const *names,
			     size_t *nr)
{
	struct hset seen = { 0 };
	uint32_t *out = NULL;
	size_t nr_out = 0, alloc_out = 0, lo, hi, i, k;
	const char **work = NULL;
	size_t nr_work = 0, alloc_work = 0;

	if (!d->sorted) {
		sort_n(d->refs, d->nr_refs, sizeof(*d->refs), ref_cmp);
		d->sorted = true;
	}
	for (i = 0; names && names[i]; i++) {
		uint32_t h = macroset_hash(names[i], strlen(names[i]));

		if (hset_add(&seen, h)) {
			*PUSH(out, nr_out, alloc_out) = h;
			*PUSH(work, nr_work, alloc_work) = names[i];
		}
	}
	while (nr_work) {
		const char *n = work[--nr_work];
		uint32_t h = macroset_hash(n, strlen(n));

		/* The definitions that name it: the first ref of @h. */
		for (lo = 0, hi = d->nr_refs; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (d->refs[mid].ident < h)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < d->nr_refs && d->refs[k].ident == h; k++) {
			const struct mdef *m = &d->defs[d->refs[k].def];

			if (hset_add(&seen, m->h)) {
				*PUSH(out, nr_out, alloc_out) = m->h;
				*PUSH(work, nr_work, alloc_work) = m->name;
			}
		}
		for (k = 0; k < d->nr_frags; k++) {
			const struct mdef *m = &d->defs[d->frags[k].def];

			if (frag_matches(&d->frags[k], n) &&
			    hset_add(&seen, m->h)) {
				*PUSH(out, nr_out, alloc_out) = m->h;
				*PUSH(work, nr_work, alloc_work) = m->name;
			}
		}
	}
	free(work);
	free(seen.v);
	*nr = macroset_sort(out, nr_out);
	return out;
}
