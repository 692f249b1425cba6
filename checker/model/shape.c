// SPDX-License-Identifier: GPL-2.0
/*
 * shape.c - a header's text without comments and function bodies
 * (shape.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/shape.h"
#include "trapcheck/base/util.h"

struct scan {
	const char *p, *end;
	struct bytes out;
	int depth;		/* inside a body: its brace depth */
	char last;		/* the last significant character at depth 0 */
	bool space;		/* white space seen since the last output */
};

static void put(struct scan *s, const char *p, size_t n)
{
	if (s->depth)
		return;
	if (s->space && s->out.len)
		bytes_put(&s->out, " ", 1);
	s->space = false;
	bytes_put(&s->out, p, n);
	if (n)
		s->last = p[n - 1];
}

/* A comment at s->p ("/" seen): skipped, counted as white space. */
static bool comment(struct scan *s)
{
	const char *q;

	if (s->p + 1 >= s->end)
		return false;
	if (s->p[1] == '/') {
		while (s->p < s->end && *s->p != '\n')
			s->p++;
	} else if (s->p[1] == '*') {
		q = s->p + 2;
		while (q + 1 < s->end && !(q[0] == '*' && q[1] == '/'))
			q++;
		s->p = q + 1 < s->end ? q + 2 : s->end;
	} else {
		return false;
	}
	s->space = true;
	return true;
}

/* A string or character literal at s->p, kept as written. */
static void literal(struct scan *s)
{
	const char *q = s->p + 1;
	char quote = *s->p;

	while (q < s->end && *q != quote && *q != '\n') {
		if (*q == '\\' && q + 1 < s->end)
			q++;
		q++;
	}
	if (q < s->end && *q == quote)
		q++;
	put(s, s->p, (size_t)(q - s->p));
	s->p = q;
}

/* Does a directive named @d (after '#') count inside a body too? */
static bool counts_anywhere(const char *d, const char *end)
{
	static const char *const names[] = { "define", "undef", "include",
					     "pragma" };
	size_t i, n;

	while (d < end && (*d == ' ' || *d == '\t'))
		d++;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		n = strlen(names[i]);
		if ((size_t)(end - d) >= n && !strncmp(d, names[i], n))
			return true;
	}
	return false;
}

/* A preprocessor line at s->p ('#' first on its line), continuations too. */
static void directive(struct scan *s)
{
	const char *q = s->p;
	struct bytes line = { 0 };
	bool keep;
	int depth = s->depth;

	while (q < s->end && *q != '\n') {
		if (*q == '\\' && q + 1 < s->end && q[1] == '\n') {
			q += 2;
			bytes_put(&line, " ", 1);
			continue;
		}
		bytes_put(&line, q, 1);
		q++;
	}
	keep = !depth || counts_anywhere((const char *)line.data + 1,
					 (const char *)line.data + line.len);
	if (keep) {
		s->depth = 0;
		bytes_put(&s->out, "\n", 1);
		bytes_put(&s->out, line.data, line.len);
		bytes_put(&s->out, "\n", 1);
		s->space = false;
		s->depth = depth;
	}
	bytes_free(&line);
	s->p = q;
}

char *shape_of(const char *text, size_t len)
{
	struct scan s = { .p = text, .end = text + len };
	bool line_start = true;

	while (s.p < s.end) {
		char c = *s.p;

		if (c == '\n' || c == ' ' || c == '\t' || c == '\r' ||
		    c == '\f' || c == '\v') {
			line_start |= c == '\n';
			s.space = true;
			s.p++;
			continue;
		}
		if (c == '#' && line_start) {
			directive(&s);
			continue;
		}
		line_start = false;
		if (c == '/' && comment(&s))
			continue;
		if (c == '"' || c == '\'') {
			literal(&s);
			continue;
		}
		if (c == '{' && !s.depth && s.last == ')') {
			put(&s, "{}", 2);
			s.depth = 1;
		} else if (c == '{' && s.depth) {
			s.depth++;
		} else if (c == '}' && s.depth) {
			s.depth--;
		} else {
			put(&s, s.p, 1);
		}
		s.p++;
	}
	bytes_put(&s.out, "", 1);
	return (char *)s.out.data;
}

bool shape_same(const char *a, size_t alen, const char *b, size_t blen)
{
	char *x = shape_of(a, alen), *y = shape_of(b, blen);
	bool same = !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/*
 * The macro view of a shape (shape_macros()): its lines as items, either
 * part of the skeleton (code, #include, #pragma, a conditional around
 * code) or macro items (a #define, an #undef, or a whole conditional
 * group of nothing but those and conditionals), each macro item placed
 * after the skeleton item it follows.
 */
enum dir { DIR_NONE, DIR_DEFINE, DIR_UNDEF, DIR_IF, DIR_ELSE, DIR_ENDIF,
	   DIR_OTHER };

struct mitem {
	const char *text;	/* the item's lines, in the shape */
	size_t len;
	size_t pos;		/* skeleton items before it */
	bool macro;
	bool matched;		/* found in the other text (macro items) */
};

struct mview {
	char *shape;
	struct mitem *v;
	size_t nr, alloc;
	/*
	 * The skeleton's items joined: a #define in a function body cuts
	 * the code around it in two lines of the shape, joined here again
	 * by a blank; a macro item's position is this text's length then.
	 */
	struct bytes skel;
	bool code_last;		/* the last skeleton item was code */
};

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool word_is(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && !strncmp(p, w, n) &&
	       (p + n == end || !(isalnum((unsigned char)p[n]) ||
				   p[n] == '_'));
}

static enum dir directive_of(const char *p, const char *end)
{
	static const struct {
		const char *w;
		enum dir d;
	} dirs[] = {
		{ "define", DIR_DEFINE }, { "undef", DIR_UNDEF },
		{ "ifdef", DIR_IF }, { "ifndef", DIR_IF }, { "if", DIR_IF },
		{ "elif", DIR_ELSE }, { "else", DIR_ELSE },
		{ "endif", DIR_ENDIF },
	};
	size_t i;

	if (p >= end || *p != '#')
		return DIR_NONE;
	p = skip_blank(p + 1, end);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (word_is(p, end, dirs[i].w))
			return dirs[i].d;
	return DIR_OTHER;
}

static void mview_push(struct mview *m, const char *text, const char *end,
		       size_t pos, bool macro)
{
	struct mitem *it = PUSH(m->v, m->nr, m->alloc);

	it->text = text;
	it->len = (size_t)(end - text);
	it->pos = pos;
	it->macro = macro;
	it->matched = false;
}

/* The end of the line at @p (its '\n' or @end). */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/*
 * The conditional group opened at @p: its end (after its #endif line)
 * when every line of it is a #define, #undef or conditional, else NULL.
 */
static const char *macro_group(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		const char *e = line_end(p, end);
		enum dir d = directive_of(p, e);

		if (d == DIR_NONE || d == DIR_OTHER) {
			if (p != e)	/* an empty line is no line */
				return NULL;
		}
		depth += d == DIR_IF;
		if (d == DIR_ENDIF && --depth == 0)
			return e;
		p = e + 1;
	}
	return NULL;
}

/* The identifier at @p after directive word @w and blanks: its length. */
static size_t directive_name(const char *p, const char *end, const char *w,
			     const char **name)
{
	const char *q;

	p = skip_blank(p + 1, end);
	if (!word_is(p, end, w))
		return 0;
	p = skip_blank(p + strlen(w), end);
	for (q = p; q < end && (isalnum((unsigned char)*q) || *q == '_'); q++)
		;
	*name = p;
	return skip_blank(q, end) == end ? (size_t)(q - p) : 0;
}

/*
 * Is the line [@p, @e) "#ifndef NAME" and the next line that is not
 * empty "#define NAME", the include guard idiom?
 */
static bool include_guard(const char *p, const char *e, const char *end)
{
	const char *a, *b, *n = e;
	size_t la, lb;

	la = directive_name(p, e, "ifndef", &a);
	if (!la)
		return false;
	while (n < end && (*n == '\n' || *n == ' ' || *n == '\t'))
		n++;
	lb = directive_name(n, line_end(n, end), "define", &b);
	return lb == la && !strncmp(a, b, la);
}

static void skeleton_push(struct mview *m, const char *p, const char *e,
			  bool code)
{
	if (m->skel.len)
		bytes_put(&m->skel, code && m->code_last ? " " : "\n", 1);
	bytes_put(&m->skel, p, (size_t)(e - p));
	m->code_last = code;
}

static void mview_make(struct mview *m, const char *text, size_t len)
{
	const char *p, *end, *e, *g;

	memset(m, 0, sizeof(*m));
	m->shape = shape_of(text, len);
	p = m->shape;
	end = p + strlen(p);
	for (; p < end; p = e + 1) {
		const char *t;
		enum dir d;

		e = line_end(p, end);
		p = skip_blank(p, e);
		for (t = e; t > p && (t[-1] == ' ' || t[-1] == '\t'); t--)
			;
		if (p == t)
			continue;
		d = directive_of(p, t);
		if (d == DIR_DEFINE || d == DIR_UNDEF) {
			mview_push(m, p, t, m->skel.len, true);
			continue;
		}
		g = d == DIR_IF ? macro_group(p, end) : NULL;
		/*
		 * An include guard: its lines are items as in a header with
		 * code inside, else a macro added anywhere in it would
		 * change every name it defines, the guard's too, which every
		 * includer tests.
		 */
		if (g && !m->nr && include_guard(p, t, end))
			g = NULL;
		if (g) {
			mview_push(m, p, g, m->skel.len, true);
			e = g;
			continue;
		}
		mview_push(m, p, t, m->skel.len, false);
		skeleton_push(m, p, t, d == DIR_NONE);
		if (e == end)
			break;
	}
	bytes_put(&m->skel, "", 1);
}

static void mview_free(struct mview *m)
{
	free(m->shape);
	free(m->v);
	bytes_free(&m->skel);
}

static bool item_same(const struct mitem *x, const struct mitem *y)
{
	return x->len == y->len && !memcmp(x->text, y->text, x->len);
}

/*
 * Each identifier of @it's text, with whether it is the name a #define
 * or #undef line defines: @fn(name, len, defined, arg).
 */
static void item_names(const struct mitem *it,
		       void (*fn)(const char *, size_t, bool, void *),
		       void *arg)
{
	const char *p = it->text, *end = it->text + it->len, *q;
	bool line_start = true, after_def = false;

	while (p < end) {
		if (*p == '\n') {
			line_start = true;
			p++;
			continue;
		}
		if (line_start && *p == '#') {
			enum dir d = directive_of(p, line_end(p, end));

			after_def = d == DIR_DEFINE || d == DIR_UNDEF;
			p = skip_blank(p + 1, end);
			/* The directive's own word. */
			while (p < end && isalpha((unsigned char)*p))
				p++;
			line_start = false;
			continue;
		}
		line_start = false;
		if (*p == '"' || *p == '\'') {
			char quote = *p++;

			while (p < end && *p != quote && *p != '\n') {
				if (*p == '\\' && p + 1 < end)
					p++;
				p++;
			}
			p += p < end && *p == quote;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			for (q = p; q < end && (isalnum((unsigned char)*q) ||
						*q == '_'); q++)
				;
			fn(p, (size_t)(q - p), after_def, arg);
			after_def = false;
			p = q;
			continue;
		}
		if (isdigit((unsigned char)*p))
			while (p < end && (isalnum((unsigned char)*p) ||
					   *p == '_' || *p == '.'))
				p++;
		else
			p++;
	}
}

struct names {
	char **v;
	size_t nr, alloc;
};

static bool names_has(const struct names *n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (strlen(n->v[i]) == len && !strncmp(n->v[i], s, len))
			return true;
	return false;
}

static void names_add(struct names *n, const char *s, size_t len)
{
	if (!names_has(n, s, len))
		*PUSH(n->v, n->nr, n->alloc) = xstrndup(s, len);
}

/* What the defined names of an item go into. */
struct defined {
	struct names *changed, *added;
	bool add;
};

static void put_defined(const char *s, size_t len, bool def, void *arg)
{
	struct defined *d = arg;

	if (!def)
		return;
	names_add(d->changed, s, len);
	if (d->add)
		names_add(d->added, s, len);
}

/* Does an item name one of @added other than as the name it defines? */
struct mention {
	const struct names *added;
	bool hit;
};

static void find_mention(const char *s, size_t len, bool def, void *arg)
{
	struct mention *m = arg;

	if (!def && names_has(m->added, s, len))
		m->hit = true;
}

static bool mentions(const struct mitem *it, const struct names *added)
{
	struct mention m = { .added = added };

	item_names(it, find_mention, &m);
	return m.hit;
}

/* The macro items at skeleton position @pos of @m: [*from, *to). */
static void at_pos(const struct mview *m, size_t pos, size_t *from,
		   size_t *to)
{
	size_t i = 0;

	while (i < m->nr && !(m->v[i].macro && m->v[i].pos == pos))
		i++;
	*from = i;
	while (i < m->nr && m->v[i].macro && m->v[i].pos == pos)
		i++;
	*to = i;
}

/* The name of a one-line #define item, or NULL. */
static const char *plain_define(const struct mitem *it, size_t *len)
{
	const char *end = it->text + it->len, *p, *q;

	if (memchr(it->text, '\n', it->len) ||
	    directive_of(it->text, end) != DIR_DEFINE)
		return NULL;
	p = skip_blank(skip_blank(it->text + 1, end) + strlen("define"),
		       end);
	for (q = p; q < end && (isalnum((unsigned char)*q) || *q == '_'); q++)
		;
	*len = (size_t)(q - p);
	return q > p ? p : NULL;
}

/*
 * Does an unmatched old item at [@xa, @xb) define @name with one plain
 * #define line too? Then a new definition there changes what it expands
 * to, not where it is defined.
 */
static bool was_plain(const struct mview *x, size_t xa, size_t xb,
		      const char *name, size_t len)
{
	size_t i, n;
	const char *s;

	for (i = xa; i < xb; i++) {
		s = plain_define(&x->v[i], &n);
		if (s && n == len && !strncmp(s, name, len))
			return true;
	}
	return false;
}

/*
 * The macro items at one position: matched one to one between the two
 * texts; an item of one only, or items that moved past each other,
 * change the names they define; a name whose new definition is not where
 * an old one was may be defined where it was not (@new->added).
 */
static void diff_pos(struct mview *x, struct mview *y, size_t pos,
		     struct defined *old, struct defined *new)
{
	size_t xa, xb, ya, yb, i, j, n;
	const char *name;
	bool order = true;

	at_pos(x, pos, &xa, &xb);
	at_pos(y, pos, &ya, &yb);
	for (i = xa; i < xb; i++)
		for (j = ya; j < yb; j++)
			if (!y->v[j].matched && item_same(&x->v[i], &y->v[j])) {
				x->v[i].matched = y->v[j].matched = true;
				break;
			}
	/* The matched ones in the same order on both sides? */
	for (i = xa, j = ya; order; i++, j++) {
		while (i < xb && !x->v[i].matched)
			i++;
		while (j < yb && !y->v[j].matched)
			j++;
		if (i >= xb || j >= yb) {
			order = i >= xb && j >= yb;
			break;
		}
		order = item_same(&x->v[i], &y->v[j]);
	}
	for (i = xa; i < xb; i++)
		if (!order || !x->v[i].matched)
			item_names(&x->v[i], put_defined, old);
	for (j = ya; j < yb; j++) {
		if (order && y->v[j].matched)
			continue;
		name = plain_define(&y->v[j], &n);
		new->add = !order || !name || !was_plain(x, xa, xb, name, n);
		item_names(&y->v[j], put_defined, new);
	}
	new->add = true;
}

static char **names_take(struct names *n)
{
	*PUSH(n->v, n->nr, n->alloc) = NULL;
	return n->v;
}

bool shape_macros(const char *a, size_t alen, const char *b, size_t blen,
		  char ***changed, char ***added)
{
	struct mview x, y;
	struct names ch = { 0 }, ad = { 0 };
	struct defined old = { &ch, &ad, false }, new = { &ch, &ad, true };
	size_t i, j, n, pos, len;
	bool ok;

	mview_make(&x, a, alen);
	mview_make(&y, b, blen);
	ok = !strcmp((const char *)x.skel.data, (const char *)y.skel.data);
	/* Each position a macro item is at, on either side, in order. */
	for (i = j = 0; ok && (i < x.nr || j < y.nr);) {
		while (i < x.nr && !x.v[i].macro)
			i++;
		while (j < y.nr && !y.v[j].macro)
			j++;
		if (i >= x.nr && j >= y.nr)
			break;
		pos = i >= x.nr ? y.v[j].pos : j >= y.nr ? x.v[i].pos :
		      x.v[i].pos < y.v[j].pos ? x.v[i].pos : y.v[j].pos;
		diff_pos(&x, &y, pos, &old, &new);
		while (i < x.nr && (!x.v[i].macro || x.v[i].pos == pos))
			i++;
		while (j < y.nr && (!y.v[j].macro || y.v[j].pos == pos))
			j++;
	}
	/*
	 * A name that may be defined now where it was not before changes
	 * every line that names it: the skeleton (then every includer is
	 * parsed again), a macro item (its names change too, and so on).
	 */
	for (n = 0; ok && n != ad.nr;) {
		n = ad.nr;
		for (j = 0; ok && j < y.nr; j++) {
			if (!mentions(&y.v[j], &ad))
				continue;
			if (!y.v[j].macro) {
				ok = false;
				break;
			}
			/* A group's tests decide what it defines. */
			new.add = !plain_define(&y.v[j], &len);
			item_names(&y.v[j], put_defined, &new);
			new.add = true;
		}
	}
	if (ok && !ch.nr)
		ok = false;	/* the same macros: shape_same()'s case */
	mview_free(&x);
	mview_free(&y);
	if (!ok) {
		for (i = 0; i < ch.nr; i++)
			free(ch.v[i]);
		for (i = 0; i < ad.nr; i++)
			free(ad.v[i]);
		free(ch.v);
		free(ad.v);
		return false;
	}
	*changed = names_take(&ch);
	*added = names_take(&ad);
	return true;
}
