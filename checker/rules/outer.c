// SPDX-License-Identifier: GPL-2.0
/*
 * outer.c - the outer hypervisor (--outer=kvm, the default): a read in
 * KVM host code traps only when that host is itself a guest, and then
 * only code the outer hypervisor lets run there can trap. An
 * architecture's outer.def says which conditions need which capability
 * probe; the probe's bit names and the bits the analysed tree's KVM
 * offers a nested host are facts (rows of kind ROW_BODY_WORD). A chain under
 * such a condition whose probe needs a bit KVM never offers cannot run
 * on a nested host.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

/* Is @atom one of the atoms of @guards (" && " between them)? */
static bool has_atom(const char *guards, const char *atom)
{
	size_t n = strlen(atom);
	const char *p = guards;

	while (p && (p = strstr(p, atom))) {
		if ((p == guards || (p - guards >= 4 &&
				     !strncmp(p - 4, " && ", 4))) &&
		    (!p[n] || !strncmp(p + n, " && ", 4)))
			return true;
		p += n;
	}
	return false;
}

static bool chain_has(const struct chain *c, const char *atom)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		if (c->steps[i].guards && has_atom(c->steps[i].guards, atom))
			return true;
	return false;
}

/* Does a function matching @pattern name bit @bit? */
static bool offered(const struct graph *g, const char *pattern,
		    const char *bit, bool *any)
{
	size_t i;

	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_BODY_WORD || fnmatch(pattern, r->table, 0))
			continue;
		*any = true;
		if (!strcmp(r->key, bit))
			return true;
	}
	return false;
}

/* Why line @o rules chain @c out on a nested host, or NULL. */
static char *refuse(const struct graph *g, const struct arch_outer *o)
{
	char *missing = NULL, *m;
	bool any = false, probed = false;
	size_t i;

	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_BODY_WORD || strcmp(r->table, o->probe))
			continue;
		probed = true;
		if (offered(g, o->offer, r->key, &any))
			continue;
		m = xasprintf("%s%s%s", missing ? missing : "",
			      missing ? ", " : "", r->key);
		free(missing);
		missing = m;
	}
	/* The probe or the offers not analysed: nothing known. */
	if (!probed || !any || !missing) {
		free(missing);
		return NULL;
	}
	m = xasprintf("%s needs %s(), which tests %s: KVM as the outer "
		      "hypervisor never offers %s to a nested host (%s())",
		      o->atom, o->probe, missing,
		      strchr(missing, ',') ? "them" : "it", o->offer);
	free(missing);
	return m;
}

char *outer_refusal(const struct graph *g, const struct chain *c,
		    const struct chain *others, size_t nr_others)
{
	const struct arch *a = arch_current();
	size_t i, j;

	for (i = 0; i < a->nr_outers; i++) {
		const struct arch_outer *o = &a->outers[i];
		bool all = chain_has(c, o->atom);
		char *why;

		for (j = 0; all && j < nr_others; j++)
			all = chain_has(&others[j], o->atom);
		if (!all)
			continue;
		why = refuse(g, o);
		if (why)
			return why;
	}
	return NULL;
}

static bool chain_through(const struct chain *c, const char *fn)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		if (c->steps[i].function && !strcmp(c->steps[i].function, fn))
			return true;
	return false;
}

/* @handler's definition, when its only call is to @calls; else NULL. */
static const struct gnode *only_calls(const struct graph *g,
				      const char *handler, const char *calls)
{
	size_t i, j;

	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *h = &g->nodes[i];

		if (!h->defined || strcmp(h->name, handler))
			continue;
		if (!h->nr_out)
			return NULL;
		for (j = 0; j < h->nr_out; j++) {
			const struct gedge *e = &g->edges[h->out[j]];

			if (strcmp(g->nodes[e->callee].name, calls))
				return NULL;
		}
		return h;
	}
	return NULL;
}

char *outer_guest_refusal(const struct graph *g, const struct chain *c,
			  const struct chain *others, size_t nr_others)
{
	const struct arch *a = arch_current();
	size_t i, j;

	for (i = 0; i < a->nr_guest_outers; i++) {
		const struct arch_guest_outer *o = &a->guest_outers[i];
		bool all = chain_through(c, o->through);
		const struct gnode *h;

		for (j = 0; all && j < nr_others; j++)
			all = chain_through(&others[j], o->through);
		if (!all)
			continue;
		h = only_calls(g, o->handler, o->calls);
		if (!h)
			continue;
		return xasprintf("%s() runs only %s, which never happens in "
				 "a KVM guest: KVM as the outer hypervisor "
				 "serves the request with %s() (%s:%u), which "
				 "only calls %s()", o->through, o->when,
				 o->handler, h->file, h->line, o->calls);
	}
	return NULL;
}
