// SPDX-License-Identifier: GPL-2.0
/*
 * patchlint.c - lint a unified diff by analysing the patched tree
 * (patchlint.h). The diff is applied in memory (patchlint-read.c); the
 * patched texts go to the analysis as files in memory; the findings of
 * the patched tree that the tree does not have are the patch's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/model/shape.h"
#include "trapcheck/output/gitinfo.h"
#include "trapcheck/pipeline/patchlint.h"
#include "trapcheck/base/util.h"

#include "patchlint-internal.h"

/*
 * Which reaches of the patched tree's findings are new. A fingerprint
 * holds the site's ordinal in its function (finding.h), so a patch that
 * adds a site above another of the same sink renumbers the old one: the
 * sites are compared by their fingerprint without the ordinal, counted.
 * When the patched tree has more of one than the tree, the extra ones
 * are the sites on lines the patch added, then the last ones.
 */
struct reach_key {
	const struct finding *site;	/* the patched tree's finding */
	const struct finding *g;	/* its reach from one root set */
	char *key;			/* fingerprint without the ordinal */
	bool on_added;			/* the site's line is a new one */
	bool is_new;
};

/*
 * The fingerprint of @g without its ordinal; a static function of a file
 * the patch renames (@l; NULL: none) is named with the new name.
 */
static char *site_key(const struct lint *l, const struct finding *g)
{
	const char *file = g->fn->file;
	size_t i;

	for (i = 0; l && file && i < l->nr_renames; i++)
		if (!strcmp(file, l->renames[i].from))
			file = l->renames[i].to;
	return finding_fingerprint_as(g, file, 0);
}

/* Reaches of the tree with @key; a steady one only for a steady @phase. */
static size_t count_before(const struct lint *l, const struct findings *fs,
			   const char *key, const char *phase)
{
	size_t i, j, n = 0;

	for (i = 0; i < fs->nr; i++) {
		for (j = 0; j <= fs->v[i].nr_also; j++) {
			const struct finding *g = j ? &fs->v[i].also[j - 1] :
						      &fs->v[i];
			char *h;

			/* A guard taken away: boot phase then, steady now. */
			if (!strcmp(g->phase, "boot") &&
			    !strcmp(phase, "steady"))
				continue;
			h = site_key(l, g);
			n += !strcmp(h, key);
			free(h);
		}
	}
	return n;
}

static bool on_added_line(const struct lint *l, const struct finding *f)
{
	size_t i, k;

	for (i = 0; i < l->nr_files; i++) {
		const struct pfile *pf = &l->files[i];

		if (strcmp(pf->rel, f->site->file))
			continue;
		for (k = 0; k < pf->nr_added; k++)
			if (pf->added[k] == f->site->line)
				return true;
	}
	return false;
}

static int key_order(const void *a, const void *b)
{
	const struct reach_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->on_added != y->on_added)
		return x->on_added ? -1 : 1;
	/* Then the last ones first. */
	return x->g->site->ordinal > y->g->site->ordinal ? -1 :
	       x->g->site->ordinal < y->g->site->ordinal;
}

static void collect(const struct lint *l, const struct findings *fs,
		    struct reach_key **v, size_t *nr, size_t *alloc)
{
	size_t i, j;

	for (i = 0; i < fs->nr; i++)
		for (j = 0; j <= fs->v[i].nr_also; j++) {
			struct reach_key *r = PUSH(*v, *nr, *alloc);

			r->site = &fs->v[i];
			r->g = j ? &fs->v[i].also[j - 1] : &fs->v[i];
			r->key = site_key(NULL, r->g);
			r->on_added = on_added_line(l, &fs->v[i]);
			r->is_new = false;
		}
}

/* Mark the new reaches of @b (sorted by key_order()). */
static void mark_new(const struct lint *l, const struct analysis *a,
		     struct reach_key *v, size_t nr)
{
	size_t i = 0, j, k, before, extra;

	while (i < nr) {
		for (j = i; j < nr && !strcmp(v[j].key, v[i].key); j++)
			;
		/* Steady reaches need steady ones before; count per phase. */
		for (k = i; k < j; k++) {
			const char *ph = v[k].g->phase;
			size_t same = 0, m, rank = 0;

			before = count_before(l, &a->findings, v[k].key, ph) +
				 count_before(l, &a->low, v[k].key, ph);
			for (m = i; m < j; m++) {
				bool counts = !strcmp(ph, "boot") ||
					      !strcmp(v[m].g->phase, "steady");

				same += counts;
				if (m < k && counts)
					rank++;
			}
			extra = same > before ? same - before : 0;
			v[k].is_new = rank < extra;
		}
		i = j;
	}
}

struct new_sites {
	const struct finding **v;
	size_t nr;
};

static bool added(const struct finding *f, void *data)
{
	const struct new_sites *ns = data;
	size_t i;

	for (i = 0; i < ns->nr; i++)
		if (ns->v[i] == f)
			return true;
	return false;
}

/* Keep of @b's findings those with a new reach. */
static void keep_new(const struct lint *l, const struct analysis *a,
		     struct analysis *b)
{
	struct reach_key *v = NULL;
	size_t nr = 0, alloc = 0, i;
	struct new_sites ns = { 0 };

	collect(l, &b->findings, &v, &nr, &alloc);
	collect(l, &b->low, &v, &nr, &alloc);
	sort_n(v, nr, sizeof(*v), key_order);
	mark_new(l, a, v, nr);
	ns.v = xcalloc(nr + 1, sizeof(*ns.v));
	for (i = 0; i < nr; i++) {
		if (v[i].is_new)
			ns.v[ns.nr++] = v[i].site;
		free(v[i].key);
	}
	free(v);
	findings_filter(&b->findings, added, &ns);
	findings_filter(&b->low, added, &ns);
	free(ns.v);
}

/*
 * A file of the series whose text differs from the tree's only inside
 * function bodies (shape.h): the TUs that include it need not be parsed
 * again, only the owners of its bodies (analyze.h).
 */
static bool body_only(const struct lint_file *lf, const char *path)
{
	size_t n = strlen(lf->rel), len;
	char *old;
	bool same;

	if (!lf->text || n < 2 || strcmp(lf->rel + n - 2, ".h"))
		return false;
	old = file_bytes(path, &len);
	if (!old)
		return false;
	same = shape_same(old, len, lf->text, lf->len);
	free(old);
	return same;
}

/*
 * A header of the series whose text differs from the tree's only inside
 * function bodies and in macro definitions (shape.h): its includers that
 * depend on none of those macros keep their facts (analyze.h). Sets
 * @u->macros and @u->macros_added.
 */
static void macros_only(const struct lint_file *lf, struct unsaved_file *u)
{
	size_t n = strlen(lf->rel), len;
	char *old;

	if (!lf->text || n < 2 || strcmp(lf->rel + n - 2, ".h"))
		return;
	old = file_bytes(u->path, &len);
	if (!old)
		return;
	if (!shape_macros(old, len, lf->text, lf->len, &u->macros,
			  &u->macros_added))
		u->macros = u->macros_added = NULL;
	free(old);
}

static void strv_drop(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A patch of the input: its text, its mail's Subject and Message-ID. */
struct part {
	const char *text;
	size_t len;
	char *subject;
};

/* git format-patch's separator: "From <40 hex digits> <date>". */
/*
 * An mbox's "From " line, as git format-patch writes it ("From <40 hex>
 * Mon Sep 17 00:00:00 2001") or any mbox writer does (b4: "From git@z
 * Thu Jan  1 00:00:00 1970"): "From", a sender, a date as asctime()
 * writes it. A body line "From ..." is no such line.
 */
static bool mbox_from(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	char line[256], who[128], day[4], mon[4];
	int d, hh, mm, ss, year, n = 0;
	size_t len;
	bool hex = true;
	int i;

	if (end - p < 5 || strncmp(p, "From ", 5))
		return false;
	len = (size_t)((nl ? nl : end) - p);
	if (len >= sizeof(line))
		return false;
	memcpy(line, p, len);
	line[len] = '\0';
	if (sscanf(line, "From %127s %3s %3s %d %d:%d:%d %d%n", who, day,
		   mon, &d, &hh, &mm, &ss, &year, &n) != 8 ||
	    (size_t)n != len || d < 1 || d > 31 || hh > 23 || mm > 59 ||
	    ss > 60 || year < 1970)
		return false;
	/* git's sender is a commit id; other writers name a sender. */
	for (i = 0; who[i]; i++)
		hex &= isxdigit((unsigned char)who[i]) != 0;
	return (hex && i == 40) || strchr(who, '@') || !strcmp(who, "-");
}

/* The mail header @name of @p (its head: up to an empty line), unfolded. */
static char *mail_header(const struct part *p, const char *name)
{
	const char *q = p->text, *end = p->text + p->len, *nl;
	size_t n = strlen(name);
	struct bytes v = { 0 };

	while (q < end && *q != '\n') {
		nl = memchr(q, '\n', (size_t)(end - q));
		nl = nl ? nl : end;
		if ((size_t)(nl - q) > n && !strncasecmp(q, name, n) &&
		    q[n] == ':') {
			for (q += n + 1; ; q = nl + 1) {
				while (q < nl && (*q == ' ' || *q == '\t'))
					q++;
				if (v.len)
					bytes_put(&v, " ", 1);
				bytes_put(&v, q, (size_t)(nl - q));
				if (nl + 1 >= end || (nl[1] != ' ' &&
						      nl[1] != '\t'))
					break;
				q = nl + 1;
				nl = memchr(q, '\n', (size_t)(end - q));
				nl = nl ? nl : end;
			}
			bytes_put(&v, "", 1);
			return (char *)v.data;
		}
		q = nl + 1;
	}
	return NULL;
}

/* Split @text at git format-patch's separators: one part, or a series. */
static size_t split_series(const char *text, size_t len, struct part **out)
{
	const char *p = text, *end = text + len, *nl;
	struct part *v = NULL;
	size_t nr = 0, alloc = 0;

	for (; p < end; p = nl + 1) {
		if (mbox_from(p, end) || (p == text && !nr)) {
			struct part *pt = PUSH(v, nr, alloc);

			pt->text = p;
			pt->subject = NULL;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
	}
	if (!nr) {
		v = xcalloc(1, sizeof(*v));
		v->text = text;
		nr = 1;
	}
	/* Text before the first separator (none, or a blank line) goes. */
	if (nr > 1 && !mbox_from(v[0].text, end)) {
		memmove(v, v + 1, (nr - 1) * sizeof(*v));
		nr--;
	}
	for (size_t k = 0; k < nr; k++) {
		v[k].len = (size_t)((k + 1 < nr ? v[k + 1].text : end) -
				    v[k].text);
		v[k].subject = nr > 1 ? mail_header(&v[k], "Subject") : NULL;
	}
	*out = v;
	return nr;
}

/*
 * A patch whose first line ends in CR LF (saved from a mail client, or
 * written on Windows) read as patch(1) reads it: every line's trailing CR
 * dropped. A new text with its length in @len, or NULL when the patch's
 * lines end in LF.
 */
static char *crlf_strip(const char *text, size_t *len)
{
	const char *nl = memchr(text, '\n', *len);
	char *out;
	size_t i, n = 0;

	if (!nl || nl == text || nl[-1] != '\r')
		return NULL;
	out = xmalloc(*len + 1);
	for (i = 0; i < *len; i++) {
		if (text[i] == '\r' && (i + 1 == *len || text[i + 1] == '\n'))
			continue;
		out[n++] = text[i];
	}
	out[n] = '\0';
	*len = n;
	return out;
}

/* One patch of the input, linted on the tree with the series so far. */
struct step {
	struct lint l;
	char *name;		/* "PATCH (patch k of n)" in messages */
	struct analysis b;
	bool lint, analysed;	/* read (lint to free); analysed */
	bool skipped;		/* no file header: a cover letter */
};

static void lint_free(struct lint *l)
{
	size_t i;

	for (i = 0; i < l->nr_files; i++) {
		free(l->files[i].rel);
		free(l->files[i].added);
		src_free(&l->files[i].src);
		bytes_free(&l->files[i].out);
	}
	free(l->files);
	for (i = 0; i < l->nr_renames; i++) {
		free(l->renames[i].from);
		free(l->renames[i].to);
	}
	free(l->renames);
	free(l->real_root);
}

/* The series' files after @l's patch: its files' new texts. */
static void overlay_update(struct lint_file **ov, size_t *nr, size_t *alloc,
			   const struct lint *l)
{
	size_t i, j;

	for (i = 0; i < l->nr_files; i++) {
		const struct pfile *pf = &l->files[i];
		struct lint_file *lf = NULL;

		for (j = 0; j < *nr && !lf; j++)
			if (!strcmp((*ov)[j].rel, pf->rel))
				lf = &(*ov)[j];
		if (!lf) {
			lf = PUSH(*ov, *nr, *alloc);
			lf->rel = xstrdup(pf->rel);
		} else {
			free(lf->text);
		}
		lf->len = pf->out.len - 1;
		lf->text = pf->removed ? NULL : xmalloc(lf->len + 1);
		if (lf->text)
			memcpy(lf->text, pf->out.data, lf->len + 1);
	}
}

/* Read and apply one part; 0, 1 when it changes no file, or -errno. */
static int read_part(struct lint *l, const struct part *pt, bool series,
		     char *err, size_t errlen)
{
	FILE *f = pt->len ? fmemopen((void *)pt->text, pt->len, "r") : NULL;
	size_t i;
	int ret;

	if (!pt->len) {
		ret = 0;
	} else if (!f) {
		snprintf(err, errlen, "%s: cannot read the patch: %s",
			 l->patch, strerror(errno));
		return -errno;
	} else {
		ret = patchlint_read(l, f);
		fclose(f);
	}
	if (ret)
		return ret;
	/* As git apply: "No valid patches in input" (a mode change is one). */
	if (!l->headers && !series) {
		snprintf(err, errlen, "%s: no change to any file in the patch",
			 l->patch);
		return -EINVAL;
	}
	for (i = 0; i < l->nr_files; i++) {
		struct pfile *pf = &l->files[i];

		bytes_put(&pf->out, "", 1);
		if (pf->created && !pf->removed && !strstr(pf->rel, ".h"))
			diag_at(pf->rel, "note", "a new file: not analysed "
				"(no compile command for it)");
	}
	return !l->headers;
}

/* The tree with the series so far: its files as unsaved texts. */
static int analyse_overlay(const struct analysis *a,
			   const struct analysis_opts *ao,
			   const struct root_sets *roots,
			   const struct lint_file *ov, size_t nr,
			   struct analysis *b, char *err, size_t errlen)
{
	struct analysis_opts o = *ao;
	struct unsaved_file *u = xcalloc(nr + 1, sizeof(*u));
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		u[i].path = path_join(a->root, ov[i].rel);
		u[i].text = ov[i].text ? ov[i].text : "";
		u[i].len = ov[i].text ? ov[i].len : 0;
		u[i].body_only = body_only(&ov[i], u[i].path);
		if (!u[i].body_only)
			macros_only(&ov[i], &u[i]);
	}
	o.unsaved = u;
	o.nr_unsaved = (unsigned int)nr;
	o.progress = false;
	ret = analysis_run(b, &o, roots, err, errlen);
	for (i = 0; i < nr; i++) {
		free((char *)u[i].path);
		strv_drop(u[i].macros);
		strv_drop(u[i].macros_added);
	}
	free(u);
	return ret;
}

/*
 * Move @from's findings and their notes to the end of @to (the structs,
 * not copies); a note says @patch brought it, unless an earlier patch of
 * the series did.
 */
static void move_findings(struct findings *to, struct findings *from,
			  const char *patch)
{
	size_t i;

	for (i = 0; i < from->nr; i++) {
		struct finding *f = PUSH(to->v, to->nr, to->alloc);
		struct finding_note *was, *n;

		*f = from->v[i];
		was = (struct finding_note *)finding_note_of(from, f);
		n = finding_note(to, f);
		if (was && !n->patch) {
			*n = *was;
			memset(was, 0, sizeof(*was));
		}
		if (!n->patch)
			n->patch = patch;
	}
	from->nr = 0;
}

/*
 * The steps' findings, each attributed to its patch (a series), joined
 * into @b: the last analysed step's analysis, the others kept in
 * b->earlier (their graphs hold the findings' strings).
 */
static void join_steps(struct step *st, size_t n, struct part *parts,
		       struct analysis *b)
{
	struct findings all = { 0 }, low = { 0 };
	size_t k, last = n;

	for (k = 0; k < n; k++)
		if (st[k].analysed)
			last = k;
	*b = st[last].b;
	memset(&st[last].b, 0, sizeof(st[last].b));
	for (k = 0; k < n; k++) {
		struct analysis *s = k == last ? b : &st[k].b;
		const char *who = NULL;

		if (!st[k].analysed)
			continue;
		if (n > 1)
			who = strpool_intern(&b->graph.pool, parts[k].subject ?
					     parts[k].subject : "a patch "
					     "without a subject");
		move_findings(&all, &s->findings, who);
		move_findings(&low, &s->low, who);
	}
	findings_free(&b->findings);
	findings_free(&b->low);
	b->findings = all;
	b->low = low;
	b->earlier = xcalloc(n, sizeof(*b->earlier));
	for (k = 0; k < n; k++) {
		struct analysis *e;

		if (!st[k].analysed || k == last)
			continue;
		e = &b->earlier[b->nr_earlier++];
		*e = st[k].b;
	}
}

/* The whole input: a file, or "-" (stdin). */
static int read_input(const char *patch, char **text, size_t *len,
		      char *err, size_t errlen)
{
	bool in = !strcmp(patch, "-");
	const char *name = in ? "<stdin>" : patch;
	struct bytes b = { 0 };
	char buf[65536];
	FILE *f = stdin;
	size_t n;
	int ret = 0;

	/* stdin whatever it is (a pipe, a terminal); a file: input_open(). */
	if (!in && (ret = input_open(patch, "the patch", INPUT_MAX_TEXT, &f,
				     err, errlen)))
		return ret;
	while (!ret && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (b.len + n > INPUT_MAX_TEXT) {
			snprintf(err, errlen, "%s: cannot read the patch: more "
				 "than the limit of %llu bytes", name,
				 (unsigned long long)INPUT_MAX_TEXT);
			ret = -EFBIG;
		}
		bytes_put(&b, buf, n);
	}
	if (!ret && ferror(f)) {
		snprintf(err, errlen, "%s: cannot read the patch: %s", name,
			 strerror(EIO));
		ret = -EIO;
	}
	if (!in)
		fclose(f);
	bytes_put(&b, "", 1);
	if (ret) {
		bytes_free(&b);
		return ret;
	}
	*text = (char *)b.data;
	*len = b.len - 1;
	return 0;
}

/*
 * An #include the patch adds of an absolute path (#include "/dev/zero"),
 * or of a quoted one that leads there from the file's directory
 * ("../../../dev/zero"), is read by the parser as a header: one that is
 * no regular file would grow its memory or hang it. 0, or -EINVAL with
 * the place in @err.
 */
static int added_includes_ok(const struct lint *l, char *err, size_t errlen)
{
	size_t i, k;

	for (i = 0; i < l->nr_files; i++) {
		const struct pfile *pf = &l->files[i];
		const char *p = (const char *)pf->out.data;
		const char *end = p + pf->out.len;
		unsigned int line = 1;

		for (k = 0; p && k < pf->nr_added; k++) {
			const char *q, *nl;
			char path[4096];
			struct stat sb;
			size_t n;

			while (p < end && line < pf->added[k]) {
				nl = memchr(p, '\n', (size_t)(end - p));
				p = nl ? nl + 1 : end;
				line++;
			}
			nl = p < end ? memchr(p, '\n', (size_t)(end - p)) :
				       NULL;
			q = p + strspn(p, " \t");
			if (q >= end || *q != '#')
				continue;
			q++;
			q += strspn(q, " \t");
			if (strncmp(q, "include", 7))
				continue;
			q += 7;
			q += strspn(q, " \t");
			if ((*q != '"' && *q != '<') ||
			    (q[1] != '/' && *q != '"'))
				continue;
			n = strcspn(q + 1, "\">\n");
			if (n >= sizeof(path) / 2 || (nl && q + 1 + n > nl))
				continue;
			if (q[1] == '/') {
				memcpy(path, q + 1, n);
				path[n] = '\0';
			} else {
				/* "x.h" from the file's own directory first. */
				const char *slash = strrchr(pf->rel, '/');
				int d = slash ? (int)(slash - pf->rel) : 0;

				snprintf(path, sizeof(path), "%s/%.*s%s%.*s",
					 l->root, d, pf->rel, d ? "/" : "",
					 (int)n, q + 1);
			}
			if (stat(path, &sb) || S_ISREG(sb.st_mode))
				continue;
			snprintf(err, errlen, "%s: %s:%u: #include of %s: %s, "
				 "not a regular file (the parser would read it "
				 "without end)", l->patch, pf->rel, pf->added[k],
				 path, S_ISFIFO(sb.st_mode) ? "a FIFO" :
				 S_ISDIR(sb.st_mode) ? "a directory" :
				 "a device or socket");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Lint the patches of @text (one, or a series) in order, on the tree
 * with @base0 (the texts a range's first commit has, or none) and the
 * ones before applied.
 */
static int lint_series(const char *name, const char *text, size_t len,
		       const struct lint_file *base0, size_t nr_base0,
		       const struct analysis *a,
		       const struct analysis_opts *ao,
		       const struct root_sets *roots, struct analysis *b,
		       char *err, size_t errlen)
{
	struct lint_file *ov = NULL;
	size_t nr_ov = 0, alloc_ov = 0, n, k, real = 0;
	struct analysis start;
	bool own_start = false;
	struct part *parts;
	struct step *st;
	char *crlf;
	int ret = 0;

	memset(b, 0, sizeof(*b));
	for (k = 0; k < nr_base0; k++) {
		struct lint_file *lf = PUSH(ov, nr_ov, alloc_ov);

		lf->rel = xstrdup(base0[k].rel);
		lf->len = base0[k].len;
		lf->text = NULL;
		if (base0[k].text) {
			lf->text = xmalloc(lf->len + 1);
			memcpy(lf->text, base0[k].text, lf->len + 1);
		}
	}
	/* The tree as the range's first commit has it, when it is not. */
	if (nr_ov) {
		ret = analyse_overlay(a, ao, roots, ov, nr_ov, &start, err,
				      errlen);
		own_start = !ret;
	}
	crlf = crlf_strip(text, &len);
	n = split_series(crlf ? crlf : text, len, &parts);
	st = xcalloc(n, sizeof(*st));
	for (k = 0; !ret && k < n; k++) {
		struct lint *l = &st[k].l;

		st[k].name = n > 1 ? xasprintf("%s (patch %zu of %zu)", name,
					       k + 1, n) : xstrdup(name);
		*l = (struct lint){ .patch = st[k].name, .root = a->root,
				    .strip = -1, .err = err, .errlen = errlen,
				    .base = ov, .nr_base = nr_ov };
		st[k].lint = true;
		ret = read_part(l, &parts[k], n > 1, err, errlen);
		if (ret == 1) {		/* a cover letter: nothing to apply */
			st[k].skipped = true;
			ret = 0;
			continue;
		}
		if (!ret)
			ret = added_includes_ok(l, err, errlen);
		if (ret)
			break;
		overlay_update(&ov, &nr_ov, &alloc_ov, l);
		ret = analyse_overlay(a, ao, roots, ov, nr_ov, &st[k].b, err,
				      errlen);
		st[k].analysed = !ret;
		real += !ret;
	}
	if (!ret && !real) {
		snprintf(err, errlen, "%s: no change to any file in the patch",
			 name);
		ret = -EINVAL;
	}
	/* What each patch adds to what the ones before it left: last first. */
	for (k = n; !ret && k-- > 0;) {
		const struct analysis *before = own_start ? &start : a;
		size_t j;

		if (!st[k].analysed)
			continue;
		for (j = k; j-- > 0;)
			if (st[j].analysed) {
				before = &st[j].b;
				break;
			}
		keep_new(&st[k].l, before, &st[k].b);
	}
	if (!ret)
		join_steps(st, n, parts, b);
	for (k = 0; k < n; k++) {
		if (st[k].lint)
			lint_free(&st[k].l);
		free(st[k].name);
		if (ret && st[k].analysed)
			analysis_free(&st[k].b);
		free(parts[k].subject);
	}
	if (own_start)
		analysis_free(&start);
	for (k = 0; k < nr_ov; k++) {
		free(ov[k].rel);
		free(ov[k].text);
	}
	free(ov);
	free(st);
	free(parts);
	free(crlf);
	return ret;
}

int patchlint_run(const char *patch, const struct analysis *a,
		  const struct analysis_opts *ao,
		  const struct root_sets *roots, struct analysis *b,
		  char *err, size_t errlen)
{
	const char *name = strcmp(patch, "-") ? patch : "<stdin>";
	char *text;
	size_t len;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = read_input(patch, &text, &len, err, errlen);
	if (ret)
		return ret;
	ret = lint_series(name, text, len, NULL, 0, a, ao, roots, b, err,
			  errlen);
	free(text);
	return ret;
}

int patchlint_range(const char *range, const struct analysis *a,
		    const struct analysis_opts *ao,
		    const struct root_sets *roots, struct analysis *b,
		    char *err, size_t errlen)
{
	struct gitinfo_file *base;
	struct lint_file *lf;
	size_t nr_base, k;
	char *mbox;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = gitinfo_range(a->root, range, &mbox, &base, &nr_base, err,
			    errlen);
	if (ret)
		return ret;
	lf = xcalloc(nr_base + 1, sizeof(*lf));
	for (k = 0; k < nr_base; k++)
		lf[k] = (struct lint_file){ base[k].rel, base[k].text,
					    base[k].len };
	ret = lint_series(range, mbox, strlen(mbox), lf, nr_base, a, ao,
			  roots, b, err, errlen);
	free(lf);
	gitinfo_files_free(base, nr_base);
	free(mbox);
	return ret;
}
