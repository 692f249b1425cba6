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
	bool created;
};

struct lint {
	const char *patch, *root;
	unsigned int lineno;
	int strip;		/* path components to drop, once known */
	struct pfile *files;
	size_t nr_files, alloc_files;
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
 * The file a "+++ " (or, for a deletion, "--- ") name means, relative to
 * the tree: git's b/, a plain diff's leading directories (the first
 * strip level that names a file of the tree, kept for the next files),
 * an absolute path inside the tree. Refused: a path that leaves it.
 */
static int resolve(struct lint *l, const char *raw, bool created, char **rel)
{
	char *name = xstrndup(raw, strcspn(raw, "\t")), *norm;
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
	if (l->strip >= 0)
		s = strip(norm, l->strip);
	for (k = 0; !s && k < 8; k++) {
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
	*rel = xstrdup(s);
	free(name);
	free(norm);
	return 0;
}

static void copy_lines(struct pfile *pf, size_t upto)
{
	for (; pf->next < upto && pf->next < pf->src.nr_lines; pf->next++) {
		const char *t = pf->src.lines[pf->next];

		bytes_put(&pf->out, t, strlen(t));
		bytes_put(&pf->out, "\n", 1);
	}
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
		if (h[i][0] != '-') {
			bytes_put(&pf->out, h[i] + 1, strlen(h[i] + 1));
			bytes_put(&pf->out, "\n", 1);
		}
		if (h[i][0] != '+')
			pf->next++;
	}
	return 0;
}

static struct pfile *new_file(struct lint *l, char *rel, bool created)
{
	struct pfile *pf = PUSH(l->files, l->nr_files, l->alloc_files);

	memset(pf, 0, sizeof(*pf));
	pf->rel = rel;
	pf->created = created;
	if (created || src_load(&pf->src, l->root, rel))
		src_from_text(&pf->src, rel, xstrdup(""));
	return pf;
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
		if (!strncmp(line, "--- ", 4)) {
			free(old);
			old = xstrdup(line + 4);
		} else if (!strncmp(line, "+++ ", 4) && old) {
			bool created = !strncmp(old, "/dev/null", 9);
			bool gone = !strncmp(line + 4, "/dev/null", 9);
			char *rel = NULL;

			if (pf)
				copy_lines(pf, pf->src.nr_lines);
			ret = resolve(l, gone ? old : line + 4, created, &rel);
			pf = ret ? NULL : new_file(l, rel, created);
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
	strv_free(hunk, nr);
	free(old);
	free(line);
	return ret;
}

/* A finding's fingerprints, root set by root set, with their phases. */
static bool known(const struct findings *fs, const char *fp,
		  const char *phase)
{
	size_t i, j;
	bool same = false;

	for (i = 0; i < fs->nr && !same; i++) {
		for (j = 0; j <= fs->v[i].nr_also && !same; j++) {
			const struct finding *g = j ? &fs->v[i].also[j - 1] :
						      &fs->v[i];
			char *h = finding_fingerprint(g);

			/* A guard taken away: boot phase then, steady now. */
			same = !strcmp(h, fp) &&
			       !(!strcmp(g->phase, "boot") &&
				 !strcmp(phase, "steady"));
			free(h);
		}
	}
	return same;
}

/* Is any root set's reach of @f new, or newly steady, in the patch? */
static bool added(const struct finding *f, void *before)
{
	const struct analysis *a = before;
	size_t j;

	for (j = 0; j <= f->nr_also; j++) {
		const struct finding *g = j ? &f->also[j - 1] : f;
		char *fp = finding_fingerprint(g);
		bool seen = known(&a->findings, fp, g->phase) ||
			    known(&a->low, fp, g->phase);

		free(fp);
		if (!seen)
			return true;
	}
	return false;
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
	FILE *f = fopen(patch, "r");
	size_t i, n = 0;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the patch: %s", patch,
			 strerror(errno));
		return -errno;
	}
	ret = read_patch(&l, f);
	fclose(f);
	u = xcalloc(l.nr_files + 1, sizeof(*u));
	for (i = 0; !ret && i < l.nr_files; i++) {
		struct pfile *pf = &l.files[i];

		bytes_put(&pf->out, "", 1);
		if (pf->created && !strstr(pf->rel, ".h"))
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
	if (!ret) {
		findings_filter(&b->findings, added, (void *)a);
		findings_filter(&b->low, added, (void *)a);
	}
	for (i = 0; i < n; i++)
		free((char *)u[i].path);
	free(u);
	for (i = 0; i < l.nr_files; i++) {
		free(l.files[i].rel);
		src_free(&l.files[i].src);
		bytes_free(&l.files[i].out);
	}
	free(l.files);
	return ret;
}
