// SPDX-License-Identifier: GPL-2.0
/*
 * patchlint-read.c - a unified diff read file by file ("--- " / "+++ "
 * lines, with or without git's a/ and b/, with diff -u's dates, git's
 * renames and copies) and each file's hunks applied to its text in
 * memory, as patch(1) would: the removed and context lines must be
 * there, at the hunk's line or near it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trapcheck/base/diag.h"

#include "patchlint-internal.h"

/* How far from its stated line a hunk may apply (patch(1)'s offset). */
#define HUNK_OFFSET_MAX	200

/* The error at the patch's current line; @what's control bytes as \xHH. */
static int fail(struct lint *l, const char *fmt, const char *what)
{
	const unsigned char *p = (const unsigned char *)what;
	struct bytes b = { 0 };
	char hex[5];

	for (; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			bytes_put(&b, p, 1);
			continue;
		}
		snprintf(hex, sizeof(hex), "\\x%02x", *p);
		bytes_put(&b, hex, 4);
	}
	bytes_put(&b, "", 1);
	snprintf(l->err, l->errlen, "%s:%u: ", l->patch, l->lineno);
	snprintf(l->err + strlen(l->err), l->errlen - strlen(l->err), fmt,
		 (const char *)b.data);
	bytes_free(&b);
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

/* The series' text of @rel, or NULL when the earlier patches left it. */
static const struct lint_file *base_of(const struct lint *l, const char *rel)
{
	size_t i;

	for (i = 0; i < l->nr_base; i++)
		if (!strcmp(l->base[i].rel, rel))
			return &l->base[i];
	return NULL;
}

/* Is @rel a file now: of the series so far, else of the tree? */
static bool exists(const struct lint *l, const char *rel)
{
	const struct lint_file *b = base_of(l, rel);

	return b ? b->text != NULL : in_tree(l->root, rel);
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

		if (t && (exists(l, t) || (created && k == 1))) {
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

/* Do the hunk's new lines (' ' and '+') stand at line @at (0-based)? */
static bool matches_new(const struct pfile *pf, char **h, size_t nr,
			size_t at)
{
	size_t i, k = at;
	bool changes = false;

	for (i = 0; i < nr; i++) {
		if (h[i][0] == '-') {
			changes = true;
			continue;
		}
		changes |= h[i][0] == '+';
		if (k >= pf->src.nr_lines || strcmp(pf->src.lines[k], h[i] + 1))
			return false;
		k++;
	}
	return changes;
}

/*
 * The hunk's result is what the tree has (a developer's own change, not
 * committed: git diff | trapcheck --diff -)? Searched near where it would
 * apply.
 */
static bool already_applied(const struct pfile *pf, char **h, size_t nr,
			    size_t want)
{
	size_t d;

	for (d = 0; d <= HUNK_OFFSET_MAX; d++)
		if (matches_new(pf, h, nr, want + d) ||
		    (want >= d && matches_new(pf, h, nr, want - d)))
			return true;
	return false;
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
	if (!found && already_applied(pf, h, nr, want))
		return fail(l, "the tree already has this change of %s: "
			    "--diff lints a patch against the tree before it "
			    "(git stash first, or commit it and use "
			    "--diff-range HEAD~1..HEAD)", pf->rel);
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
	const struct lint_file *b = from ? base_of(l, from) : NULL;
	struct pfile *pf = PUSH(l->files, l->nr_files, l->alloc_files);
	char *t;

	memset(pf, 0, sizeof(*pf));
	pf->rel = rel;
	pf->created = !from || strcmp(from, rel);
	if (b && b->text) {		/* as the series left it */
		t = xmalloc(b->len + 1);
		memcpy(t, b->text, b->len);
		t[b->len] = '\0';
		src_from_text(&pf->src, rel, t);
	} else if (!from || b || src_load(&pf->src, l->root, from)) {
		src_from_text(&pf->src, rel, xstrdup(""));
	}
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
		if (!ret && !exists(l, from))
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
int patchlint_read(struct lint *l, FILE *f)
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
		if (!strncmp(line, "diff --git ", 11) ||
		    !strncmp(line, "--- ", 4))
			l->headers++;
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
