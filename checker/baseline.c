// SPDX-License-Identifier: GPL-2.0
/*
 * baseline.c - baselines (jansson) and waivers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "trapcheck/diag.h"
#include "trapcheck/baseline.h"
#include "trapcheck/util.h"

#define BASELINE_VERSION 1

/*
 * A finding is one site; each root set that reaches it keeps the
 * fingerprint it had when findings were per root set (rule, function,
 * sink, register, root set): the site's own and those of also[]. A
 * baseline lists them all, so baselines written before and after one
 * finding per site match each other.
 */
static size_t site_fingerprints(const struct finding *f, char ***out)
{
	size_t i, n = f->nr_also + 1;
	char **v = xcalloc(n, sizeof(*v));

	v[0] = finding_fingerprint(f);
	for (i = 0; i < f->nr_also; i++)
		v[i + 1] = finding_fingerprint(&f->also[i]);
	*out = v;
	return n;
}

int baseline_write(const char *path, const struct findings *fs, char *err,
		   size_t errlen)
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

		n = site_fingerprints(f, &fps);
		for (k = 0; k < n; k++) {
			json_t *o;

			if (strmap_get(&seen, fps[k]) >= 0)
				continue;
			strmap_put(&seen, fps[k], 1);
			o = json_object();
			json_object_set_new(o, "fingerprint",
					    json_string(fps[k]));
			json_object_set_new(o, "file", json_string(f->file));
			json_object_set_new(o, "line", json_integer(f->line));
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
		if (out_close(&o))
			ret = -EIO;
	}
	if (ret)
		snprintf(err, errlen, "%s: cannot write the baseline: %s",
			 path, strerror(ret == -EIO ? EIO : -ret));
	json_decref(root);
	return ret ? -EIO : 0;
}

struct base_filter {
	struct strmap fps;	/* fingerprint -> 0 unseen, 1 seen */
	size_t known;
};

/* Known: any root set's fingerprint of the site is in the baseline. */
static bool not_in_baseline(const struct finding *f, void *data)
{
	struct base_filter *b = data;
	char **fps;
	size_t n = site_fingerprints(f, &fps), k;
	bool known = false;

	for (k = 0; k < n && !known; k++)
		known = strmap_get(&b->fps, fps[k]) >= 0;
	strv_free(fps, n);
	if (!known)
		return true;
	b->known++;
	return false;
}

int baseline_apply(const char *path, struct findings *fs,
		   struct run_summary *sum, char *err, size_t errlen)
{
	struct base_filter b = { .known = 0 };
	json_error_t jerr;
	json_t *root, *arr, *o;
	size_t i, fixed = 0;

	root = json_load_file(path, 0, &jerr);
	if (!root) {
		snprintf(err, errlen, "%s:%d: not a baseline: %s", path,
			 jerr.line, jerr.text);
		one_line(err);
		return -EINVAL;
	}
	arr = json_object_get(root, "findings");
	if (json_integer_value(json_object_get(root, "trapcheck_baseline")) !=
	    BASELINE_VERSION || !json_is_array(arr)) {
		snprintf(err, errlen, "%s: not a trapcheck baseline (version "
			 "%d)", path, BASELINE_VERSION);
		json_decref(root);
		return -EINVAL;
	}
	strmap_init(&b.fps);
	json_array_foreach(arr, i, o) {
		const char *fp = json_string_value(json_object_get(o,
								"fingerprint"));

		if (fp)
			strmap_put(&b.fps, fp, (int)i);
	}
	/* Fixed: in the baseline, not found any more. */
	json_array_foreach(arr, i, o) {
		const char *fp = json_string_value(json_object_get(o,
								"fingerprint"));
		size_t j;
		bool found = false;

		for (j = 0; fp && j < fs->nr && !found; j++) {
			char **g;
			size_t n = site_fingerprints(&fs->v[j], &g), k;

			for (k = 0; k < n && !found; k++)
				found = !strcmp(g[k], fp);
			strv_free(g, n);
		}
		if (fp && !found)
			fixed++;
	}
	findings_filter(fs, not_in_baseline, &b);
	sum->baseline = true;
	sum->known = b.known;
	sum->fixed = fixed;
	strmap_free(&b.fps);
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

int waivers_load(struct waivers *w, const char *path, char *err,
		 size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned int n = 0;

	if (!f) {
		snprintf(err, errlen, "%s: cannot read waivers: %s", path,
			 strerror(errno));
		return -errno;
	}
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
		v = PUSH(w->v, w->nr, w->alloc);
		memset(v, 0, sizeof(*v));
		v->rule = xstrdup(rule);
		colon = strrchr(what, ':');
		if (colon && colon[1] && isdigit((unsigned char)colon[1])) {
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
	const struct waivers *w;
	const char *root;
	struct run_summary *sum;
	bool keep;
	int errors;
};

static bool not_waived(const struct finding *cf, void *data)
{
	struct waive_ctx *c = data;
	struct finding *f = (struct finding *)cf;
	char *reason = NULL, *line;
	unsigned int l;
	size_t i;
	int r;


	for (i = 0; c->w && i < c->w->nr && !reason; i++) {
		const struct waiver *v = &c->w->v[i];

		if (strcmp(v->rule, f->rule))
			continue;
		if ((v->func && !strcmp(v->func, f->function)) ||
		    (v->file && v->line == f->line &&
		     !strcmp(v->file, f->file)))
			reason = xasprintf("%s (%s)", v->reason, v->origin);
	}
	/* On the sink's line, then the comment block heading the function. */
	for (l = 0; !reason && l < 9; l++) {
		const char *file = l ? f->func_file : f->file;
		unsigned int at = l ? f->func_line - (l - 1) : f->line;
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
	f->waiver = reason;
	return c->keep;
}

int waivers_apply(const struct waivers *w, const char *root,
		  struct findings *fs, struct run_summary *sum, bool keep)
{
	struct waive_ctx c = { w, root, sum, keep, 0 };

	findings_filter(fs, not_waived, &c);
	return c.errors ? -EINVAL : 0;
}
