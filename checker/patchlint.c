// SPDX-License-Identifier: GPL-2.0
/*
 * patchlint.c - lint a unified diff by analysing the patched tree
 * (patchlint.h).
 *
 * The diff is read file by file ("--- " / "+++ " lines, with or without
 * git's a/ and b/, with diff -u's dates) and each file's hunks are
 * applied to its text in memory, as patch(1) would: the removed and
 * context lines must be there, at the hunk's line or near it. The
 * patched texts go to the analysis as files in memory; the findings of
 * the patched tree that the tree does not have are the patch's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trapcheck/diag.h"
#include "trapcheck/edit.h"
#include "trapcheck/patchlint.h"
#include "trapcheck/util.h"

/* How far from its stated line a hunk may apply (patch(1)'s offset). */
#define HUNK_OFFSET_MAX	200

/* A file of the patch, with its text as patched so far. */
struct pfile {
	char *rel;		/* relative to the tree */
	struct src_file src;	/* the tree's text (empty for a new file) */
	size_t next;		/* the first line of src not copied yet */
	struct bytes out;	/* the patched text */
	unsigned int out_lines;	/* lines in out so far */
	unsigned int *added;	/* lines of out the patch added (1-based) */
	size_t nr_added, alloc_added;
	bool created;
	bool removed;		/* renamed away or deleted: empty now */
};

/*
 * git's extended header lines of the file being read ("rename from",
 * "copy to", ...): paths relative to the top of the repository.
 */
struct git_ext {
	char *from, *to;
	bool rename, copy;
	bool applied;		/* its "+++ " line came */
};

/* A file the patch renames: the tree's findings there are at @to now. */
struct rename {
	char *from, *to;
};

struct lint {
	const char *patch, *root;
	struct rename *renames;
	size_t nr_renames, alloc_renames;
	char *real_root;	/* the tree, symbolic links resolved */
	unsigned int lineno;
	int strip;		/* path components to drop, once known */
	struct pfile *files;
	size_t nr_files, alloc_files;
	struct git_ext ext;
	char *err;
	size_t errlen;
};

static int fail(struct lint *l, const char *fmt, const char *what)
{
	snprintf(l->err, l->errlen, "%s:%u: ", l->patch, l->lineno);
	snprintf(l->err + strlen(l->err), l->errlen - strlen(l->err), fmt,
		 what);
	return -EINVAL;
}

static bool in_tree(const char *root, const char *rel)
{
	char *path = path_join(root, rel);
	struct stat st;
	bool ok = !stat(path, &st) && S_ISREG(st.st_mode);

	free(path);
	return ok;
}

/* @name without its first @n components, or NULL when it has fewer. */
static const char *strip(const char *name, int n)
{
	while (n-- > 0) {
		name = strchr(name, '/');
		if (!name)
			return NULL;
		name++;
	}
	return name;
}

/*
 * A name of a ---, +++ or extended header line: up to a tab (diff -u's
 * date), or a C-quoted string as git writes a name with unusual bytes
 * ("a/caf\303\251.c").
 */
static char *patch_name(const char *raw)
{
	struct bytes b = { 0 };
	const char *p = raw + 1;

	if (raw[0] != '"')
		return xstrndup(raw, strcspn(raw, "\t"));
	while (*p && *p != '"') {
		char c = *p++;

		if (c == '\\' && *p >= '0' && *p <= '7') {
			int v = 0, i;

			for (i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
				v = v * 8 + (*p++ - '0');
			c = (char)v;
		} else if (c == '\\' && *p) {
			c = *p++;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'a' ?
			    '\a' : c == 'b' ? '\b' : c == 'f' ? '\f' :
			    c == 'r' ? '\r' : c == 'v' ? '\v' : c;
		}
		if (c)
			bytes_put(&b, &c, 1);
	}
	bytes_put(&b, "", 1);
	return (char *)b.data;
}

/*
 * Does @rel, in the tree, stay in it once symbolic links are resolved
 * (the file, or for a new one the nearest directory that exists)? git
 * apply refuses a path beyond a symbolic link.
 */
static bool stays_in_tree(struct lint *l, const char *rel)
{
	char *path = path_join(l->root, rel), *real = NULL, *slash;
	size_t n;
	bool ok;

	if (!l->real_root)
		l->real_root = realpath(l->root, NULL);
	if (!l->real_root) {
		free(path);
		return true;	/* the tree itself is checked elsewhere */
	}
	while (!(real = realpath(path, NULL)) &&
	       (slash = strrchr(path, '/')) && slash != path)
		*slash = '\0';
	n = strlen(l->real_root);
	ok = real && (!strcmp(real, l->real_root) ||
		      (!strncmp(real, l->real_root, n) && real[n] == '/'));
	free(real);
	free(path);
	return ok;
}

/*
 * The file a "+++ " (or, for a deletion, "--- ") name means, relative to
 * the tree: git's b/, a plain diff's leading directories (the first
 * strip level that names a file of the tree, kept for the next files),
 * an absolute path inside the tree; @fixed >= 0: that strip level (git's
 * extended header lines: 0). Refused: a path that leaves the tree, by
 * name or through a symbolic link.
 */
static int resolve(struct lint *l, const char *raw, bool created, int fixed,
		   char **rel)
{
	char *name = patch_name(raw), *norm;
	const char *s = NULL;
	size_t n = strlen(l->root);
	int k;

	if (name[0] == '/' && !strncmp(name, l->root, n) && name[n] == '/')
		memmove(name, name + n + 1, strlen(name + n));
	norm = path_normalize(name);
	/* Any ".." component is refused, as git apply refuses it. */
	if (norm[0] == '/' || !strcmp(name, "..") || !strncmp(name, "../", 3) ||
	    strstr(name, "/../") ||
	    (strlen(name) > 2 && !strcmp(name + strlen(name) - 3, "/.."))) {
		/* Named as git names it: without its a/ or b/ prefix. */
		const char *shown = name;
		int ret;

		if ((name[0] == 'a' || name[0] == 'b') && name[1] == '/')
			shown = name + 2;
		ret = fail(l, "a path outside the tree: %s", shown);

		free(name);
		free(norm);
		return ret;
	}
	if (fixed >= 0)
		s = strip(norm, fixed);
	else if (l->strip >= 0)
		s = strip(norm, l->strip);
	for (k = 0; !s && fixed < 0 && k < 8; k++) {
		const char *t = strip(norm, k);

		if (t && (in_tree(l->root, t) || (created && k == 1))) {
			l->strip = k;
			s = t;
		}
	}
	if (!s) {
		int ret = fail(l, "no file of the tree: %s", name);

		free(name);
		free(norm);
		return ret;
	}
	if (!stays_in_tree(l, s)) {
		int ret = fail(l, "a path through a symbolic link out of the "
			       "tree: %s", s);

		free(name);
		free(norm);
		return ret;
	}
	*rel = xstrdup(s);
	free(name);
	free(norm);
	return 0;
}

static void put_line(struct pfile *pf, const char *t, bool added)
{
	bytes_put(&pf->out, t, strlen(t));
	bytes_put(&pf->out, "\n", 1);
	pf->out_lines++;
	if (added)
		*PUSH(pf->added, pf->nr_added, pf->alloc_added) =
			pf->out_lines;
}

static void copy_lines(struct pfile *pf, size_t upto)
{
	for (; pf->next < upto && pf->next < pf->src.nr_lines; pf->next++)
		put_line(pf, pf->src.lines[pf->next], false);
}

/* Do the hunk's old lines (' ' and '-') stand at line @at (0-based)? */
static bool matches(const struct pfile *pf, char **h, size_t nr, size_t at)
{
	size_t i, k = at;

	if (at < pf->next)
		return false;
	for (i = 0; i < nr; i++) {
		if (h[i][0] == '+')
			continue;
		if (k >= pf->src.nr_lines || strcmp(pf->src.lines[k], h[i] + 1))
			return false;
		k++;
	}
	return true;
}

/* Apply one hunk (@h: its lines, each with its ' ', '-' or '+'). */
static int apply_hunk(struct lint *l, struct pfile *pf, size_t old_start,
		      char **h, size_t nr)
{
	size_t want = old_start ? old_start - 1 : 0, at = want, i, d;
	bool found = matches(pf, h, nr, want);

	for (d = 1; !found && d <= HUNK_OFFSET_MAX; d++) {
		if (matches(pf, h, nr, want + d)) {
			at = want + d;
			found = true;
		} else if (want >= d && matches(pf, h, nr, want - d)) {
			at = want - d;
			found = true;
		}
	}
	if (!found)
		return fail(l, "the hunk does not apply to %s", pf->rel);
	copy_lines(pf, at);
	for (i = 0; i < nr; i++) {
		if (h[i][0] != '-')
			put_line(pf, h[i] + 1, h[i][0] == '+');
		if (h[i][0] != '+')
			pf->next++;
	}
	return 0;
}

/*
 * A file of the patch, named @rel (taken), its text the tree's @from
 * (NULL: none, a new file).
 */
static struct pfile *new_file(struct lint *l, char *rel, const char *from)
{
	struct pfile *pf = PUSH(l->files, l->nr_files, l->alloc_files);

	memset(pf, 0, sizeof(*pf));
	pf->rel = rel;
	pf->created = !from || strcmp(from, rel);
	if (!from || src_load(&pf->src, l->root, from))
		src_from_text(&pf->src, rel, xstrdup(""));
	return pf;
}

static void add_rename(struct lint *l, const char *from, const char *to)
{
	struct rename *r = PUSH(l->renames, l->nr_renames, l->alloc_renames);

	r->from = xstrdup(from);
	r->to = xstrdup(to);
}

/* @rel renamed away (or deleted): its text is empty in the patched tree. */
static void remove_file(struct lint *l, const char *rel)
{
	struct pfile *pf = new_file(l, xstrdup(rel), NULL);

	pf->created = false;
	pf->removed = true;
}

/* The file the ---/+++ pair names; a rename or copy reads its source. */
static int open_file(struct lint *l, const char *old, const char *new,
		     struct pfile **out)
{
	bool created = !strncmp(old, "/dev/null", 9);
	bool gone = !strncmp(new, "/dev/null", 9);
	struct git_ext *x = &l->ext;
	char *rel = NULL, *from = NULL;
	int ret;

	*out = NULL;
	if (!(x->rename || x->copy) || created || gone)
		ret = resolve(l, gone ? old : new, created, -1, &rel);
	else
		ret = resolve(l, old, false, -1, &from) ?:
		      resolve(l, new, true, -1, &rel);
	if (ret) {
		free(from);
		free(rel);
		return ret;
	}
	*out = new_file(l, rel, created ? NULL : from ? from : rel);
	if (from && x->rename) {
		remove_file(l, from);
		add_rename(l, from, rel);
	}
	free(from);
	x->applied = true;
	return 0;
}

/* A rename or copy without hunks (git's 100% similarity). */
static int ext_done(struct lint *l)
{
	struct git_ext *x = &l->ext;
	char *from = NULL, *to = NULL;
	int ret = 0;

	if ((x->rename || x->copy) && !x->applied && x->from && x->to) {
		ret = resolve(l, x->from, false, 0, &from) ?:
		      resolve(l, x->to, true, 0, &to);
		if (!ret && !in_tree(l->root, from))
			ret = fail(l, "no file of the tree: %s", from);
		if (!ret) {
			struct pfile *pf = new_file(l, to, from);

			copy_lines(pf, pf->src.nr_lines);
			if (x->rename) {
				remove_file(l, from);
				add_rename(l, from, to);
			}
			to = NULL;
		}
	}
	free(from);
	free(to);
	free(x->from);
	free(x->to);
	memset(x, 0, sizeof(*x));
	return ret;
}

/* git's extended header lines: true when @line was one. */
static bool ext_line(struct lint *l, const char *line)
{
	struct git_ext *x = &l->ext;
	static const struct {
		const char *prefix;
		bool to, rename;
	} tags[] = {
		{ "rename from ", false, true }, { "rename to ", true, true },
		{ "copy from ", false, false }, { "copy to ", true, false },
	};
	size_t i, n;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		n = strlen(tags[i].prefix);
		if (strncmp(line, tags[i].prefix, n))
			continue;
		if (tags[i].to) {
			free(x->to);
			x->to = xstrdup(line + n);
		} else {
			free(x->from);
			x->from = xstrdup(line + n);
		}
		x->rename |= tags[i].rename;
		x->copy |= !tags[i].rename;
		return true;
	}
	return false;
}

/* Read the whole patch, applying each file's hunks as they come. */
static int read_patch(struct lint *l, FILE *f)
{
	char *line = NULL, **hunk = NULL, *old = NULL;
	size_t cap = 0, nr = 0, alloc = 0, old_start = 0, i;
	long left_old = 0, left_new = 0;
	struct pfile *pf = NULL;
	int ret = 0;

	while (!ret && getline(&line, &cap, f) > 0) {
		l->lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (left_old > 0 || left_new > 0) {
			/* Inside a hunk: "\ No newline at end of file" aside. */
			if (line[0] == '\\')
				continue;
			if (line[0] != ' ' && line[0] != '-' &&
			    line[0] != '+' && line[0])
				ret = fail(l, "a hunk cut short in %s",
					   pf->rel);
			left_old -= line[0] != '+';
			left_new -= line[0] != '-';
			*PUSH(hunk, nr, alloc) = xstrdup(line[0] ? line :
							 " ");
			if (!ret && left_old <= 0 && left_new <= 0)
				ret = apply_hunk(l, pf, old_start, hunk, nr);
			continue;
		}
		for (i = 0; i < nr; i++)
			free(hunk[i]);
		nr = 0;
		if (!strncmp(line, "diff --git ", 11)) {
			/* A new file's header: the last one is complete. */
			if (pf)
				copy_lines(pf, pf->src.nr_lines);
			pf = NULL;
			ret = ext_done(l);
		} else if (ext_line(l, line)) {
			continue;
		} else if (!strncmp(line, "--- ", 4)) {
			free(old);
			old = xstrdup(line + 4);
		} else if (!strncmp(line, "+++ ", 4) && old) {
			if (pf)
				copy_lines(pf, pf->src.nr_lines);
			ret = open_file(l, old, line + 4, &pf);
			free(old);
			old = NULL;
		} else if (!strncmp(line, "@@ -", 4) && pf) {
			unsigned long a, b = 1, c, d = 1;

			if (sscanf(line, "@@ -%lu,%lu +%lu,%lu @@", &a, &b, &c,
				   &d) < 4 &&
			    sscanf(line, "@@ -%lu +%lu,%lu @@", &a, &c, &d) < 3 &&
			    sscanf(line, "@@ -%lu,%lu +%lu @@", &a, &b, &c) < 3 &&
			    sscanf(line, "@@ -%lu +%lu @@", &a, &c) < 2) {
				ret = fail(l, "not a hunk header: %s", line);
				break;
			}
			old_start = a;
			left_old = (long)b;
			left_new = (long)d;
		}
	}
	if (!ret && (left_old > 0 || left_new > 0))
		ret = fail(l, "the patch ends inside a hunk of %s",
			   pf ? pf->rel : "?");
	if (!ret && pf)
		copy_lines(pf, pf->src.nr_lines);
	if (!ret)
		ret = ext_done(l);
	else
		ext_done(l);
	strv_free(hunk, nr);
	free(old);
	free(line);
	return ret;
}

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
	struct finding t = *g;
	size_t i;

	t.ordinal = 0;
	for (i = 0; l && t.func_file && i < l->nr_renames; i++)
		if (!strcmp(t.func_file, l->renames[i].from))
			t.func_file = l->renames[i].to;
	return finding_fingerprint(&t);
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

		if (strcmp(pf->rel, f->file))
			continue;
		for (k = 0; k < pf->nr_added; k++)
			if (pf->added[k] == f->line)
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
	return x->g->ordinal > y->g->ordinal ? -1 :
	       x->g->ordinal < y->g->ordinal;
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

int patchlint_run(const char *patch, const struct analysis *a,
		  const struct analysis_opts *ao,
		  const struct root_sets *roots, struct analysis *b,
		  char *err, size_t errlen)
{
	struct lint l = { .patch = patch, .root = a->root, .strip = -1,
			  .err = err, .errlen = errlen };
	struct analysis_opts o = *ao;
	struct unsaved_file *u;
	FILE *f;
	size_t i, n = 0;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = input_open(patch, "the patch", INPUT_MAX_TEXT, &f, err, errlen);
	if (ret)
		return ret;
	ret = read_patch(&l, f);
	fclose(f);
	u = xcalloc(l.nr_files + 1, sizeof(*u));
	for (i = 0; !ret && i < l.nr_files; i++) {
		struct pfile *pf = &l.files[i];

		bytes_put(&pf->out, "", 1);
		if (pf->created && !pf->removed && !strstr(pf->rel, ".h"))
			diag_at(pf->rel, "note", "a new file: not analysed "
				"(no compile command for it)");
		u[n].path = path_join(a->root, pf->rel);
		u[n].text = (const char *)pf->out.data;
		u[n].len = pf->out.len - 1;
		n++;
	}
	if (!ret) {
		o.unsaved = u;
		o.nr_unsaved = (unsigned int)n;
		o.progress = false;
		ret = analysis_run(b, &o, roots, err, errlen);
	}
	if (!ret)
		keep_new(&l, a, b);
	for (i = 0; i < n; i++)
		free((char *)u[i].path);
	free(u);
	for (i = 0; i < l.nr_files; i++) {
		free(l.files[i].rel);
		free(l.files[i].added);
		src_free(&l.files[i].src);
		bytes_free(&l.files[i].out);
	}
	free(l.files);
	for (i = 0; i < l.nr_renames; i++) {
		free(l.renames[i].from);
		free(l.renames[i].to);
	}
	free(l.renames);
	free(l.real_root);
	return ret;
}
