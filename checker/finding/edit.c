// SPDX-License-Identifier: GPL-2.0
/*
 * edit.c - source files as lines, line-range edits and their diffs, and
 * the text helpers of the patch and semantic-patch writers (edit.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/base/util.h"

void fix_edit_add_line(struct fix_edit *e, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	e->lines = xrealloc(e->lines, (e->nr_lines + 1) * sizeof(*e->lines));
	e->lines[e->nr_lines++] = s;
}

void fix_edit_free(struct fix_edit *e)
{
	strv_free(e->lines, e->nr_lines);
	free(e->path);
	free(e->subject);
	free(e->body);
	free(e->group);
	free(e->group_arg);
	memset(e, 0, sizeof(*e));
}

const char *fix_sink_call(const struct fix_ctx *ctx, const char **line)
{
	const struct finding *f = ctx->finding;
	size_t n = strlen(finding_sink(f));
	const char *at;

	if (f->site->line < 1 || f->site->line > ctx->src->nr_lines ||
	    f->site->col < 1)
		return NULL;
	*line = ctx->src->lines[f->site->line - 1];
	at = *line + f->site->col - 1;
	if (strlen(*line) < f->site->col - 1 + n ||
	    strncmp(at, finding_sink(f), n) ||
	    at[n] != '(')
		return NULL;
	return at;
}

char *line_indent(const char *line)
{
	size_t n = strspn(line, " \t");

	return xstrndup(line, n);
}

/*
 * Subject prefixes by path, as the kernel's own history writes them: the
 * architecture's first (struct arch), then these.
 */
static const struct arch_path areas[] = {
	{ "drivers/char/random.c", "random" },
	{ "mm/", "mm" },
	{ "kernel/sched/", "sched" },
	{ "kernel/", "kernel" },
};

char *fix_area(const char *path)
{
	const struct arch *arch = arch_current();
	const char *base = strrchr(path, '/');
	size_t i, n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	for (i = 0; i < arch->nr_areas + ARRAY_SIZE(areas); i++) {
		const struct arch_path *ap = i < arch->nr_areas ?
			&arch->areas[i] : &areas[i - arch->nr_areas];

		if (strncmp(path, ap->prefix, strlen(ap->prefix)))
			continue;
		if (ap->text)
			return xstrdup(ap->text);
		return xasprintf("%s: %.*s", arch->name, (int)n, base);
	}
	/* lib/zstd/common/cpu.h: a library of lib/ by its directory. */
	if (!strncmp(path, "lib/", 4) && strchr(path + 4, '/'))
		return xstrndup(path + 4, strcspn(path + 4, "/"));
	return xstrndup(base, n);
}

void src_free(struct src_file *s)
{
	free(s->path);
	free(s->text);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}

/* Take ownership of @text and split it into lines. */
void src_from_text(struct src_file *s, const char *rel, char *text)
{
	size_t len = strlen(text), i;

	memset(s, 0, sizeof(*s));
	s->text = text;
	s->path = xstrdup(rel);
	s->lines = xmalloc((len + 2) * sizeof(*s->lines));
	s->lines[s->nr_lines++] = s->text;
	for (i = 0; i < len; i++) {
		if (s->text[i] != '\n')
			continue;
		s->text[i] = '\0';
		if (i + 1 < len)
			s->lines[s->nr_lines++] = s->text + i + 1;
	}
}

int src_load(struct src_file *s, const char *tree, const char *rel)
{
	char *path = path_join(tree, rel);
	FILE *fp = fopen(path, "rb");
	size_t len = 0, cap = 0, n;
	char buf[65536], *text;

	free(path);
	memset(s, 0, sizeof(*s));
	if (!fp)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		GROW(s->text, cap, len + n + 1);
		memcpy(s->text + len, buf, n);
		len += n;
	}
	fclose(fp);
	GROW(s->text, cap, len + 1);
	s->text[len] = '\0';
	text = s->text;
	src_from_text(s, rel, text);
	return 0;
}

void fix_edit_copy(struct fix_edit *d, const struct fix_edit *e)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->first = e->first;
	d->last = e->last;
	for (i = 0; i < e->nr_lines; i++)
		fix_edit_add_line(d, "%s", e->lines[i]);
	d->path = e->path ? xstrdup(e->path) : NULL;
	d->subject = e->subject ? xstrdup(e->subject) : NULL;
	d->body = e->body ? xstrdup(e->body) : NULL;
	d->group = e->group ? xstrdup(e->group) : NULL;
	d->group_arg = e->group_arg ? xstrdup(e->group_arg) : NULL;
}

void fix_sites_free(struct fix_sites *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		fix_edit_free(&s->v[i].e);
		src_free(&s->v[i].src);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The file's text with @e applied, '\n'-terminated lines. */
char *edit_apply(const struct src_file *s, const struct fix_edit *e)
{
	size_t i, len = 1;
	char *out, *p;

	for (i = 0; i < s->nr_lines; i++)
		len += strlen(s->lines[i]) + 1;
	for (i = 0; i < e->nr_lines; i++)
		len += strlen(e->lines[i]) + 1;
	out = p = xmalloc(len);
	for (i = 0; i < s->nr_lines; i++) {
		size_t j;

		if (i + 1 == e->first)
			for (j = 0; j < e->nr_lines; j++)
				p += sprintf(p, "%s\n", e->lines[j]);
		if (i + 1 >= e->first && i + 1 <= e->last)
			continue;
		p += sprintf(p, "%s\n", s->lines[i]);
	}
	*p = '\0';
	return out;
}

#define CONTEXT 3

/*
 * The replaced region as diff lines: the longest common subsequence of
 * the old and new lines (both a handful) stays as context, the rest is
 * removed and added, as diff(1) would show it.
 */
static void region_ops(const struct src_file *s, const struct fix_edit *e,
		       FILE *out, size_t *added, size_t *removed)
{
	size_t n = e->last - e->first + 1, m = e->nr_lines, i, j;
	const char *const *old = (const char *const *)s->lines + e->first - 1;
	const char *const *new = (const char *const *)e->lines;
	unsigned int *lcs = xcalloc((n + 1) * (m + 1), sizeof(*lcs));

#define L(i, j) lcs[(i) * (m + 1) + (j)]
	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			L(i, j) = !strcmp(old[i], new[j]) ? L(i + 1, j + 1) + 1 :
				  L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) :
							      L(i, j + 1);
	*added = *removed = 0;
	for (i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && !strcmp(old[i], new[j])) {
			fprintf(out, " %s\n", old[i++]);
			j++;
		} else if (i < n && (j == m || L(i + 1, j) >= L(i, j + 1))) {
			fprintf(out, "-%s\n", old[i++]);
			(*removed)++;
		} else {
			fprintf(out, "+%s\n", new[j++]);
			(*added)++;
		}
	}
#undef L
	free(lcs);
}

static int edit_order(const void *a, const void *b)
{
	const struct fix_edit *x = *(const struct fix_edit *const *)a;
	const struct fix_edit *y = *(const struct fix_edit *const *)b;

	return (x->first > y->first) - (x->first < y->first);
}

/* @e sorted by line, or NULL when two of them overlap (new). */
static const struct fix_edit **edits_sorted(const struct fix_edit *const *e,
					    size_t n)
{
	const struct fix_edit **v = xcalloc(n + 1, sizeof(*v));
	size_t i;

	memcpy(v, e, n * sizeof(*v));
	sort_n(v, n, sizeof(*v), edit_order);
	for (i = 1; i < n; i++) {
		if (v[i]->first <= v[i - 1]->last) {
			free(v);
			return NULL;
		}
	}
	return v;
}

char *edit_apply_all(const struct src_file *s, const struct fix_edit *const *e,
		  size_t n)
{
	const struct fix_edit **v = edits_sorted(e, n);
	char *buf = NULL;
	size_t len = 0, i, k = 0;
	FILE *out;

	if (!v)
		return NULL;
	out = open_memstream(&buf, &len);
	for (i = 1; i <= s->nr_lines; i++) {
		size_t j;

		if (k < n && i == v[k]->first) {
			for (j = 0; j < v[k]->nr_lines; j++)
				fprintf(out, "%s\n", v[k]->lines[j]);
			i = v[k++]->last;
			continue;
		}
		fprintf(out, "%s\n", s->lines[i - 1]);
	}
	fclose(out);
	free(v);
	return buf;
}

static char *diff_sorted(const struct src_file *s,
			 const struct fix_edit *const *e, size_t n,
			 size_t *added, size_t *removed);

/*
 * @e without the lines at its ends that it leaves as they are, as diff(1)
 * would show it: its hunk then has three lines of context on each side
 * (GNU patch applies a hunk whose two sides differ only with fuzz).
 * @t's lines are @e's (not copied).
 */
static void edit_trim(const struct src_file *s, const struct fix_edit *e,
		      struct fix_edit *t)
{
	size_t n = e->last >= e->first ? e->last - e->first + 1 : 0;
	size_t m = e->nr_lines, pre = 0, suf = 0;

	while (pre < n && pre < m &&
	       !strcmp(s->lines[e->first - 1 + pre], e->lines[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre &&
	       !strcmp(s->lines[e->last - 1 - suf], e->lines[m - 1 - suf]))
		suf++;
	*t = *e;
	t->first = e->first + pre;
	t->last = e->last - suf;
	t->lines = e->lines + pre;
	t->nr_lines = m - pre - suf;
}

char *edit_diff_all(const struct src_file *s, const struct fix_edit *const *e,
		    size_t n, size_t *added, size_t *removed)
{
	struct fix_edit *t = xcalloc(n + 1, sizeof(*t));
	const struct fix_edit **te = xcalloc(n + 1, sizeof(*te));
	size_t i;
	char *d;

	for (i = 0; i < n; i++) {
		edit_trim(s, e[i], &t[i]);
		te[i] = &t[i];
	}
	d = diff_sorted(s, te, n, added, removed);
	free(te);
	free(t);
	return d;
}

static char *diff_sorted(const struct src_file *s,
			 const struct fix_edit *const *e, size_t n,
			 size_t *added, size_t *removed)
{
	const struct fix_edit **v = edits_sorted(e, n);
	char *buf = NULL;
	size_t len = 0, k = 0;
	long shift = 0;
	FILE *out;

	*added = *removed = 0;
	if (!v)
		return NULL;
	out = open_memstream(&buf, &len);
	fprintf(out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", s->path,
		s->path, s->path, s->path);
	while (k < n) {
		size_t from = v[k]->first > CONTEXT ? v[k]->first - CONTEXT : 1;
		size_t to, old_n, new_n = 0, j = k, i;
		char *hunk = NULL;
		size_t hlen = 0;
		FILE *h = open_memstream(&hunk, &hlen);

		/* The edits whose context meets the last one's: one hunk. */
		while (j + 1 < n && v[j + 1]->first <= v[j]->last + 2 * CONTEXT + 1)
			j++;
		to = v[j]->last + CONTEXT <= s->nr_lines ?
		     v[j]->last + CONTEXT : s->nr_lines;
		old_n = to - from + 1;
		for (i = from; k <= j; k++) {
			size_t a, r;

			for (; i < v[k]->first; i++)
				fprintf(h, " %s\n", s->lines[i - 1]);
			region_ops(s, v[k], h, &a, &r);
			*added += a;
			*removed += r;
			new_n -= v[k]->last - v[k]->first + 1;
			new_n += v[k]->nr_lines;
			i = v[k]->last + 1;
		}
		for (; i <= to; i++)
			fprintf(h, " %s\n", s->lines[i - 1]);
		fclose(h);
		new_n += old_n;
		fprintf(out, "@@ -%zu,%zu +%ld,%zu @@\n%s", from, old_n,
			(long)from + shift, new_n, hunk);
		shift += (long)new_n - (long)old_n;
		free(hunk);
	}
	fclose(out);
	free(v);
	return buf;
}

/* A unified diff of one edit, paths a/ and b/ relative to the tree. */
char *edit_diff(const struct src_file *s, const struct fix_edit *e,
		size_t *added, size_t *removed)
{
	return edit_diff_all(s, &e, 1, added, removed);
}

/*
 * Classify each byte of @line as code, string or character literal, or
 * comment; *@in_comment carries a block comment over lines.
 */
char *line_mask(const char *line, bool *in_comment)
{
	size_t n = strlen(line), i = 0;
	char *m = xmalloc(n + 1);

	while (i < n) {
		if (*in_comment) {
			m[i] = MASK_COMMENT;
			if (line[i] == '*' && line[i + 1] == '/') {
				m[++i] = MASK_COMMENT;
				*in_comment = false;
			}
			i++;
		} else if (line[i] == '/' && line[i + 1] == '*') {
			m[i++] = MASK_COMMENT;
			m[i++] = MASK_COMMENT;
			*in_comment = true;
		} else if (line[i] == '/' && line[i + 1] == '/') {
			memset(m + i, MASK_COMMENT, n - i);
			i = n;
		} else if (line[i] == '"' || line[i] == '\'') {
			char q = line[i];

			m[i++] = MASK_STRING;
			while (i < n && line[i] != q) {
				if (line[i] == '\\' && i + 1 < n)
					m[i++] = MASK_STRING;
				m[i++] = MASK_STRING;
			}
			if (i < n)
				m[i++] = MASK_STRING;
		} else {
			m[i++] = MASK_CODE;
		}
	}
	m[n] = '\0';
	return m;
}

char *line_code(const char *line, bool *in_comment)
{
	char *m = line_mask(line, in_comment);
	size_t n = strlen(line), i, k = 0;
	char *s = xmalloc(n + 1);

	for (i = 0; i < n; i++)
		if (m[i] != MASK_COMMENT)
			s[k++] = line[i];
	while (k && isspace((unsigned char)s[k - 1]))
		k--;
	s[k] = '\0';
	free(m);
	return s;
}

void text_wrap(FILE *out, const char *lead, const char *cont, size_t width,
	       const char *text)
{
	const char *p = text;
	size_t col = 0;
	bool started = false;

	while (*p) {
		size_t w;
		bool wrap;

		if (*p == '\n') {
			/* The end of a line; a second one: a blank line. */
			if (col)
				fputc('\n', out);
			else if (started)
				fputc('\n', out);
			col = 0;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		w = strcspn(p, " \n");
		wrap = !col || col + 1 + w > width;
		col = text_put_word(out, p, w, col, wrap,
				    started ? cont : lead);
		started |= wrap;
		p += w;
	}
	if (col)
		fputc('\n', out);
}

size_t text_put_word(FILE *out, const char *p, size_t w, size_t col,
		     bool wrap, const char *indent)
{
	if (wrap) {
		if (col)
			fputc('\n', out);
		fputs(indent, out);
		col = strlen(indent);
	} else {
		fputc(' ', out);
		col++;
	}
	fwrite(p, 1, w, out);
	return col + w;
}
