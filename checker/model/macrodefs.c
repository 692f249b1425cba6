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
	int file;
	bool local;		/* its file is a TU's own source */
};

/* Definition @def names @ident in its body. */
struct mref {
	uint32_t ident;
	uint32_t def;
};

/*
 * Definition @def pastes a name that begins with @pre and ends with @suf
 * (either NULL: any), the literal first and last parts of `a ## b ## c`.
 */
struct mfrag {
	char *pre, *suf;
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
	for (i = 0; i < d->nr_frags; i++) {
		free(d->frags[i].pre);
		free(d->frags[i].suf);
	}
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

/* The shortest literal part of a pasted name followed (known limit). */
#define FRAG_MIN	3

/* A paste chain of a body being read (`a ## b ## c`). */
struct chain {
	bool open;		/* a ## seen, the chain not closed yet */
	bool pasted;		/* the last token was ## */
	const char *pre;	/* its first part, when a literal name */
	size_t pre_n;
	const char *suf;	/* its last part so far, when a literal name */
	size_t suf_n;
};

/* The chain ends: a name that begins and ends with its literal parts. */
static void close_chain(struct macro_defs *d, struct chain *c, uint32_t def)
{
	char *key;
	struct mfrag *f;

	/* A part of one or two characters ("_", "U") is no clue: left. */
	if (c->pre && c->pre_n < FRAG_MIN)
		c->pre = NULL;
	if (c->suf && c->suf_n < FRAG_MIN)
		c->suf = NULL;
	if (c->open && (c->pre || c->suf)) {
		key = xasprintf("%.*s\t%.*s\t%s", (int)c->pre_n,
				c->pre ? c->pre : "", (int)c->suf_n,
				c->suf ? c->suf : "", d->defs[def].name);
		if (strmap_get(&d->frag_seen, key) < 0) {
			strmap_put(&d->frag_seen, key, 0);
			f = PUSH(d->frags, d->nr_frags, d->alloc_frags);
			f->pre = c->pre ? xstrndup(c->pre, c->pre_n) : NULL;
			f->suf = c->suf ? xstrndup(c->suf, c->suf_n) : NULL;
			f->def = def;
		}
		free(key);
	}
	memset(c, 0, sizeof(*c));
}

/*
 * The body of definition @def at b->p: each name it mentions (not a
 * parameter), and the literal ends of each name it pastes.
 */
static void read_body(struct macro_defs *d, struct body *b, uint32_t def)
{
	const char *last = NULL;	/* the last token, a literal name */
	size_t last_n = 0;
	struct chain c = { 0 };

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
			}
			if (c.pasted) {
				/* An operand: the last one, unless ## follows. */
				c.suf = lit ? s : NULL;
				c.suf_n = n;
				c.pasted = false;
			} else if (c.open) {
				close_chain(d, &c, def);
			}
			last = lit ? s : NULL;
			last_n = n;
			continue;
		}
		if (*s == '#' && b->p + 1 < b->end && s[1] == '#') {
			if (!c.open) {
				c.open = true;
				c.pre = last;
				c.pre_n = last_n;
			}
			c.suf = NULL;
			c.pasted = true;
			b->p += 2;
			last = NULL;
			continue;
		}
		if (c.open && !c.pasted)
			close_chain(d, &c, def);
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
	}
	close_chain(d, &c, def);
}

/* A #define at @p (after the '#' and blanks); the end of what it read. */
static const char *read_define(struct macro_defs *d, const char *p,
			       const char *end, int file, bool local)
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
	m->file = file;
	m->local = local;
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

void macro_defs_read(struct macro_defs *d, const char *text, size_t len,
		     int file, bool local)
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
				p = read_define(d, q, end, file, local);
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

static bool frag_matches(const struct mfrag *f, const char *name)
{
	size_t len = strlen(name), np = f->pre ? strlen(f->pre) : 0,
	       ns = f->suf ? strlen(f->suf) : 0;

	if (len < np + ns)
		return false;
	return (!f->pre || !strncmp(name, f->pre, np)) &&
	       (!f->suf || !strcmp(name + len - ns, f->suf));
}

static int dep_cmp(const void *a, const void *b)
{
	const struct macro_dep *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

/*
 * A name to follow, and where: -1 everywhere, or only in the TU of a
 * local file (a macro a .c defines is seen by that TU alone, and so is
 * every macro that may expand it through it).
 */
struct mwork {
	const char *name;
	int scope;
};

struct walk {
	struct macro_defs *d;
	struct strmap taken;	/* "def scope" and "scope name" met */
	struct macro_dep *out;
	size_t nr, alloc;
	struct mwork *work;
	size_t nr_work, alloc_work;
};

static bool once(struct walk *w, char *key)
{
	bool new = strmap_get(&w->taken, key) < 0;

	if (new)
		strmap_put(&w->taken, key, 0);
	free(key);
	return new;
}

static void follow(struct walk *w, const char *name, int scope)
{
	struct mwork *m;

	if (!once(w, xasprintf("%d %s", scope, name)))
		return;
	m = PUSH(w->work, w->nr_work, w->alloc_work);
	m->name = name;
	m->scope = scope;
}

/* Definition @k may expand a changed macro, where @scope says. */
static void take(struct walk *w, uint32_t k, int scope)
{
	const struct mdef *m = &w->d->defs[k];
	struct macro_dep *dep;

	if (scope < 0 && m->local)
		scope = m->file;
	if (!once(w, xasprintf("%u %d", k, scope)))
		return;
	dep = PUSH(w->out, w->nr, w->alloc);
	dep->h = m->h;
	dep->file = scope >= 0 ? scope : m->file;
	follow(w, m->name, scope);
}

struct macro_dep *macro_defs_closure(struct macro_defs *d,
				     char *const *names, size_t *nr)
{
	struct walk w = { .d = d };
	size_t lo, hi, i, k, n;

	if (!d->sorted) {
		sort_n(d->refs, d->nr_refs, sizeof(*d->refs), ref_cmp);
		d->sorted = true;
	}
	strmap_init(&w.taken);
	for (i = 0; names && names[i]; i++) {
		struct macro_dep *dep = PUSH(w.out, w.nr, w.alloc);

		dep->h = macroset_hash(names[i], strlen(names[i]));
		dep->file = -1;
		follow(&w, names[i], -1);
	}
	while (w.nr_work) {
		struct mwork m = w.work[--w.nr_work];
		uint32_t h = macroset_hash(m.name, strlen(m.name));

		/* The definitions that name it: the first ref of @h. */
		for (lo = 0, hi = d->nr_refs; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (d->refs[mid].ident < h)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < d->nr_refs && d->refs[k].ident == h; k++)
			take(&w, d->refs[k].def, m.scope);
		for (k = 0; k < d->nr_frags; k++)
			if (frag_matches(&d->frags[k], m.name))
				take(&w, d->frags[k].def, m.scope);
	}
	free(w.work);
	strmap_free(&w.taken);
	sort_n(w.out, w.nr, sizeof(*w.out), dep_cmp);
	for (i = n = 0; i < w.nr; i++)
		if (!n || dep_cmp(&w.out[n - 1], &w.out[i]))
			w.out[n++] = w.out[i];
	*nr = n;
	return w.out;
}
