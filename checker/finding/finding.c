// SPDX-License-Identifier: GPL-2.0
/*
 * finding.c - the finding list.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/finding/finding.h"

/* A guest's reads before a KVM host's; steady before boot; costliest. */
static int rank(const struct finding *f)
{
	bool nested = f->context && !strcmp(f->context, "nested");

	return nested * 2 + f->rate.per_boot;
}

int finding_site_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c = site_cmp(x->file, x->line, x->col, y->file, y->line, y->col);

	if (c)
		return c;
	c = strcmp(x->rule, y->rule);
	if (c)
		return c;
	return strcmp(x->root ? x->root : "", y->root ? y->root : "");
}

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (rank(x) != rank(y))
		return rank(x) - rank(y);
	/* The costliest first; then by place. */
	if (x->rate.estimate != y->rate.estimate)
		return x->rate.estimate > y->rate.estimate ? -1 : 1;
	return finding_site_cmp(a, b);
}

void findings_sort(struct findings *fs)
{
	sort_n(fs->v, fs->nr, sizeof(*fs->v), finding_cmp);
}

void finding_free(struct finding *f)
{
	size_t j;

	free(f->message);
	free(f->doubt.unless);
	free(f->doubt.not_offered);
	free(f->report.fix_note);
	free(f->report.waiver);
	free(f->chain.steps);
	for (j = 0; j < f->nr_others; j++)
		free(f->others[j].steps);
	free(f->others);
	for (j = 0; j < f->nr_also; j++)
		finding_free(&f->also[j]);
	free(f->also);
	free(f->report.configs);
	strv_free(f->report.config_syms, f->report.nr_config_syms);
}

char *finding_configs_text(const struct finding *f)
{
	char *s, *t;
	size_t i;

	if (!f->report.nr_configs || f->report.in_all_configs)
		return xstrdup("");
	s = xstrdup(" (");
	for (i = 0; i < f->report.nr_configs; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", f->report.configs[i]);
		free(s);
		s = t;
	}
	t = xasprintf("%s only", s);
	free(s);
	for (i = 0; i < f->report.nr_config_syms; i++) {
		s = xasprintf("%s%s%s", t, i ? ", " : ": ",
			      f->report.config_syms[i]);
		free(t);
		t = s;
	}
	s = xasprintf("%s)", t);
	free(t);
	return s;
}

char *finding_chain_text(const struct chain *c, bool calls)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < c->len; i++) {
		const struct chain_step *st = &c->steps[i];
		const char *p = calls ? "()" : "";

		if (st->via)
			t = xasprintf("%s%s%s%s (%s %s%s)", s, i ? " -> " : "",
				      st->function, p, st->inferred ? "via" :
				      "as", st->via, st->inferred ? "" : p);
		else
			t = xasprintf("%s%s%s%s", s, i ? " -> " : "",
				      st->function, p);
		free(s);
		s = t;
	}
	return s;
}

char *finding_fingerprint(const struct finding *f)
{
	const char *arg = f->site_arg ? f->site_arg : "-";
	unsigned int n = f->ordinal ? f->ordinal : 1;

	if (f->func_static && f->func_file)
		return xasprintf("%s:%s@%s:%s:%s:%s:%u", f->rule, f->function,
				 f->func_file, f->sink, arg,
				 f->root ? f->root : "-", n);
	return xasprintf("%s:%s:%s:%s:%s:%u", f->rule, f->function, f->sink,
			 arg, f->root ? f->root : "-", n);
}

char *finding_fingerprint_v1(const struct finding *f)
{
	return xasprintf("%s:%s:%s:%s:%s", f->rule, f->function, f->sink,
			 f->read.reg ? f->read.reg : "-",
			 f->root ? f->root : "-");
}

char *finding_fingerprint_hash(const struct finding *f)
{
	char *text = finding_fingerprint(f);
	char *h = xasprintf("%016llx", (unsigned long long)hash_str(text));

	free(text);
	return h;
}

void findings_filter(struct findings *fs,
		     bool (*keep)(const struct finding *f, void *data),
		     void *data)
{
	size_t i, k = 0;

	for (i = 0; i < fs->nr; i++) {
		if (keep(&fs->v[i], data))
			fs->v[k++] = fs->v[i];
		else
			finding_free(&fs->v[i]);
	}
	fs->nr = k;
}

void findings_free(struct findings *fs)
{
	size_t i;

	for (i = 0; i < fs->nr; i++)
		finding_free(&fs->v[i]);
	free(fs->v);
	if (fs->pool) {
		strpool_free(fs->pool);
		free(fs->pool);
	}
	memset(fs, 0, sizeof(*fs));
}

void run_summary_free(struct run_summary *s)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++) {
		free(s->problems[i].file);
		free(s->problems[i].first_error);
	}
	free(s->problems);
	free(s->tables.unresolved);
	free(s->tables.unknown);
	memset(s, 0, sizeof(*s));
}

/*
 * By mode: for each (mode, root set), how many of the site's chains run
 * in it (its own, its other chains, those of the other root sets). A
 * chain that needs two modes at once never runs and is not counted.
 */
static void count_mode(struct mode_count *v, size_t *nr,
		       const struct finding *f, const struct chain *c)
{
	size_t i;

	if (c->mode_conflict)
		return;
	for (i = 0; i < *nr; i++)
		if (!strcmp(v[i].root, f->root) &&
		    !strcmp(v[i].mode ? v[i].mode : "",
			    c->mode ? c->mode : "")) {
			v[i].chains++;
			return;
		}
	v[(*nr)++] = (struct mode_count){ c->mode, f->root, f->rate.per, 1 };
}

struct mode_count *finding_modes(const struct finding *f, size_t *nr)
{
	size_t i, j, n = 0;
	struct mode_count *v;

	for (i = 0; i <= f->nr_also; i++) {
		const struct finding *g = i ? &f->also[i - 1] : f;

		n += g->root ? 1 + g->nr_others : 0;
	}
	v = xcalloc(n + 1, sizeof(*v));
	*nr = 0;
	for (i = 0; i <= f->nr_also; i++) {
		const struct finding *g = i ? &f->also[i - 1] : f;

		if (!g->root)
			continue;
		count_mode(v, nr, g, &g->chain);
		for (j = 0; j < g->nr_others; j++)
			count_mode(v, nr, g, &g->others[j]);
	}
	return v;
}

char *finding_rate_text(const struct finding *f)
{
	double v = f->rate.value;

	if (f->rate.per_boot)
		return xasprintf("boot phase: about %.0f read%s per call from "
				 "%s until the guard flips (loops %.0f%s); not "
				 "a rate",
				 f->rate.estimate,
				 f->rate.estimate == 1 ? "" : "s", f->root,
				 f->rate.loops,
				 f->rate.loop_guess ? ", a guess" : "");
	char paths[48] = "";

	if (f->rate.paths > 1)
		snprintf(paths, sizeof(paths), "; %u call paths in each",
			 f->rate.paths);
	return xasprintf(
		"about %.0f read%s per %s (%s%s%s%s; loops %.0f%s%s)", v,
		v == 1 ? "" : "s", f->rate.per ? f->rate.per : "call",
		f->chain.mode ? "mode: " : "",
		f->chain.mode ? f->chain.mode : "", f->chain.mode ? "; " : "",
		f->rate.rare_only ? "only when that happens" :
				    "its root set's operation",
		f->rate.loops,
		f->rate.loop_guess ? ", a guess: a loop of unknown bound" : "",
		paths);
}
