// SPDX-License-Identifier: GPL-2.0
/*
 * finding.c - the finding list, what a finding says of itself, and the
 * notes beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/finding/finding.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/model/sinks.h"

/* A finding through more inferred calls than this is of low confidence. */
#define CONFIDENT_INFERRED	1

const char *finding_sink(const struct finding *f)
{
	return sink_at(f->site->sink)->name;
}

bool finding_per_boot(const struct finding *f)
{
	return f->phase && !strcmp(f->phase, "boot");
}

bool finding_rare_only(const struct finding *f)
{
	return f->nr_chains && f->chains[0].rare > 0;
}

bool finding_subset(const struct finding *f)
{
	const struct chain *c = f->nr_chains ? &f->chains[0] : NULL;
	size_t i;

	if (!c || c->rare || finding_per_boot(f))
		return false;
	for (i = 0; i < c->len; i++)
		if (cond_subset(c->steps[i].guards, NULL))
			return true;
	return false;
}

double finding_estimate(const struct finding *f)
{
	if (finding_per_boot(f))
		return f->rate.loops;
	return f->rate.weight * (f->rate.paths > 1 ? f->rate.value :
						     f->rate.loops);
}

/*
 * Of its own chains, not its site's other root sets': KVM host code only
 * when every chain runs through it (a chain through guest code alone
 * traps in any guest).
 */
static bool own_nested(const struct finding *f)
{
	size_t i;

	for (i = 0; i < f->nr_chains; i++)
		if (!f->chains[i].nested)
			return false;
	return f->nr_chains;
}

const char *finding_only_when(const struct finding *f)
{
	const struct chain *c = f->nr_chains ? &f->chains[0] : NULL;
	size_t i;

	if (!c || c->args_hold)
		return NULL;
	for (i = 0; i < c->len; i++)
		if (guards_have(c->steps[i].guards, GUARD_ARGUMENT))
			return c->steps[i].guards;
	return NULL;
}

static bool own_low(const struct finding *f)
{
	return f->doubt.inferred > CONFIDENT_INFERRED ||
	       finding_only_when(f) ||
	       f->doubt.unless || f->doubt.not_offered || f->doubt.not_then ||
	       f->doubt.not_in_kvm ||
	       f->doubt.no_device || f->doubt.machine_doubt ||
	       (f->root && finding_rare_only(f));
}

/*
 * Where the site's read traps: in a guest unless every root set's
 * finding is KVM host code; of a warning site only the findings that are
 * warnings count (a guest's note does not make a KVM host's read a
 * guest's warning).
 */
const char *finding_context(const struct finding *f)
{
	bool warns = f->root && !finding_low(f), nested = true;
	size_t i, counted = 0;

	if (!(warns && own_low(f))) {
		nested = own_nested(f);
		counted++;
	}
	for (i = 0; nested && i < f->nr_also; i++) {
		if (warns && own_low(&f->also[i]))
			continue;
		nested = own_nested(&f->also[i]);
		counted++;
	}
	/* Nothing counted: every root set's finding alone is a note. */
	if (!counted)
		nested = own_nested(f);
	return nested ? "nested" : "guest";
}

bool finding_low(const struct finding *f)
{
	bool low = f->root && own_low(f);
	size_t i;

	for (i = 0; low && i < f->nr_also; i++)
		low = own_low(&f->also[i]);
	return low;
}

/* A guest's reads before a KVM host's; steady before boot; costliest. */
static int rank(const struct finding *f)
{
	bool nested = !strcmp(finding_context(f), "nested");

	return nested * 2 + finding_per_boot(f);
}

int finding_site_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c = site_cmp(FINDING_AT(x),
			 FINDING_AT(y));

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
	if (finding_estimate(x) != finding_estimate(y))
		return finding_estimate(x) > finding_estimate(y) ? -1 : 1;
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
	free(f->doubt.not_in_kvm);
	free(f->doubt.not_then);
	free(f->doubt.no_device);
	free(f->doubt.machine_doubt);
	for (j = 0; j < f->nr_chains; j++)
		free(f->chains[j].steps);
	free(f->chains);
	for (j = 0; j < f->nr_also; j++)
		finding_free(&f->also[j]);
	free(f->also);
}

static void note_free(struct finding_note *n)
{
	free(n->fix_note);
	free(n->waiver);
	free(n->configs);
	strv_free(n->config_syms, n->nr_config_syms);
}

/*
 * A note's key: the finding's fingerprint and its place. The fingerprint
 * alone does not tell apart the same site of two configurations' trees
 * (trapcheck report --db NAME=FILE) when their lines differ.
 */
static char *note_key(const struct finding *f)
{
	char *fp = finding_fingerprint(f);
	char *key = xasprintf("%s %s:%u:%u", fp, FINDING_AT(f));

	free(fp);
	return key;
}

struct finding_note *finding_note(struct findings *fs,
				  const struct finding *f)
{
	char *fp = note_key(f);
	int i;

	if (!fs->note_index.slots)
		strmap_init(&fs->note_index);
	i = strmap_get(&fs->note_index, fp);
	if (i < 0) {
		struct finding_note *n = PUSH(fs->notes, fs->nr_notes,
					      fs->alloc_notes);

		memset(n, 0, sizeof(*n));
		i = (int)(fs->nr_notes - 1);
		strmap_put(&fs->note_index, fp, i);
	}
	free(fp);
	return &fs->notes[i];
}

const struct finding_note *finding_note_of(const struct findings *fs,
					   const struct finding *f)
{
	char *fp;
	int i;

	if (!fs || !fs->nr_notes)
		return NULL;
	fp = note_key(f);
	i = strmap_get(&fs->note_index, fp);
	free(fp);
	return i < 0 ? NULL : &fs->notes[i];
}

char *finding_configs_text(const struct finding_note *n)
{
	char *s, *t;
	size_t i;

	if (!n || !n->nr_configs || n->in_all_configs)
		return xstrdup("");
	s = xstrdup(" (");
	for (i = 0; i < n->nr_configs; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", n->configs[i]);
		free(s);
		s = t;
	}
	t = xasprintf("%s only", s);
	free(s);
	for (i = 0; i < n->nr_config_syms; i++) {
		s = xasprintf("%s%s%s", t, i ? ", " : ": ",
			      n->config_syms[i]);
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

char *finding_fingerprint_as(const struct finding *f, const char *file,
			     unsigned int ordinal)
{
	const char *arg = f->site->arg ? f->site->arg : "-";
	unsigned int n = ordinal ? ordinal : 1;

	if (f->fn->is_static && file)
		return xasprintf("%s:%s@%s:%s:%s:%s:%u", f->rule, f->fn->name,
				 file, finding_sink(f), arg,
				 f->root ? f->root : "-", n);
	return xasprintf("%s:%s:%s:%s:%s:%u", f->rule, f->fn->name,
			 finding_sink(f), arg, f->root ? f->root : "-", n);
}

char *finding_fingerprint(const struct finding *f)
{
	return finding_fingerprint_as(f, f->fn->file, f->site->ordinal);
}

char *finding_fingerprint_v1(const struct finding *f)
{
	return xasprintf("%s:%s:%s:%s:%s", f->rule, f->fn->name,
			 finding_sink(f), f->read.reg ? f->read.reg : "-",
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
	findings_filter_into(fs, keep, data, NULL);
}

void findings_filter_into(struct findings *fs,
			  bool (*keep)(const struct finding *f, void *data),
			  void *data, struct findings *out)
{
	size_t i, k = 0;

	for (i = 0; i < fs->nr; i++) {
		if (keep(&fs->v[i], data))
			fs->v[k++] = fs->v[i];
		else if (out)
			*PUSH(out->v, out->nr, out->alloc) = fs->v[i];
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
	for (i = 0; i < fs->nr_notes; i++)
		note_free(&fs->notes[i]);
	free(fs->notes);
	if (fs->note_index.slots)
		strmap_free(&fs->note_index);
	memset(fs, 0, sizeof(*fs));
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

		n += g->root ? g->nr_chains : 0;
	}
	v = xcalloc(n + 1, sizeof(*v));
	*nr = 0;
	for (i = 0; i <= f->nr_also; i++) {
		const struct finding *g = i ? &f->also[i - 1] : f;

		if (!g->root)
			continue;
		for (j = 0; j < g->nr_chains; j++)
			count_mode(v, nr, g, &g->chains[j]);
	}
	return v;
}

char *finding_rate_text(const struct finding *f)
{
	const struct chain *c = &f->chains[0];
	double v = f->rate.value;

	if (finding_per_boot(f))
		return xasprintf("boot phase: about %.0f read%s per call from "
				 "%s until the guard flips (loops %.0f%s); not "
				 "a rate",
				 finding_estimate(f),
				 finding_estimate(f) == 1 ? "" : "s", f->root,
				 f->rate.loops,
				 f->rate.loop_guess ? ", a guess" : "");
	char paths[48] = "";

	if (f->rate.paths > 1)
		snprintf(paths, sizeof(paths), "; %u call paths in each",
			 f->rate.paths);
	return xasprintf(
		"about %.0f read%s per %s (%s%s%s%s; loops %.0f%s%s)", v,
		v == 1 ? "" : "s", f->rate.per ? f->rate.per : "call",
		c->mode ? "mode: " : "", c->mode ? c->mode : "",
		c->mode ? "; " : "",
		finding_rare_only(f) ? "only when that happens" :
		finding_subset(f) ? "some of its root set's operations" :
				 "its root set's operation",
		f->rate.loops,
		f->rate.loop_guess ? ", a guess: a loop of unknown bound" : "",
		paths);
}
