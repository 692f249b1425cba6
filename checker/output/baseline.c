// SPDX-License-Identifier: GPL-2.0
/*
 * baseline.c - baselines (jansson) and waivers.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/output/baseline.h"
#include "trapcheck/base/util.h"
#include "trapcheck/output/json.h"
#include "trapcheck/rules/rules.h"

/*
 * Version 2: fingerprints unique per site (finding.h). Version 1 ones
 * ("rule:function:sink:register:root") could be shared by two sites of
 * one function; they are still read, each matching one site (below).
 */
#define BASELINE_VERSION 2

/*
 * A finding is one site; each root set that reaches it keeps the
 * fingerprint it had when findings were per root set: the site's own
 * and those of also[]. A baseline lists them all, so baselines written
 * before and after one finding per site match each other. @v1: the
 * version 1 form.
 */
static size_t site_fingerprints(const struct finding *f, char ***out,
				bool v1)
{
	size_t i, n = f->nr_also + 1;
	char **v = xcalloc(n, sizeof(*v));

	for (i = 0; i < n; i++) {
		const struct finding *g = i ? &f->also[i - 1] : f;
		char *fp = v1 ? finding_fingerprint_v1(g) :
				finding_fingerprint(g);

		/* As the file has it: bytes that are not UTF-8 as %XX. */
		v[i] = utf8_escape(fp);
		free(fp);
	}
	*out = v;
	return n;
}

/* FNV-1a of @s with its runs of blanks as one space, ends trimmed. */
static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	bool blank = false, any = false;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			blank = any;
			continue;
		}
		if (blank) {
			h = (h ^ ' ') * 0x100000001b3ULL;
			blank = false;
		}
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
		any = true;
	}
	return h;
}

static bool blank_line(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

/*
 * What a site's line says, to tell two sites of one fingerprint apart
 * when lines move: the hash of its text (@line) and of its text with
 * the nearest non-blank line above and below (@context), as hex. False
 * when the file or line cannot be read.
 */
static bool site_hashes(const char *root, const char *file, unsigned int n,
			char line[17], char context[17])
{
	char *full = path_join(root, file), buf[4096];
	FILE *f = fopen(full, "r");
	uint64_t prev = 0, self = 0, next = 0;
	unsigned int i = 0;
	bool found = false;

	free(full);
	if (!f || !n)
		goto out_close;
	while (fgets(buf, sizeof(buf), f)) {
		if (++i < n) {
			if (!blank_line(buf))
				prev = text_hash(buf);
		} else if (i == n) {
			self = text_hash(buf);
			found = true;
		} else if (!blank_line(buf)) {
			next = text_hash(buf);
			break;
		}
	}
out_close:
	if (f)
		fclose(f);
	if (!found)
		return false;
	snprintf(line, 17, "%016llx", (unsigned long long)self);
	snprintf(context, 17, "%016llx", (unsigned long long)
		 (((prev * 0x100000001b3ULL) ^ self) * 0x100000001b3ULL ^
		  next));
	return true;
}

int baseline_write(const char *path, const char *tree,
		   const struct findings *fs, char *err, size_t errlen)
{
	json_t *root = json_object(), *arr = json_array();
	struct out_file o;
	struct strmap seen;
	size_t i, k, n;
	int ret = 0;
	char **fps;

	strmap_init(&seen);
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];
		char lh[17], ch[17];
		bool hashes = tree && f->site->file &&
			      site_hashes(tree, f->site->file, f->site->line,
					  lh, ch);

		n = site_fingerprints(f, &fps, false);
		for (k = 0; k < n; k++) {
			json_t *o;

			if (strmap_get(&seen, fps[k]) >= 0)
				continue;
			strmap_put(&seen, fps[k], 1);
			o = json_object();
			json_object_set_new(o, "fingerprint",
					    json_text(fps[k]));
			json_object_set_new(o, "file",
					    json_path(f->site->file));
			json_object_set_new(o, "line",
					    json_integer(f->site->line));
			if (hashes) {
				json_object_set_new(o, "line_hash",
						    json_string(lh));
				json_object_set_new(o, "context_hash",
						    json_string(ch));
			}
			json_array_append_new(arr, o);
		}
		strv_free(fps, n);
	}
	strmap_free(&seen);
	json_object_set_new(root, "trapcheck_baseline",
			    json_integer(BASELINE_VERSION));
	json_object_set_new(root, "findings", arr);
	ret = out_open(&o, path);
	if (!ret) {
		if (json_dumpf(root, o.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			ret = -EIO;
		if (ret)
			out_abort(&o);
		else if (out_close(&o))
			ret = -EIO;
	}
	if (ret)
		snprintf(err, errlen, "%s: cannot write the baseline: %s",
			 path, strerror(ret == -EIO ? EIO : -ret));
	json_decref(root);
	return ret ? -EIO : 0;
}

/* A version 1 entry: its fingerprint, file and line. */
struct v1_entry {
	const char *fp, *file;
	long line;
	bool used;
};

struct base_filter {
	struct strmap fps;	/* version 2: fingerprint -> entry */
	struct v1_entry *v1;	/* version 1 entries */
	size_t nr_v1;
	bool *hit;		/* version 2: entry found */
	size_t known;
	const struct findings *fs;
	bool *matched;		/* by site: fs->v[i] is in the baseline */
};

/*
 * The version 1 entry @f matches: one with @f's old fingerprint, at its
 * line if there is one, else the nearest unused one in its file, else
 * any unused one. An entry matches one site only: two sites that
 * shared a fingerprint were one entry, so the second is new.
 */
static struct v1_entry *v1_match(struct base_filter *b,
				 const struct finding *f, const char *fp)
{
	char *file = f->site->file ? utf8_escape(f->site->file) : NULL;
	struct v1_entry *best = NULL;
	long dist = -1;
	size_t i;

	for (i = 0; i < b->nr_v1; i++) {
		struct v1_entry *e = &b->v1[i];
		long d;

		if (e->used || strcmp(e->fp, fp))
			continue;
		if (e->file && file && !strcmp(e->file, file))
			d = labs(e->line - (long)f->site->line);
		else
			d = LONG_MAX / 2;
		if (dist < 0 || d < dist) {
			best = e;
			dist = d;
		}
	}
	free(file);
	return best;
}

/* Known: any root set's fingerprint of the site is in the baseline. */
static bool not_in_baseline(const struct finding *f, void *data)
{
	struct base_filter *b = data;
	char **fps;
	size_t n, k;
	bool known = false;

	if (b->matched) {
		known = b->matched[f - b->fs->v];
		n = 0;
		fps = NULL;
	} else {
		n = site_fingerprints(f, &fps, false);
	}
	for (k = 0; k < n; k++) {
		int i = strmap_get(&b->fps, fps[k]);

		if (i >= 0) {
			b->hit[i] = true;
			known = true;
		}
	}
	strv_free(fps, n);
	if (!known && b->nr_v1) {
		n = site_fingerprints(f, &fps, true);
		for (k = 0; k < n && !known; k++) {
			const struct finding *g = k ? &f->also[k - 1] : f;
			struct v1_entry *e = v1_match(b, g, fps[k]);

			if (e)
				e->used = known = true;
		}
		strv_free(fps, n);
	}
	if (!known)
		return true;
	b->known++;
	return false;
}

/*
 * One fingerprint of a site, or of a baseline entry, for matching by
 * site: the fingerprint without its ordinal (@base), the ordinal, and
 * the hashes of the line's text and context (NULL: not known).
 */
struct fp_site {
	char *base;
	unsigned long ordinal;
	const char *line, *context;
	size_t who;		/* the finding's index, or the entry's */
	bool paired;
};

static void fp_site_set(struct fp_site *x, const char *fp, size_t who,
			const char *line, const char *context)
{
	const char *colon = strrchr(fp, ':');

	x->base = xstrndup(fp, colon ? (size_t)(colon - fp) : strlen(fp));
	x->ordinal = colon ? strtoul(colon + 1, NULL, 10) : 0;
	x->line = line;
	x->context = context;
	x->who = who;
	x->paired = false;
}

static int fp_site_cmp(const void *a, const void *b)
{
	const struct fp_site *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	if (c)
		return c;
	return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static bool same_hash(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/*
 * Pair the sites of one fingerprint (all but the ordinal) with the
 * baseline's entries of it: first those whose line and neighbours read
 * the same, then those whose line reads the same, then the rest in
 * order. A site left over is new, wherever it is: a read added above an
 * old one of the same function takes the old one's ordinal, not its
 * place in the baseline.
 */
static void pair_group(struct fp_site *cur, size_t nc, struct fp_site *base,
		       size_t nb, struct base_filter *b)
{
	size_t i, j;
	int tier;

	for (tier = 0; tier < 3; tier++)
		for (i = 0; i < nc; i++) {
			for (j = 0; j < nb && !cur[i].paired; j++) {
				if (base[j].paired)
					continue;
				if (tier == 0 && !same_hash(cur[i].context,
							    base[j].context))
					continue;
				if (tier == 1 && !same_hash(cur[i].line,
							    base[j].line))
					continue;
				cur[i].paired = base[j].paired = true;
				b->matched[cur[i].who] = true;
				b->hit[base[j].who] = true;
			}
		}
}

/*
 * A baseline whose entries carry line hashes: each site of the findings
 * paired with at most one entry, fingerprints grouped without their
 * ordinal (pair_group()).
 */
static void match_by_site(struct base_filter *b, json_t *arr,
			  const char *root)
{
	const struct findings *fs = b->fs;
	struct fp_site *cur = NULL, *base = NULL;
	size_t nc = 0, ac = 0, nb = 0, ab = 0, i, k, n, c0, b0;
	char (*lh)[17] = xcalloc(fs->nr + 1, sizeof(*lh));
	char (*ch)[17] = xcalloc(fs->nr + 1, sizeof(*ch));
	char **fps;
	json_t *o;

	b->matched = xcalloc(fs->nr + 1, sizeof(*b->matched));
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];
		bool h = root && f->site->file &&
			 site_hashes(root, f->site->file, f->site->line,
				     lh[i], ch[i]);

		n = site_fingerprints(f, &fps, false);
		for (k = 0; k < n; k++)
			fp_site_set(PUSH(cur, nc, ac), fps[k], i,
				    h ? lh[i] : NULL, h ? ch[i] : NULL);
		strv_free(fps, n);
	}
	json_array_foreach(arr, i, o) {
		const char *fp = json_string_value(json_object_get(o,
								"fingerprint"));

		if (fp)
			fp_site_set(PUSH(base, nb, ab), fp, i,
				    json_string_value(json_object_get(o,
							"line_hash")),
				    json_string_value(json_object_get(o,
							"context_hash")));
	}
	if (nc)
		qsort(cur, nc, sizeof(*cur), fp_site_cmp);
	if (nb)
		qsort(base, nb, sizeof(*base), fp_site_cmp);
	for (c0 = 0, b0 = 0; c0 < nc; ) {
		size_t c1 = c0, b1;
		int d = 1;

		while (c1 < nc && !strcmp(cur[c1].base, cur[c0].base))
			c1++;
		while (b0 < nb && (d = strcmp(base[b0].base,
					      cur[c0].base)) < 0)
			b0++;
		for (b1 = b0; !d && b1 < nb &&
			      !strcmp(base[b1].base, cur[c0].base); b1++)
			;
		if (!d)
			pair_group(cur + c0, c1 - c0, base + b0, b1 - b0, b);
		c0 = c1;
	}
	for (i = 0; i < nc; i++)
		free(cur[i].base);
	for (i = 0; i < nb; i++)
		free(base[i].base);
	free(cur);
	free(base);
	free(lh);
	free(ch);
}

int baseline_apply(const char *path, const char *tree, struct findings *fs,
		   struct baseline_stats *sum, char *err, size_t errlen)
{
	struct base_filter b = { .known = 0 };
	json_error_t jerr;
	json_t *root, *arr, *o;
	size_t i, fixed = 0, nr;
	bool hashes = false;
	json_int_t ver;
	FILE *in;
	int ret;

	ret = input_open(path, "the baseline", INPUT_MAX_TEXT, &in, err,
			 errlen);
	if (ret)
		return ret;
	root = json_loadf(in, 0, &jerr);
	fclose(in);
	if (!root) {
		snprintf(err, errlen, "%s:%d: not a baseline: %s", path,
			 jerr.line, jerr.text);
		one_line(err);
		return -EINVAL;
	}
	arr = json_object_get(root, "findings");
	ver = json_integer_value(json_object_get(root, "trapcheck_baseline"));
	if ((ver != 1 && ver != BASELINE_VERSION) || !json_is_array(arr)) {
		snprintf(err, errlen, "%s: not a trapcheck baseline (version "
			 "1 or %d)", path, BASELINE_VERSION);
		json_decref(root);
		return -EINVAL;
	}
	nr = json_array_size(arr);
	strmap_init(&b.fps);
	b.hit = xcalloc(nr + 1, sizeof(*b.hit));
	if (ver == 1)
		b.v1 = xcalloc(nr + 1, sizeof(*b.v1));
	json_array_foreach(arr, i, o) {
		const char *fp = json_string_value(json_object_get(o,
								"fingerprint"));

		if (!fp)
			continue;
		if (ver == 1) {
			struct v1_entry *e = &b.v1[b.nr_v1++];

			e->fp = fp;
			e->file = json_string_value(json_object_get(o,
								   "file"));
			e->line = (long)json_integer_value(
					json_object_get(o, "line"));
		} else {
			strmap_put(&b.fps, fp, (int)i);
			hashes |= json_is_string(json_object_get(o,
								 "line_hash"));
		}
	}
	b.fs = fs;
	if (hashes)
		match_by_site(&b, arr, tree);
	findings_filter(fs, not_in_baseline, &b);
	/* Fixed: in the baseline, not found any more. */
	json_array_foreach(arr, i, o)
		if (ver != 1 && json_is_string(json_object_get(o,
							"fingerprint")) &&
		    !b.hit[i])
			fixed++;
	for (i = 0; i < b.nr_v1; i++)
		fixed += !b.v1[i].used;
	if (ver == 1)
		diag_at(path, "note", "a version 1 baseline: its entries are "
			"matched by fingerprint and line; write it again with "
			"--write-baseline");
	sum->baseline = true;
	sum->known = b.known;
	sum->fixed = fixed;
	strmap_free(&b.fps);
	free(b.hit);
	free(b.matched);
	free(b.v1);
	json_decref(root);
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * A waiver names a rule of ours and a function or FILE:LINE: a typo must
 * not be a waiver that silently waives nothing. 0, or -EINVAL (@err).
 */
static int waiver_check(const char *rule, const char *what,
			const char *colon, const char *path, unsigned int n,
			char *err, size_t errlen)
{
	const struct rule *r;
	const char *d;
	size_t i, len = 0;

	if (!rules_find(rule)) {
		len = (size_t)snprintf(err, errlen, "%s:%u: no rule named "
				       "'%s' (the rules are", path, n, rule);
		for (i = 0; (r = rules_at(i)) && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len,
						"%s %s", i ? "," : "", r->id);
		if (len < errlen)
			snprintf(err + len, errlen - len, ")");
		return -EINVAL;
	}
	if (!colon)
		return 0;
	for (d = colon + 1; isdigit((unsigned char)*d); d++)
		;
	/* A line number past what an unsigned int holds would wrap. */
	if (colon == what || d == colon + 1 || *d || d - colon > 10 ||
	    strtoul(colon + 1, NULL, 10) == 0 ||
	    strtoul(colon + 1, NULL, 10) > 0x7fffffffUL) {
		snprintf(err, errlen, "%s:%u: '%s': not a function name or "
			 "FILE:LINE (a line number from 1)", path, n, what);
		return -EINVAL;
	}
	return 0;
}

int waivers_load(struct waivers *w, const char *path, char *err,
		 size_t errlen)
{
	char line[1024];
	unsigned int n = 0;
	FILE *f;
	int ret = input_open(path, "waivers", INPUT_MAX_LIST, &f, err,
			     errlen);

	if (ret)
		return ret;
	while (fgets(line, sizeof(line), f)) {
		char *p = trim(line), *rule, *what, *reason, *colon;
		struct waiver *v;

		n++;
		if (!*p || *p == '#')
			continue;
		rule = strtok(p, " \t");
		what = strtok(NULL, " \t");
		reason = strtok(NULL, "");
		reason = reason ? trim(reason) : NULL;
		if (!what || !reason || !*reason) {
			snprintf(err, errlen, "%s:%u: waiver without a reason: "
				 "\"<rule> <function | file:line> <reason>\"",
				 path, n);
			fclose(f);
			return -EINVAL;
		}
		colon = strrchr(what, ':');
		ret = waiver_check(rule, what, colon, path, n, err, errlen);
		if (ret) {
			fclose(f);
			return ret;
		}
		v = PUSH(w->v, w->nr, w->alloc);
		memset(v, 0, sizeof(*v));
		v->rule = xstrdup(rule);
		if (colon) {
			v->file = xstrndup(what, colon - what);
			v->line = (unsigned int)atoi(colon + 1);
		} else {
			v->func = xstrdup(what);
		}
		v->reason = xstrdup(reason);
		v->origin = xasprintf("%s:%u", path, n);
	}
	fclose(f);
	return 0;
}

void waivers_free(struct waivers *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->v[i].rule);
		free(w->v[i].func);
		free(w->v[i].file);
		free(w->v[i].reason);
		free(w->v[i].origin);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* Line @n (1-based) of @path under @root, or NULL. */
static char *source_line(const char *root, const char *path, unsigned int n)
{
	char *full = path_join(root, path), buf[4096];
	FILE *f = fopen(full, "r");
	unsigned int i = 0;
	char *out = NULL;

	free(full);
	if (!f)
		return NULL;
	while (fgets(buf, sizeof(buf), f))
		if (++i == n) {
			out = xstrdup(buf);
			break;
		}
	fclose(f);
	return out;
}

/*
 * "trapcheck: allow <rule>: <reason>" in @line for @rule: 1 with the
 * reason, -1 when the reason is missing, 0 when there is none.
 */
static int comment_waiver(const char *line, const char *rule, char **reason)
{
	const char *p = line ? strstr(line, "trapcheck: allow ") : NULL;
	size_t n;
	char *r, *end;

	if (!p)
		return 0;
	p += 17;
	n = strcspn(p, ": \t*");
	if (n != strlen(rule) || strncmp(p, rule, n))
		return 0;
	if (p[n] != ':')
		return -1;
	r = xstrdup(p + n + 1);
	end = strstr(r, "*/");
	if (end)
		*end = '\0';
	end = trim(r);
	if (!*end) {
		free(r);
		return -1;
	}
	*reason = xstrdup(end);
	free(r);
	return 1;
}

static bool is_comment_line(const char *line)
{
	line += strspn(line, " \t");
	return !strncmp(line, "/*", 2) || !strncmp(line, "//", 2) ||
	       *line == '*';
}

struct waive_ctx {
	struct findings *fs;	/* their notes get the waivers */
	const struct waivers *w;
	const char *root;
	struct baseline_stats *sum;
	bool keep;
	int errors;
};

static bool not_waived(const struct finding *cf, void *data)
{
	struct waive_ctx *c = data;
	const struct finding *f = cf;
	struct finding_note *n;
	char *reason = NULL, *line;
	unsigned int l;
	size_t i;
	int r;


	for (i = 0; c->w && i < c->w->nr && !reason; i++) {
		const struct waiver *v = &c->w->v[i];

		if (strcmp(v->rule, f->rule))
			continue;
		if ((v->func && !strcmp(v->func, f->fn->name)) ||
		    (v->file && v->line == f->site->line &&
		     !strcmp(v->file, f->site->file)))
			reason = xasprintf("%s (%s)", v->reason, v->origin);
	}
	/* On the sink's line, then the comment block heading the function. */
	for (l = 0; !reason && l < 9; l++) {
		const char *file = l ? f->fn->file : f->site->file;
		unsigned int at = l ? f->fn->line - (l - 1) : f->site->line;
		bool stop;

		if (l && (!file || at < 1))
			break;
		line = source_line(c->root, file, at);
		r = comment_waiver(line, f->rule, &reason);
		/* Above the definition, only its comment block counts. */
		stop = r < 0 || (l > 1 && line && !is_comment_line(line));
		if (r < 0) {
			char *where = xasprintf("%s:%u", file, at);

			diag_at(where, "error", "trapcheck waiver for %s "
				"without a reason", f->rule);
			free(where);
			c->errors++;
		} else if (r > 0) {
			char *s = xasprintf("%s (%s:%u)", reason, file, at);

			free(reason);
			reason = s;
		}
		free(line);
		if (stop)
			break;
	}
	if (!reason)
		return true;
	c->sum->waived++;
	n = finding_note(c->fs, f);
	free(n->waiver);
	n->waiver = reason;
	return c->keep;
}

int waivers_apply(const struct waivers *w, const char *root,
		  struct findings *fs, struct baseline_stats *sum, bool keep)
{
	struct waive_ctx c = { fs, w, root, sum, keep, 0 };

	findings_filter(fs, not_waived, &c);
	return c.errors ? -EINVAL : 0;
}
