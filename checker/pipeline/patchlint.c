// SPDX-License-Identifier: GPL-2.0
/*
 * patchlint.c - lint a unified diff by analysing the patched tree
 * (patchlint.h). The diff is applied in memory (patchlint-read.c); the
 * patched texts go to the analysis as files in memory; the findings of
 * the patched tree that the tree does not have are the patch's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/model/shape.h"
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

/*
 * A header the patch changes only inside function bodies (shape.h): the
 * TUs that include it need not be parsed again, only the owners of its
 * bodies (analyze.h).
 */
static bool body_only(const struct pfile *pf, const char *path)
{
	size_t n = strlen(pf->rel), len;
	char *old;
	bool same;

	if (pf->created || pf->removed || n < 2 || strcmp(pf->rel + n - 2, ".h"))
		return false;
	old = file_bytes(path, &len);
	if (!old)
		return false;
	same = shape_same(old, len, (const char *)pf->out.data,
			  pf->out.len - 1);
	free(old);
	return same;
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
	if (!strcmp(patch, "-")) {
		l.patch = "<stdin>";
		ret = input_open_stdin("the patch", INPUT_MAX_TEXT, &f, err,
				       errlen);
	} else {
		ret = input_open(patch, "the patch", INPUT_MAX_TEXT, &f, err,
				 errlen);
	}
	if (ret)
		return ret;
	ret = patch_read(&l, f);
	fclose(f);
	/* As git apply: "No valid patches in input" (a mode change is one). */
	if (!ret && !l.headers) {
		snprintf(err, errlen, "%s: no change to any file in the patch",
			 l.patch);
		ret = -EINVAL;
	}
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
		u[n].body_only = body_only(pf, u[n].path);
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
