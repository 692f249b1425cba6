// SPDX-License-Identifier: GPL-2.0
/*
 * conditions.c - the kinds of the atoms of a chain's conditions
 * (conditions.h), from checker/model/conditions.def and the run's
 * architecture's table.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/base/util.h"

const char *const cond_kind_names[COND_KINDS] = {
	[COND_OTHER] = "other", [COND_RARE] = "rare", [COND_FLAG] = "flag",
	[COND_MODE] = "mode", [COND_FEATURE] = "feature",
	[COND_ARGUMENT] = "argument", [COND_SUBSET] = "subset",
	[COND_MACHINE] = "machine", [COND_CPU] = "cpu",
};

static const struct cond_def cond_table[] = {
#define COND(kind, pattern, t, f) { COND_##kind, pattern, t, f },
#include "conditions.def"
#undef COND
};

static enum cond_kind match(const struct cond_def *t, size_t nr,
			    const char *atom, bool negated,
			    const char **label, bool *found, bool subsets)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *pat = t[i].pattern;

		if (subsets && t[i].kind != COND_SUBSET)
			continue;
		/* "!x": the negated atom only, as a positive one. */
		if (*pat == '!') {
			if (!negated || !strstr(atom, pat + 1))
				continue;
			*found = true;
			*label = t[i].when_true;
			return t[i].kind;
		}
		if (!strstr(atom, pat))
			continue;
		/*
		 * An early return on a rare test leads to the common path;
		 * a subset's negation is the other operations; a CPU
		 * capability's, a CPU with or without it.
		 */
		if ((t[i].kind == COND_RARE || t[i].kind == COND_SUBSET ||
		     t[i].kind == COND_CPU) && negated)
			continue;
		*found = true;
		*label = negated && (t[i].kind == COND_MODE ||
				     t[i].kind == COND_MACHINE) ?
			 t[i].when_false : t[i].when_true;
		return t[i].kind;
	}
	return COND_OTHER;
}

enum cond_kind cond_classify(const char *atom, const char **label)
{
	const struct arch *a = arch_current();
	bool negated = atom[0] == '!', found = false;
	const char *core = negated ? atom + 1 : atom;
	enum cond_kind k;

	*label = NULL;
	/* An architecture's SUBSET lines first: they narrow generic ones. */
	k = match(a->conds, a->nr_conds, core, negated, label, &found, true);
	if (!found)
		k = match(cond_table, ARRAY_SIZE(cond_table), core, negated,
			  label, &found, false);
	if (!found)
		k = match(a->conds, a->nr_conds, core, negated, label, &found,
			  false);
	return k;
}

enum cond_kind cond_classify_at(const char *atom, const char *guards,
			       const char **label)
{
	enum cond_kind k = cond_classify(atom, label);

	if (k == COND_RARE && guards_boot(guards)) {
		*label = "the boot phase's common path";
		return COND_OTHER;
	}
	return k;
}

/* The next atom of @p (" && "-joined), its length in *@len. */
static const char *next_atom(const char *p, size_t *len)
{
	const char *e = strstr(p, " && ");

	*len = e ? (size_t)(e - p) : strlen(p);
	return p;
}

/* Does @pred hold for an atom of " && "-joined @guards (may be NULL)? */
static bool any_atom(const char *guards,
		     bool (*pred)(const char *atom, const void *arg),
		     const void *arg)
{
	const char *p = guards;
	size_t len;

	while (p && *p) {
		char *atom;
		bool hit;

		p = next_atom(p, &len);
		atom = xstrndup(p, len);
		hit = pred(atom, arg);
		free(atom);
		if (hit)
			return true;
		p += len;
		if (!strncmp(p, " && ", 4))
			p += 4;
	}
	return false;
}

/* cond_rare()'s atom test: rare where it stands (@arg: struct rare_at). */
struct rare_at {
	const char *guards;
	const char **label;	/* the rare atom's meaning */
};

static bool atom_rare(const char *atom, const void *arg)
{
	const struct rare_at *r = arg;

	return cond_classify_at(atom, r->guards, r->label) == COND_RARE;
}

bool cond_rare(const char *guards, const char **label)
{
	const char *l = NULL;
	struct rare_at r = { guards, &l };

	if (!guards || guards_boot(guards) || !any_atom(guards, atom_rare, &r))
		return false;
	if (label)
		*label = l;
	return true;
}

static bool atom_subset(const char *atom, const void *arg)
{
	return cond_classify(atom, (const char **)arg) == COND_SUBSET;
}

bool cond_subset(const char *guards, const char **label)
{
	const char *l = NULL;

	if (!guards || !any_atom(guards, atom_subset, &l))
		return false;
	if (label)
		*label = l;
	return true;
}

const char *cond_path_mode(const char *file)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; file && i < a->nr_mode_paths; i++)
		if (!strncmp(file, a->mode_paths[i].prefix,
			     strlen(a->mode_paths[i].prefix)))
			return a->mode_paths[i].mode;
	return NULL;
}

static unsigned int cpu_only(const struct arch_cpu_only *t, size_t n,
			     const char *s)
{
	unsigned int cpus = ~0u;
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strncmp(s, t[i].prefix, strlen(t[i].prefix)))
			cpus &= t[i].cpus;
	return cpus;
}

unsigned int cond_path_cpus(const char *file)
{
	const struct arch *a = arch_current();

	return cpu_only(a->cpu_paths, a->nr_cpu_paths, file);
}

unsigned int cond_reg_cpus(const char *reg)
{
	const struct arch *a = arch_current();

	return cpu_only(a->cpu_regs, a->nr_cpu_regs, reg);
}

char *cond_cpu_names(unsigned int cpus)
{
	const struct arch *a = arch_current();
	char *out = NULL, *o;
	size_t i;

	for (i = 0; i < a->nr_cpu_names; i++) {
		if (!(cpus & (1u << i)))
			continue;
		o = xasprintf("%s%s%s", out ? out : "", out ? ", " : "",
			      a->cpu_names[i]);
		free(out);
		out = o;
	}
	return out ? out : xstrdup("none");
}

char *cond_text(const char *atom)
{
	size_t n = strlen(atom);

	if (!strncmp(atom, "<rare: ", 7) && n > 8 && atom[n - 1] == '>')
		return xstrndup(atom + 7, n - 8);
	return xstrdup(atom);
}

/*
 * The plain atom a rare one restates: "!likely(src)" -> "!src",
 * "unlikely(x)" -> "x"; NULL for a compound one.
 */
static char *restated(const char *rare)
{
	bool neg = rare[0] == '!';
	const char *p = rare + neg;
	size_t n;

	if (!strncmp(p, "likely(", 7))
		p += 7;
	else if (!strncmp(p, "unlikely(", 9))
		p += 9;
	else
		return NULL;
	n = strlen(p);
	if (!n || p[n - 1] != ')' || strstr(p, "&&") || strstr(p, "||"))
		return NULL;
	return xasprintf("%s%.*s", neg ? "!" : "", (int)n - 1, p);
}

size_t cond_atoms(const char *guards, char ***atoms)
{
	char **v = NULL, **drop = NULL;
	size_t nr = 0, alloc = 0, nd = 0, ad = 0, i, j, k = 0, len;
	const char *p = guards;

	while (p && *p) {
		p = next_atom(p, &len);
		*PUSH(v, nr, alloc) = xstrndup(p, len);
		if (!strncmp(v[nr - 1], "<rare: ", 7)) {
			char *t = cond_text(v[nr - 1]), *r = restated(t);

			if (r)
				*PUSH(drop, nd, ad) = r;
			free(t);
		}
		p += len;
		if (!strncmp(p, " && ", 4))
			p += 4;
	}
	for (i = 0; i < nr; i++) {
		bool keep = true;

		for (j = 0; j < nd && keep; j++)
			keep = strcmp(v[i], drop[j]);
		if (keep)
			v[k++] = v[i];
		else
			free(v[i]);
	}
	strv_free(drop, nd);
	*atoms = v;
	return k;
}

int cond_features_check(const char *features, char *err, size_t errlen)
{
	const char *p = features;

	for (;;) {
		const char *q = p + (*p == '!');
		size_t n = 0;

		while (ident_char(q[n]))
			n++;
		if (!n || isdigit((unsigned char)*q) ||
		    (q[n] && q[n] != ',')) {
			size_t len = strcspn(p, ",");

			snprintf(err, errlen, "--features: \"%.*s\" is not "
				 "NAME or !NAME", (int)len, p);
			return -EINVAL;
		}
		if (!q[n])
			return 0;
		p = q + n + 1;
	}
}

/* 1: @features says the machine has @name (@len bytes), 0: lacks it, -1. */
static int feature_value(const char *features, const char *name, size_t len)
{
	const char *p = features;

	while (*p) {
		bool lacks = *p == '!';
		const char *q = p + lacks;
		size_t n = strcspn(q, ",");

		if (n == len && !strncmp(q, name, len))
			return !lacks;
		p = q + n + (q[n] == ',');
	}
	return -1;
}

/* Is @atom a one-name feature test that @features says is false? */
static bool atom_ruled_out(const char *atom, const void *features)
{
	const char *label, *core = atom + (atom[0] == '!'), *open, *name;
	size_t n = 0;
	int v;

	if (cond_classify(atom, &label) != COND_FEATURE)
		return false;
	open = strchr(core, '(');
	if (!open || open == core)
		return false;
	for (name = core; name < open; name++)
		if (!ident_char(*name))
			return false;
	name = open + 1;
	while (ident_char(name[n]))
		n++;
	if (!n || strcmp(name + n, ")"))
		return false;
	v = feature_value(features, name, n);
	return v >= 0 && v == (atom[0] == '!');
}

static bool atom_feature(const char *atom, const void *unused)
{
	const char *label;

	(void)unused;
	return cond_classify(atom, &label) == COND_FEATURE;
}

bool cond_features_rule_out(const char *guards, const char *features)
{
	return features && *features &&
	       any_atom(guards, atom_ruled_out, features);
}

bool cond_has_feature(const char *guards)
{
	return any_atom(guards, atom_feature, NULL);
}
