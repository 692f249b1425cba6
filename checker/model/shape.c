// SPDX-License-Identifier: GPL-2.0
/*
 * shape.c - a header's text without comments and function bodies
 * (shape.h).
 */
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
