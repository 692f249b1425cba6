// SPDX-License-Identifier: GPL-2.0
/*
 * bodyskip.c - header bodies blanked for the TUs after the first
 * (bodyskip.h).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapcheck/clang/bodyskip.h"
#include "trapcheck/base/util.h"

struct body_range {
	unsigned int from, to;
};

struct skip_file {
	char *path;
	char *text;		/* the header, its noted bodies blanked */
	size_t len;
	bool unreadable;	/* never blanked */
	bool over;		/* given as unsaved text: always passed on */
	char *orig;		/* the header as on disk */
	struct body_range *blanked;	/* bodies blanked, sorted */
	size_t nr_blanked, alloc_blanked;
	struct body_range *pending;	/* noted since the last files() */
	size_t nr_pending, alloc_pending;
	unsigned int *never;	/* bodies that made a TU parse again */
	size_t nr_never, alloc_never;
};

struct body_skip {
	struct strmap index;	/* path -> files[] */
	struct skip_file *files;
	size_t nr_files, alloc_files;
	int *dirty;		/* files with pending bodies */
	size_t nr_dirty, alloc_dirty;
	struct CXUnsavedFile *unsaved;
	size_t alloc_unsaved;
	unsigned int last;	/* blanked files the last files() gave */
	struct body_skip_stats st;
};

/* A new entry for @path (a real path) with @len bytes of @text. */
static struct skip_file *add_file(struct body_skip *s, const char *path,
				  char *text, size_t len)
{
	struct skip_file *f = PUSH(s->files, s->nr_files, s->alloc_files);

	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->text = text;
	f->len = len;
	f->unreadable = !text;
	if (text) {
		f->orig = xmalloc(len + 1);
		memcpy(f->orig, text, len + 1);
	}
	strmap_put(&s->index, path, (int)(s->nr_files - 1));
	return f;
}

struct body_skip *body_skip_new(const struct CXUnsavedFile *over,
				unsigned int nr_over)
{
	struct body_skip *s = xcalloc(1, sizeof(*s));
	unsigned int i;

	strmap_init(&s->index);
	for (i = 0; i < nr_over; i++) {
		char *real = realpath(over[i].Filename, NULL);
		const char *path = real ? real : over[i].Filename;
		char *text = xmalloc(over[i].Length + 1);

		memcpy(text, over[i].Contents, over[i].Length);
		text[over[i].Length] = '\0';
		if (strmap_get(&s->index, path) < 0)
			add_file(s, path, text, over[i].Length)->over = true;
		else
			free(text);
		free(real);
	}
	return s;
}

void body_skip_free(struct body_skip *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_files; i++) {
		free(s->files[i].path);
		free(s->files[i].text);
		free(s->files[i].orig);
		free(s->files[i].never);
		free(s->files[i].blanked);
		free(s->files[i].pending);
	}
	free(s->files);
	free(s->dirty);
	free(s->unsaved);
	strmap_free(&s->index);
	free(s);
}

/* The whole of @path, or NULL. */
static char *read_all(const char *path, size_t *len)
{
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		goto out_close;
	buf = xmalloc((size_t)sb.st_size + 1);
	while (got < (size_t)sb.st_size &&
	       (n = read(fd, buf + got, (size_t)sb.st_size - got)) > 0)
		got += (size_t)n;
	if (got != (size_t)sb.st_size) {
		free(buf);
		buf = NULL;
		goto out_close;
	}
	buf[got] = '\0';
	*len = got;
out_close:
	close(fd);
	return buf;
}

/* The index of @from among the first @n (sorted) of @f->blanked, or -1. */
static long in_blanked(const struct skip_file *f, size_t n, unsigned int from)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->blanked[mid].from == from)
			return (long)mid;
		if (f->blanked[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static bool has_blanked(const struct skip_file *f, unsigned int from)
{
	return in_blanked(f, f->nr_blanked, from) >= 0;
}

static bool is_never(const struct skip_file *f, unsigned int from)
{
	size_t i;

	for (i = 0; i < f->nr_never; i++)
		if (f->never[i] == from)
			return true;
	return false;
}

void body_skip_note(struct body_skip *s, const char *path, unsigned int from,
		    unsigned int to)
{
	struct skip_file *f;
	struct body_range *r;
	int k = strmap_get(&s->index, path);

	if (k < 0) {
		char *text;
		size_t len = 0;

		k = (int)s->nr_files;
		text = read_all(path, &len);
		add_file(s, path, text, len);
	}
	f = &s->files[k];
	if (f->unreadable || to <= from + 1 || to > f->len ||
	    f->text[from] != '{' || f->text[to - 1] != '}' ||
	    has_blanked(f, from) || is_never(f, from))
		return;
	if (!f->nr_pending)
		*PUSH(s->dirty, s->nr_dirty, s->alloc_dirty) = k;
	r = PUSH(f->pending, f->nr_pending, f->alloc_pending);
	r->from = from;
	r->to = to;
}

/*
 * Blank (@from, @to - 1) as the preprocessor reads it: code, comments and
 * literals become spaces, newlines stay; a line whose first token is `#`
 * (not in a comment or literal) stays whole, with its continuations and
 * any comment it opens. A digraph directive (`%:`) is blanked: a TU that
 * needed it fails to parse and is parsed again in full (extract.c).
 */
static void blank(char *t, unsigned int from, unsigned int to)
{
	enum { CODE, BLOCK, LINE, STR, CHR } st = CODE;
	unsigned int i = from + 1, end = to - 1, n;
	bool keep = false, bol = false;	/* the `{` line starts no directive */

	while (i < end) {
		if (bol && !keep) {
			unsigned int j = i;

			while (j < end && (t[j] == ' ' || t[j] == '\t'))
				j++;
			keep = j < end && t[j] == '#';
		}
		bol = false;
		n = 1;
		switch (st) {
		case CODE:
			if (t[i] == '/' && i + 1 < end &&
			    (t[i + 1] == '*' || t[i + 1] == '/')) {
				st = t[i + 1] == '*' ? BLOCK : LINE;
				n = 2;
			} else if (t[i] == '"') {
				st = STR;
			} else if (t[i] == '\'') {
				st = CHR;
			}
			break;
		case BLOCK:
			if (t[i] == '*' && i + 1 < end && t[i + 1] == '/') {
				st = CODE;
				n = 2;
			}
			break;
		case LINE:
			if (t[i] == '\n' && t[i - 1] != '\\')
				st = CODE;
			break;
		case STR:
		case CHR:
			if (t[i] == '\\')
				n = 2;	/* an escape, or a continued line */
			else if (t[i] == (st == STR ? '"' : '\'') ||
				 t[i] == '\n')
				st = CODE;
			break;
		}
		for (; n && i < end; n--, i++) {
			if (t[i] != '\n') {
				if (!keep)
					t[i] = ' ';
				continue;
			}
			if (keep && t[i - 1] != '\\' && st != BLOCK)
				keep = false;
			bol = st == CODE;
		}
	}
}

static int range_cmp(const void *a, const void *b)
{
	const struct body_range *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* Blank @f's pending bodies. */
static void apply(struct body_skip *s, struct skip_file *f)
{
	size_t i, old = f->nr_blanked;

	sort_n(f->pending, f->nr_pending, sizeof(*f->pending), range_cmp);
	for (i = 0; i < f->nr_pending; i++) {
		struct body_range *r = &f->pending[i];

		/* Noted twice in one TU, or blanked already. */
		if ((i && r->from == f->pending[i - 1].from) ||
		    in_blanked(f, old, r->from) >= 0)
			continue;
		blank(f->text, r->from, r->to);
		*PUSH(f->blanked, f->nr_blanked, f->alloc_blanked) = *r;
		s->st.bodies++;
	}
	if (!old && f->nr_blanked)
		s->st.files++;
	sort_n(f->blanked, f->nr_blanked, sizeof(*f->blanked), range_cmp);
	f->nr_pending = 0;
}

unsigned int body_skip_files(struct body_skip *s, const char *main,
			     struct CXUnsavedFile **files)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < s->nr_dirty; i++)
		apply(s, &s->files[s->dirty[i]]);
	s->nr_dirty = 0;
	s->last = 0;
	GROW(s->unsaved, s->alloc_unsaved, s->nr_files + 1);
	for (i = 0; i < s->nr_files; i++) {
		const struct skip_file *f = &s->files[i];
		bool whole = !f->nr_blanked || (main && !strcmp(f->path, main));

		if (whole && !f->over)
			continue;
		s->unsaved[n].Filename = f->path;
		s->unsaved[n].Contents = whole ? f->orig : f->text;
		s->unsaved[n].Length = f->len;
		s->last += !whole;
		n++;
	}
	*files = s->unsaved;
	return n;
}

bool body_skip_blanked(const struct body_skip *s, const char *path,
		       unsigned int from)
{
	int k = strmap_get(&s->index, path);

	return k >= 0 && has_blanked(&s->files[k], from);
}

void body_skip_never(struct body_skip *s, const char *path,
		     unsigned int from)
{
	int k = strmap_get(&s->index, path);
	struct skip_file *f;
	long i;

	if (k < 0)
		return;
	f = &s->files[k];
	*PUSH(f->never, f->nr_never, f->alloc_never) = from;
	i = in_blanked(f, f->nr_blanked, from);
	if (i < 0)
		return;
	memcpy(f->text + f->blanked[i].from, f->orig + f->blanked[i].from,
	       f->blanked[i].to - f->blanked[i].from);
	memmove(&f->blanked[i], &f->blanked[i + 1],
		(f->nr_blanked - (size_t)i - 1) * sizeof(*f->blanked));
	f->nr_blanked--;
	s->st.bodies--;
}

void body_skip_stats(const struct body_skip *s, struct body_skip_stats *st)
{
	*st = s->st;
}

void body_skip_count(struct body_skip *s, bool redone)
{
	if (!s->last)
		return;
	s->st.tus++;
	if (redone)
		s->st.redone++;
}
