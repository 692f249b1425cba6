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
	struct fix_edit e;
	char *diff, *patch;
	char *path;		/* absolute */
	char *why;		/* why it failed a check, or NULL */
};

static int cand_order(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int c = strcmp(x->f->site->file, y->f->site->file);

	/* Per file, bottom up: an edit never moves the lines above it. */
	return c ? c : (x->e.first < y->e.first) - (x->e.first > y->e.first);
}

/*
 * The text of @file with the edits of @c[0..n) (same file, bottom up)
 * applied, or NULL when the file cannot be read.
 */
static char *edited_text(const char *tree, struct candidate *c, size_t n)
{
	struct src_file src;
	char *text = NULL;
	size_t i;

	if (src_load(&src, tree, c[0].f->site->file))
		return NULL;
	for (i = 0; i < n; i++) {
		text = edit_apply(&src, &c[i].e);
		src_free(&src);
		src_from_text(&src, c[0].f->site->file, xstrdup(text));
		if (i + 1 < n)
			free(text);
	}
	src_free(&src);
	return text;
}

/* Group candidates [from, to) by file: the files parsed from memory. */
static unsigned int unsaved_of(const char *tree, struct candidate *c,
			       size_t from, size_t to,
			       struct unsaved_file *u, char **texts)
{
	unsigned int nr = 0;
	size_t i = from, j;

	while (i < to) {
		for (j = i; j < to && !strcmp(c[j].f->site->file,
					      c[i].f->site->file); j++)
			;
		texts[nr] = edited_text(tree, c + i, j - i);
		if (texts[nr]) {
			u[nr].path = c[i].path;
			u[nr].text = texts[nr];
			u[nr].len = strlen(texts[nr]);
			nr++;
		}
		i = j;
	}
	return nr;
}

static bool verify_range(const struct analysis *a,
			 const struct analysis_opts *ao,
			 const struct root_sets *roots, struct candidate *c,
			 size_t from, size_t to, char **why)
{
	struct unsaved_file *u = xcalloc(to - from + 1, sizeof(*u));
	char **texts = xcalloc(to - from + 1, sizeof(*texts));
	struct finding **fixed = xcalloc(to - from + 1, sizeof(*fixed));
	unsigned int nr;
	size_t k;
	bool ok;

	for (k = from; k < to; k++)
		fixed[k - from] = c[k].f;
	nr = unsaved_of(a->root, c, from, to, u, texts);
	ok = verify_reanalysis(a, ao, roots, u, nr, fixed, to - from, why);
	strv_free(texts, nr);
	free(u);
	free(fixed);
	return ok;
}

static void candidate_free(struct candidate *c)
{
	fix_edit_free(&c->e);
	free(c->diff);
	free(c->patch);
	free(c->path);
	free(c->why);
}

/*
 * The index line (old and new blob ids, as git am -3 wants them) and,
 * in a git repository, the Fixes: tag of the commit that last changed
 * the site's line. Both new strings, or NULL.
 */
static void git_parts(const struct analysis *a, const struct finding *f,
		      const struct src_file *src, const struct fix_edit *e,
		      char **index, char **fixes)
{
	char *path = path_join(a->root, f->site->file), *old, *new, *o, *n;
	struct stat st;
	size_t len;

	*index = NULL;
	old = file_bytes(path, &len);
	new = edit_apply(src, e);
	o = old ? gitinfo_blob_id(old, len, 12) : NULL;
	n = gitinfo_blob_id(new, strlen(new), 12);
	if (o && n && !stat(path, &st))
		*index = xasprintf("index %s..%s %s", o, n,
				   st.st_mode & 0111 ? "100755" : "100644");
	*fixes = gitinfo_fixes_tag(a->root, f->site->file, f->site->line);
	free(o);
	free(n);
	free(old);
	free(new);
	free(path);
}

/* Step 1 for one finding: the rule's rewrite, its patch, patch --dry-run. */
static bool make_candidate(struct analysis *a, struct finding *f,
			   const struct fix_opts *fo, struct candidate *c)
{
	const struct rule *rule = rule_of(f->rule);
	struct fix_ctx ctx = { &a->graph, f, a->root, NULL };
	struct src_file src;
	size_t added, removed, i;
	const struct arch *arch = arch_current();
	char *why = NULL;

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
	/* Code the rewrites must not touch, whatever the rule. */
	for (i = 0; i < arch->nr_no_rewrite; i++) {
		const struct arch_path *np = &arch->no_rewrite[i];

		if (!strncmp(f->site->file, np->prefix, strlen(np->prefix))) {
			fix_note(c->list, f, xasprintf("no fix: %s",
							np->text));
			return false;
		}
	}
	if (src_load(&src, a->root, f->site->file)) {
		fix_note(c->list, f, xasprintf("no fix: %s: cannot read",
					       f->site->file));
		return false;
	}
	ctx.src = &src;
	if (!rule->fix(&ctx, &c->e, &why)) {
		fix_note(c->list, f, xasprintf("no fix: %s", why));
		free(why);
		fix_edit_free(&c->e);
		src_free(&src);
		return false;
	}
	c->diff = edit_diff(&src, &c->e, &added, &removed);
	if (fo->dir) {
		struct patch_git g = { 0 };
		char *index, *fixes;

		git_parts(a, f, &src, &c->e, &index, &fixes);
		g.index = index;
		g.fixes = fixes;
		c->patch = patch_format(f, &c->e, c->diff, added, removed,
					&fo->meta, &g);
		free(index);
		free(fixes);
	} else {
		c->patch = patch_format(f, &c->e, c->diff, added, removed,
					&fo->meta, NULL);
	}
	c->path = path_join(a->root, f->site->file);
	if (!verify_applies(&src, c->diff, &c->why))
		fix_note(c->list, f,
			 xasprintf("fix not written: verification failed: "
				   "%s", c->why));
	src_free(&src);
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
 * Returns how many edits could not be applied (said in their notes).
 */
static size_t apply_verified(const char *tree, struct candidate *c, size_t nr)
{
	size_t i = 0, j, k, failed = 0;

	while (i < nr) {
		char *text;

		for (j = i; j < nr && !strcmp(c[j].f->site->file,
					      c[i].f->site->file); j++)
			;
		text = edited_text(tree, c + i, j - i);
		if (!text || write_atomic(c[i].path, text)) {
			for (k = i; k < j; k++) {
				char *note = xasprintf("fix not applied: "
						       "%s: %s",
						       c[k].f->site->file,
						       strerror(errno));

				note_at(c[k].f, note);
				fix_note(c[k].list, c[k].f, note);
				failed++;
			}
		}
		free(text);
		i = j;
	}
	return failed;
}

/* The candidate fixes of the findings, one per site, in cand_order. */
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
		if (make_candidate(a, f, fo, &c[nr]))
			nr++;
		else
			candidate_free(&c[nr]);
	}
	sort_n(c, nr, sizeof(*c), cand_order);
	*cp = c;
	return nr;
}

/*
 * With @verify, the tree re-analysed with the fixes: all together first
 * (one re-analysis), one by one if that fails. Returns how many are
 * kept, those that passed, first in @c in the same order.
 */
static size_t verify_candidates(const struct analysis *a,
				const struct analysis_opts *ao,
				const struct root_sets *roots, bool verify,
				struct candidate *c, size_t nr)
{
	size_t i, k;

	if (verify && nr) {
		char *why = NULL;

		if (!verify_range(a, ao, roots, c, 0, nr, &why)) {
			for (k = 0; k < nr; k++)
				if (!verify_range(a, ao, roots, c, k, k + 1,
						  &c[k].why))
					fix_note(c[k].list, c[k].f, xasprintf(
						"fix not written: verification "
						"failed: %s", c[k].why));
		}
		free(why);
	}
	for (i = 0, k = 0; i < nr; i++) {
		if (c[i].why)
			candidate_free(&c[i]);
		else
			c[k++] = c[i];
	}
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
	char *out = xasprintf("%s/%s", dir, name);

	free(name);
	if (write_atomic(out, c->patch)) {
		snprintf(err, errlen, "%s: cannot write: %s", out,
			 strerror(errno));
		free(out);
		return -EIO;
	}
	fix_note(c->list, c->f, xasprintf("fix: %s", out));
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

	for (i = 0; i < a->findings.nr; i++) {
		struct candidate *k = candidate_of(c, nr, &a->findings.v[i]);

		if (!k)
			continue;
		(*written)++;
		fix_note(k->list, k->f, xasprintf("fix: %s", k->e.subject));
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
	size_t nr, i;
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
	nr = verify_candidates(a, ao, roots, fo->verify, c, nr);
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
