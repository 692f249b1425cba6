// SPDX-License-Identifier: GPL-2.0
/*
 * fix.c - turn rule rewrites into verified fixes: compute each one with
 * its rule's hook, check it (verify.h), then print, write (patch.h) or
 * apply only the verified ones.
 *
 * Rewrites are made from libclang's exact sites (the line and column of
 * each sink) on the source text rather than by Coccinelle: the analysis
 * already knows the one site to change and why, and a line edit keeps the
 * surrounding layout byte for byte.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/pipeline/fix.h"
#include "trapcheck/output/gitinfo.h"
#include "trapcheck/output/patch.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"
#include "trapcheck/pipeline/verify.h"

static const struct rule *rule_of(const char *id)
{
	return rules_find(id);
}

/* What became of the fix of @f (@note taken), in its note of @list. */
static void fix_note(struct findings *list, const struct finding *f,
		     char *note)
{
	struct finding_note *n = finding_note(list, f);

	free(n->fix_note);
	n->fix_note = note;
}

/* A rewrite on its way: computed, then checked, then written. */
struct candidate {
	struct findings *list;	/* @f's; its note: what became of it */
	struct finding *f;
	struct fix_edit e;	/* @f's site; the patch's subject and body */
	/*
	 * A group's (fix_edit.group): the other sites it fixes, and every
	 * edit beyond @e (theirs and the shared ones, each with its path).
	 */
	struct finding **also;
	size_t nr_also;
	struct fix_edit *more;
	size_t nr_more;
	char *diff, *patch;
	char *why;		/* why it failed a check, or NULL */
};

/* One edit of a candidate and the file it is in. */
struct file_edit {
	const char *rel;
	const struct fix_edit *e;
};

static int cand_order(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int c = strcmp(x->f->site->file, y->f->site->file);

	return c ? c : (x->e.first > y->e.first) - (x->e.first < y->e.first);
}

static int file_edit_order(const void *a, const void *b)
{
	const struct file_edit *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);

	return c ? c : (x->e->first > y->e->first) -
		       (x->e->first < y->e->first);
}

/* The edits of candidates [from, to), by file then line (new). */
static struct file_edit *edits_of(struct candidate *c, size_t from,
				  size_t to, size_t *nr)
{
	struct file_edit *v = NULL;
	size_t n = 0, alloc = 0, k, i;

	for (k = from; k < to; k++) {
		GROW(v, alloc, n + 1 + c[k].nr_more);
		/* first 0: a site the group's shared edits fix. */
		if (c[k].e.first) {
			v[n].rel = c[k].e.path ? c[k].e.path :
				   c[k].f->site->file;
			v[n++].e = &c[k].e;
		}
		for (i = 0; i < c[k].nr_more; i++) {
			if (!c[k].more[i].first)
				continue;
			v[n].rel = c[k].more[i].path;
			v[n++].e = &c[k].more[i];
		}
	}
	sort_n(v, n, sizeof(*v), file_edit_order);
	*nr = n;
	return v;
}

/* How many edits of @v[i..) are in @v[i]'s file. */
static size_t same_file(const struct file_edit *v, size_t i, size_t n)
{
	size_t j = i;

	while (j < n && !strcmp(v[j].rel, v[i].rel))
		j++;
	return j - i;
}

/*
 * The text of @v[0].rel with the edits @v[0..n) applied, or NULL when
 * the file cannot be read or two edits overlap.
 */
static char *edited_text(const char *tree, const struct file_edit *v,
			 size_t n)
{
	const struct fix_edit **e = xcalloc(n + 1, sizeof(*e));
	struct src_file src;
	char *text = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		e[i] = v[i].e;
	if (!src_load(&src, tree, v[0].rel)) {
		text = edit_apply_all(&src, e, n);
		src_free(&src);
	}
	free(e);
	return text;
}

/* The files of candidates [from, to), edited, parsed from memory. */
static unsigned int unsaved_of(const char *tree, struct candidate *c,
			       size_t from, size_t to,
			       struct unsaved_file **up, char ***textsp)
{
	size_t n, i, k;
	struct file_edit *v = edits_of(c, from, to, &n);
	struct unsaved_file *u = xcalloc(n + 1, sizeof(*u));
	char **texts = xcalloc(2 * n + 1, sizeof(*texts));
	unsigned int nr = 0;

	for (i = 0; i < n; i += k) {
		k = same_file(v, i, n);
		texts[nr] = edited_text(tree, v + i, k);
		if (texts[nr]) {
			texts[n + nr] = path_join(tree, v[i].rel);
			u[nr].path = texts[n + nr];
			u[nr].text = texts[nr];
			u[nr].len = strlen(texts[nr]);
			nr++;
		}
	}
	/* The paths right after the texts: strv_free() of 2nr frees both. */
	for (i = 0; nr < n && i < nr; i++) {
		texts[nr + i] = texts[n + i];
		texts[n + i] = NULL;
	}
	free(v);
	*up = u;
	*textsp = texts;
	return nr;
}

static bool verify_range(const struct analysis *a,
			 const struct analysis_opts *ao,
			 const struct root_sets *roots, struct candidate *c,
			 size_t from, size_t to, char **why)
{
	struct unsaved_file *u;
	char **texts;
	struct finding **fixed = NULL;
	size_t k, i, nr_fixed = 0, alloc = 0;
	unsigned int nr;
	bool ok;

	for (k = from; k < to; k++) {
		GROW(fixed, alloc, nr_fixed + 1 + c[k].nr_also);
		fixed[nr_fixed++] = c[k].f;
		for (i = 0; i < c[k].nr_also; i++)
			fixed[nr_fixed++] = c[k].also[i];
	}
	nr = unsaved_of(a->root, c, from, to, &u, &texts);
	ok = verify_reanalysis(a, ao, roots, u, nr, fixed, nr_fixed, why);
	strv_free(texts, 2 * nr);
	free(u);
	free(fixed);
	return ok;
}

static void candidate_free(struct candidate *c)
{
	size_t i;

	fix_edit_free(&c->e);
	for (i = 0; i < c->nr_more; i++)
		fix_edit_free(&c->more[i]);
	free(c->more);
	free(c->also);
	free(c->diff);
	free(c->patch);
	free(c->why);
	memset(c, 0, sizeof(*c));
}

/* Every finding a candidate fixes gets @note (each its own copy). */
static void cand_note(struct candidate *c, const char *note)
{
	size_t i;

	fix_note(c->list, c->f, xstrdup(note));
	for (i = 0; i < c->nr_also; i++)
		fix_note(c->list, c->also[i], xstrdup(note));
}

/* "index <old>..<new> <mode>" of @rel edited into @text, or NULL (new). */
static char *git_index(const char *tree, const char *rel, const char *text)
{
	char *path = path_join(tree, rel), *old, *o, *n, *index = NULL;
	struct stat st;
	size_t len;

	old = file_bytes(path, &len);
	o = old ? gitinfo_blob_id(old, len, 12) : NULL;
	n = gitinfo_blob_id(text, strlen(text), 12);
	if (o && n && !stat(path, &st))
		index = xasprintf("index %s..%s %s", o, n,
				  st.st_mode & 0111 ? "100755" : "100644");
	free(o);
	free(n);
	free(old);
	free(path);
	return index;
}

/*
 * Step 1 for one finding: the rule's rewrite of its site; with @attempt
 * 1, its other rewrite after the first failed verification (@failed
 * says why; a rule without another keeps that note).
 */
static bool make_candidate(struct analysis *a, struct finding *f,
			   struct candidate *c, unsigned int attempt,
			   const char *failed)
{
	const struct rule *rule = rule_of(f->rule);
	struct fix_ctx ctx = { &a->graph, f, a->root, NULL, NULL, attempt,
			       failed };
	struct src_file src;
	const struct arch *arch = arch_current();
	char *why = NULL;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->list = &a->findings;
	c->f = f;
	if (!rule)
		return false;
	if (!rule->fix) {
		fix_note(c->list, f, xstrdup("no fix: this rule has no "
					     "automatic rewrite"));
		return false;
	}
	if (attempt && !rule->fix_again)
		return false;
	/* Code that cannot call the kernel: the rule decides (fix_ctx). */
	for (i = 0; i < arch->nr_no_rewrite && !ctx.no_rewrite; i++) {
		const struct arch_path *np = &arch->no_rewrite[i];

		if (!strncmp(f->site->file, np->prefix, strlen(np->prefix)))
			ctx.no_rewrite = np->text;
	}
	if (src_load(&src, a->root, f->site->file)) {
		fix_note(c->list, f, xasprintf("no fix: %s: cannot read",
					       f->site->file));
		return false;
	}
	ctx.src = &src;
	if (!rule->fix(&ctx, &c->e, &why)) {
		const char *had = finding_note(c->list, f)->fix_note;

		/* A second rewrite refused: after why the first failed. */
		if (!attempt)
			fix_note(c->list, f, xasprintf("no fix: %s", why));
		else if (had)
			fix_note(c->list, f, xasprintf("%s; %s", had, why));
		free(why);
		fix_edit_free(&c->e);
		src_free(&src);
		return false;
	}
	src_free(&src);
	return true;
}

/*
 * The fixes of one group (fix_edit.group) become the first one's: its
 * sites and the edits the architecture's fix_group hook says they share
 * (a field, its value set at init), with the patch's subject and body.
 * Returns how many candidates are left; the merged ones are freed.
 */
static size_t merge_groups(struct analysis *a, struct candidate *c, size_t nr)
{
	const struct arch_rules *r = arch_current()->rules;
	size_t i, j, k, n = 0;

	for (i = 0; i < nr; i++) {
		struct candidate *g = &c[i];
		char **args = NULL, *why = NULL, *subject = NULL, *body = NULL;
		struct fix_edit *extra = NULL;
		size_t nr_args = 0, nr_extra = 0;
		bool ok;

		if (!g->f)
			continue;
		if (!g->e.group) {
			c[n++] = *g;
			continue;
		}
		args = xcalloc(nr + 1, sizeof(*args));
		args[nr_args++] = g->e.group_arg;
		for (j = i + 1; j < nr; j++) {
			struct candidate *m = &c[j];

			if (!m->f || !m->e.group || strcmp(m->e.group, g->e.group))
				continue;
			args[nr_args++] = m->e.group_arg;
			g->also = xrealloc(g->also, (g->nr_also + 1) *
					   sizeof(*g->also));
			g->also[g->nr_also++] = m->f;
			g->more = xrealloc(g->more, (g->nr_more + 1) *
					   sizeof(*g->more));
			g->more[g->nr_more] = m->e;
			if (!g->more[g->nr_more].path)
				g->more[g->nr_more].path =
					xstrdup(m->f->site->file);
			g->nr_more++;
			memset(&m->e, 0, sizeof(m->e));
			m->f = NULL;
		}
		ok = r && r->fix_group &&
		     r->fix_group(a->root, g->e.group,
				  (const char *const *)args, nr_args, &extra,
				  &nr_extra, &subject, &body, &why);
		free(args);
		if (!ok) {
			char *note = xasprintf("no fix: %s", why ? why :
					       "no edits for its group");

			cand_note(g, note);
			free(note);
			free(why);
			candidate_free(g);
			continue;
		}
		g->more = xrealloc(g->more, (g->nr_more + nr_extra + 1) *
				   sizeof(*g->more));
		for (k = 0; k < nr_extra; k++)
			g->more[g->nr_more++] = extra[k];
		free(extra);
		/* NULL: the first member's own. */
		if (subject) {
			free(g->e.subject);
			g->e.subject = subject;
		}
		if (body) {
			free(g->e.body);
			g->e.body = body;
		}
		c[n++] = *g;
	}
	return n;
}

/*
 * Step 2: the candidate's diff (every file it edits, by path, each with
 * git's index line when @git), its patch, and patch --dry-run per file.
 */
static bool finish_candidate(struct analysis *a, const struct fix_opts *fo,
			     struct candidate *c)
{
	struct file_edit *v;
	struct patch_file *files;
	const struct finding **fs;
	char *diff = NULL, *fixes = NULL;
	size_t len = 0, n, i, k, nr_files = 0;
	FILE *out = open_memstream(&diff, &len);

	v = edits_of(c, 0, 1, &n);
	files = xcalloc(n + 1, sizeof(*files));
	for (i = 0; i < n && !c->why; i += k) {
		const struct fix_edit **e;
		struct src_file src;
		size_t j, added, removed;
		char *d, *text, *index = NULL;

		k = same_file(v, i, n);
		if (src_load(&src, a->root, v[i].rel)) {
			c->why = xasprintf("%s: cannot read", v[i].rel);
			break;
		}
		e = xcalloc(k + 1, sizeof(*e));
		for (j = 0; j < k; j++)
			e[j] = v[i + j].e;
		d = edit_diff_all(&src, e, k, &added, &removed);
		text = edit_apply_all(&src, e, k);
		if (!d || !text)
			c->why = xasprintf("%s: two edits overlap", v[i].rel);
		else if (verify_applies(&src, d, &c->why) && fo->dir)
			index = git_index(a->root, v[i].rel, text);
		if (d && !c->why) {
			const char *nl = strchr(d, '\n');

			if (index && nl)
				fprintf(out, "%.*s%s\n%s", (int)(nl + 1 - d), d,
					index, nl + 1);
			else
				fputs(d, out);
			files[nr_files].path = v[i].rel;
			files[nr_files].added = added;
			files[nr_files++].removed = removed;
		}
		free(index);
		free(d);
		free(text);
		free(e);
		src_free(&src);
	}
	fclose(out);
	if (!c->why) {
		fs = xcalloc(c->nr_also + 2, sizeof(*fs));
		fs[0] = c->f;
		for (i = 0; i < c->nr_also; i++)
			fs[i + 1] = c->also[i];
		if (fo->dir)
			fixes = gitinfo_fixes_tag(a->root, c->f->site->file,
						  c->f->site->line);
		c->diff = diff;
		diff = NULL;
		c->patch = patch_format(fs, c->nr_also + 1, &c->e, c->diff,
					files, nr_files, &fo->meta, fixes);
		free(fixes);
		free(fs);
	} else {
		char *note = xasprintf("fix not written: verification "
				       "failed: %s", c->why);

		cand_note(c, note);
		free(note);
	}
	free(diff);
	free(files);
	free(v);
	return !c->why;
}

static void note_at(const struct finding *f, const char *note)
{
	char *where = xasprintf("%s:%u:%u", FINDING_AT(f));

	diag_at(where, "note", "%s", note);
	free(where);
}

/*
 * --apply: the verified edits, file by file, each file written once.
 * Returns how many fixes could not be applied (said in their notes).
 */
static size_t apply_verified(const char *tree, struct candidate *c, size_t nr)
{
	size_t n, i, k, j, failed = 0;
	struct file_edit *v = edits_of(c, 0, nr, &n);

	for (i = 0; i < n; i += k) {
		char *text, *path = path_join(tree, v[i].rel);

		k = same_file(v, i, n);
		text = edited_text(tree, v + i, k);
		if (!text || write_atomic(path, text)) {
			char *note = xasprintf("fix not applied: %s: %s",
					       v[i].rel, text ?
					       strerror(errno) :
					       "edits overlap");

			/* Every fix with an edit in this file. */
			for (j = 0; j < nr; j++) {
				size_t m, q;
				struct file_edit *w = edits_of(c, j, j + 1, &m);
				bool here = false;

				for (q = 0; q < m && !here; q++)
					here = !strcmp(w[q].rel, v[i].rel);
				free(w);
				if (!here || c[j].why)
					continue;
				note_at(c[j].f, note);
				cand_note(&c[j], note);
				c[j].why = xstrdup(note);
				failed++;
			}
			free(note);
		}
		free(text);
		free(path);
	}
	free(v);
	return failed;
}

/*
 * The candidate fixes of the findings, one per site, a group's sites in
 * one, finished (diff, patch, patch --dry-run), in cand_order.
 */
static size_t finish_candidates(struct analysis *a,
				const struct fix_opts *fo,
				struct candidate *c, size_t nr);

static size_t collect_candidates(struct analysis *a,
				 const struct fix_opts *fo,
				 struct candidate **cp)
{
	struct candidate *c = NULL;
	size_t nr = 0, alloc = 0, i, j;

	for (i = 0; i < a->findings.nr; i++) {
		struct finding *f = &a->findings.v[i];
		bool done = false;

		/* One fix per site: the first finding of the site owns it. */
		for (j = 0; j < i && !done; j++)
			done = !site_cmp(FINDING_AT(&a->findings.v[j]),
					 FINDING_AT(f)) &&
			       !strcmp(a->findings.v[j].rule, f->rule);
		if (done)
			continue;
		GROW(c, alloc, nr + 1);
		if (make_candidate(a, f, &c[nr], 0, NULL))
			nr++;
		else
			candidate_free(&c[nr]);
	}
	*cp = c;
	return finish_candidates(a, fo, c, nr);
}

/*
 * The second rewrite of every site whose candidate in @bad failed
 * verification (its reason passed on), made as the first ones are.
 */
static size_t retry_candidates(struct analysis *a, const struct fix_opts *fo,
			       struct candidate *bad, size_t nr_bad,
			       struct candidate **cp)
{
	struct candidate *c = NULL;
	size_t nr = 0, alloc = 0, i, j;

	for (i = 0; i < nr_bad; i++)
		for (j = 0; j <= bad[i].nr_also; j++) {
			struct finding *f = j ? bad[i].also[j - 1] : bad[i].f;

			GROW(c, alloc, nr + 1);
			if (make_candidate(a, f, &c[nr], 1, bad[i].why))
				nr++;
			else
				candidate_free(&c[nr]);
		}
	*cp = c;
	return finish_candidates(a, fo, c, nr);
}

/* Groups merged, each finished; the kept ones first, in cand_order. */
static size_t finish_candidates(struct analysis *a,
				const struct fix_opts *fo,
				struct candidate *c, size_t nr)
{
	size_t i, k;

	nr = merge_groups(a, c, nr);
	for (i = 0, k = 0; i < nr; i++) {
		if (finish_candidate(a, fo, &c[i]))
			c[k++] = c[i];
		else
			candidate_free(&c[i]);
	}
	nr = k;
	sort_n(c, nr, sizeof(*c), cand_order);
	return nr;
}

/*
 * With @verify, the tree re-analysed with the fixes: all together first
 * (one re-analysis), one by one if that fails. Returns how many are
 * kept, those that passed, first in @c in the same order; those that
 * failed after them, from c[kept] on, *@nr_bad of them.
 */
static size_t verify_candidates(const struct analysis *a,
				const struct analysis_opts *ao,
				const struct root_sets *roots, bool verify,
				struct candidate *c, size_t nr, size_t *nr_bad)
{
	struct candidate *bad = xcalloc(nr + 1, sizeof(*bad));
	size_t i, k, b = 0;

	if (verify && nr) {
		char *why = NULL;

		if (!verify_range(a, ao, roots, c, 0, nr, &why)) {
			for (k = 0; k < nr; k++)
				if (!verify_range(a, ao, roots, c, k, k + 1,
						  &c[k].why)) {
					char *note = xasprintf(
						"fix not written: verification "
						"failed: %s", c[k].why);

					cand_note(&c[k], note);
					free(note);
				}
		}
		free(why);
	}
	for (i = 0, k = 0; i < nr; i++) {
		if (c[i].why)
			bad[b++] = c[i];
		else
			c[k++] = c[i];
	}
	for (i = 0; i < b; i++)
		c[k + i] = bad[i];
	free(bad);
	*nr_bad = b;
	return k;
}

/* The candidate of @f among @c (one a finding at most), or NULL. */
static struct candidate *candidate_of(struct candidate *c, size_t nr,
				      const struct finding *f)
{
	size_t k;

	for (k = 0; k < nr; k++)
		if (c[k].f == f)
			return &c[k];
	return NULL;
}

/* Fix number @n as a format-patch file in @dir; 0 or -EIO (said). */
static int write_patch_file(const char *dir, unsigned int n,
			    struct candidate *c, char *err, size_t errlen)
{
	char *name = patch_name(n, c->e.subject);
	char *out = xasprintf("%s/%s", dir, name), *note;

	free(name);
	if (write_atomic(out, c->patch)) {
		snprintf(err, errlen, "%s: cannot write: %s", out,
			 strerror(errno));
		free(out);
		return -EIO;
	}
	note = xasprintf("fix: %s", out);
	cand_note(c, note);
	free(note);
	free(out);
	return 0;
}

/*
 * The verified fixes, in finding order (stable names): each finding's
 * note, the diff on stdout (--fix), the patch files (--fix-dir); counted
 * in *@written. Returns 0 or -EIO (said in @err).
 */
static int write_fixes(struct analysis *a, const struct fix_opts *fo,
		       struct candidate *c, size_t nr, unsigned int *written,
		       char *err, size_t errlen)
{
	size_t i;
	char *note;

	for (i = 0; i < a->findings.nr; i++) {
		struct candidate *k = candidate_of(c, nr, &a->findings.v[i]);

		if (!k)
			continue;
		(*written)++;
		note = xasprintf("fix: %s", k->e.subject);
		cand_note(k, note);
		free(note);
		if (fo->print)
			fputs(k->diff, stdout);
		if (fo->dir && write_patch_file(fo->dir, *written, k, err,
						errlen))
			return -EIO;
	}
	return 0;
}

/* The sites of the fixes, in finding order, read before --apply. */
static int keep_sites(struct analysis *a, struct fix_sites *sites,
		      struct candidate *c, size_t nr, char *err,
		      size_t errlen)
{
	size_t i;
	int ret;

	sites->list = &a->findings;
	for (i = 0; i < a->findings.nr; i++) {
		struct candidate *k = candidate_of(c, nr, &a->findings.v[i]);
		struct fix_site *site;

		if (!k)
			continue;
		site = PUSH(sites->v, sites->nr, sites->alloc);
		site->f = k->f;
		/* A semantic patch rewrites one site in place. */
		site->beyond_site = k->nr_more > 0;
		fix_edit_copy(&site->e, &k->e);
		ret = src_load(&site->src, a->root, k->f->site->file);
		if (ret) {
			snprintf(err, errlen, "%s: cannot read: %s",
				 k->f->site->file, strerror(-ret));
			fix_edit_free(&site->e);
			sites->nr--;
			return ret;
		}
	}
	return 0;
}

/* Does @path end with the signature trapcheck writes ("-- \ntrapcheck ")? */
static bool ours(const char *path)
{
	char buf[256], *p;
	size_t n;
	FILE *f = fopen(path, "r");
	long size;

	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(buf) - 1 ?
		 size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The last lines: "-- ", "trapcheck <version>", then blanks. */
	p = strstr(buf, "\n-- \ntrapcheck ");
	if (!p)
		return false;
	p = strchr(p + 16, '\n');
	return p && !p[strspn(p, "\n")];
}

/*
 * A second run into the same --fix-dir must not leave the first run's
 * numbered patches beside its own (git am would take them all): the
 * "NNNN-*.patch" files trapcheck wrote there go; any other file stays.
 */
static void clear_old_patches(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t gone = 0;

	while (d && (de = readdir(d))) {
		const char *n = de->d_name;
		char *path;

		if (strlen(n) < 11 || !isdigit((unsigned char)n[0]) ||
		    !isdigit((unsigned char)n[1]) ||
		    !isdigit((unsigned char)n[2]) ||
		    !isdigit((unsigned char)n[3]) || n[4] != '-' ||
		    strcmp(n + strlen(n) - 6, ".patch"))
			continue;
		path = xasprintf("%s/%s", dir, n);
		if (ours(path) && !unlink(path))
			gone++;
		free(path);
	}
	if (d)
		closedir(d);
	if (gone)
		diag_info("%s: %zu patch%s of an earlier run removed", dir,
			  gone, gone == 1 ? "" : "es");
}

int fixes_run(struct analysis *a, const struct analysis_opts *ao,
	      const struct root_sets *roots, const struct fix_opts *fo,
	      char *err, size_t errlen)
{
	struct candidate *c;
	size_t nr, nr_bad, i;
	unsigned int written = 0;
	int ret;

	if (fo->dir) {
		ret = mkdir_parents(fo->dir, 0755);
		if (ret) {
			snprintf(err, errlen, "%s: cannot create the fix "
				 "directory: %s", fo->dir, strerror(-ret));
			return ret;
		}
		clear_old_patches(fo->dir);
	}
	nr = collect_candidates(a, fo, &c);
	nr = verify_candidates(a, ao, roots, fo->verify, c, nr, &nr_bad);
	/* A rewrite that failed verification: the rule's other, if any. */
	if (nr_bad) {
		struct candidate *r;
		size_t nr_r, nr_r_bad;

		nr_r = retry_candidates(a, fo, c + nr, nr_bad, &r);
		for (i = 0; i < nr_bad; i++)
			candidate_free(&c[nr + i]);
		nr_r = verify_candidates(a, ao, roots, fo->verify, r, nr_r,
					 &nr_r_bad);
		for (i = 0; i < nr_r_bad; i++)
			candidate_free(&r[nr_r + i]);
		c = xrealloc(c, (nr + nr_r + 1) * sizeof(*c));
		memcpy(c + nr, r, nr_r * sizeof(*c));
		free(r);
		nr += nr_r;
		sort_n(c, nr, sizeof(*c), cand_order);
	}
	ret = write_fixes(a, fo, c, nr, &written, err, errlen);
	if (!ret && fo->sites)
		ret = keep_sites(a, fo->sites, c, nr, err, errlen);
	if (!ret && fo->apply) {
		size_t failed = apply_verified(a->root, c, nr);

		written -= failed;
		if (failed && !written) {
			snprintf(err, errlen, "%s: no fix could be applied",
				 a->root);
			ret = -EIO;
		}
	}
	if (!ret)
		ret = (int)written;
	for (i = 0; i < nr; i++)
		candidate_free(&c[i]);
	free(c);
	return ret;
}
