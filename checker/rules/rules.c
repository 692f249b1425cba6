// SPDX-License-Identifier: GPL-2.0
/*
 * rules.c - the rule table and the engine that ties sites to roots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/graph/args.h"
#include "trapcheck/graph/reach.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

#define HOOK_yes(fn)	fn
#define HOOK_no(fn)	NULL
#define HOOK_again(fn)	fn
#define AGAIN_yes	false
#define AGAIN_no	false
#define AGAIN_again	true

static const struct rule rule_table[] = {
#define RULE(name, id_, summary_, chain_, fixes_)			\
	{ .id = id_, .summary = summary_, .check = rule_##name,		\
	  .check_chain = HOOK_##chain_(rule_##name##_chain),		\
	  .fix = HOOK_##fixes_(rule_##name##_fix),			\
	  .fix_again = AGAIN_##fixes_ },
#include "rules.def"
#undef RULE
};

size_t rules_count(void)
{
	const struct arch *a;
	size_t n = ARRAY_SIZE(rule_table), i, j;

	for (i = 0; (a = arch_at(i)); i++)
		for (j = 0; a->own_rules && a->own_rules[j].id; j++)
			n++;
	return n;
}

const struct rule *rules_at(size_t k)
{
	const struct arch *a;
	size_t i, j;

	if (k < ARRAY_SIZE(rule_table))
		return &rule_table[k];
	k -= ARRAY_SIZE(rule_table);
	for (i = 0; (a = arch_at(i)); i++)
		for (j = 0; a->own_rules && a->own_rules[j].id; j++)
			if (!k--)
				return &a->own_rules[j];
	return NULL;
}

const struct rule *rules_find(const char *id)
{
	const struct rule *r;
	size_t i;

	for (i = 0; (r = rules_at(i)); i++)
		if (!strcmp(r->id, id))
			return r;
	return NULL;
}

/* Steps for @n edges from a root, then the sink site in @func. */
/* A mode the chain implies: @mode, unless another one is implied too. */
static void add_mode(struct chain *c, const char *mode)
{
	if (!mode)
		return;
	if (c->mode && strcmp(c->mode, mode))
		c->mode_conflict = true;
	else
		c->mode = mode;
}

/*
 * When the chain runs (conditions.h): how many of its steps need a rare
 * condition (the first's meaning kept), and the mode its conditions and
 * its code imply.
 */
static void chain_when(struct chain *c)
{
	const char *label, *path = NULL;
	size_t i, j, n;
	char **atoms;

	c->rare = 0;
	c->rare_label = NULL;
	c->mode = NULL;
	c->mode_conflict = false;
	for (i = 0; i < c->len; i++) {
		const struct chain_step *st = &c->steps[i];

		if (st->rare) {
			if (!c->rare)
				cond_rare(st->guards, &c->rare_label);
			c->rare++;
		}
		/*
		 * The first code of one mode entered says which: no call
		 * leaves it for the other's. (A function built for both,
		 * VHE and nVHE, is one node, and one call site stands for
		 * all of its calls of one callee: a later step's file may
		 * be the other mode's.)
		 */
		if (!path)
			path = cond_path_mode(st->file);
		n = cond_atoms(st->guards, &atoms);
		for (j = 0; j < n; j++)
			if (cond_classify_at(atoms[j], st->guards, &label) ==
			    COND_MODE)
				add_mode(c, label);
		strv_free(atoms, n);
	}
	add_mode(c, path);
}

/* The order of a site's chains: fewest rare, fewest inferred, shortest. */
static int chain_order(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;
	unsigned int ix = 0, iy = 0;
	size_t i;

	if (x->rare != y->rare)
		return x->rare < y->rare ? -1 : 1;
	for (i = 0; i < x->len; i++)
		ix += x->steps[i].inferred;
	for (i = 0; i < y->len; i++)
		iy += y->steps[i].inferred;
	if (ix != iy)
		return ix < iy ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

static void build_chain(const struct graph *g, const int *edges, size_t n,
			const struct gsink *s, struct chain *c)
{
	size_t i;

	c->len = n + 1;
	c->steps = xcalloc(n + 1, sizeof(*c->steps));
	for (i = 0; i < n; i++) {
		const struct gedge *e = &g->edges[edges[i]];

		c->steps[i].function = g->nodes[e->caller].name;
		SITE_COPY(&c->steps[i], e);
		c->steps[i + 1].via = e->via;
		c->steps[i + 1].inferred = e->inferred;
	}
	c->steps[n].function = g->nodes[s->func].name;
	SITE_COPY(&c->steps[n], s);
	for (i = 0; i < n; i++)
		c->steps[i].rare = g->edges[edges[i]].rare;
	c->steps[n].rare = s->rare;
	chain_when(c);
}

/* How many steps back from the sink other hot callers are looked for. */
#define OTHER_CHAIN_DEPTH 3

/* A way from a function to the sink: the edges, that function first. */
struct tail {
	int node;
	int *edges;
	size_t len;
};

static bool same_edges(const int *a, size_t na, const int *b, size_t nb)
{
	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

/* Does the chain of @n edges visit a function twice (a cycle)? */
static bool loops(const struct graph *g, const int *edges, size_t n)
{
	size_t i, j;

	for (i = 0; i <= n; i++) {
		int v = i ? g->edges[edges[i - 1]].callee :
			    g->edges[edges[0]].caller;

		for (j = 0; j < i; j++) {
			int w = j ? g->edges[edges[j - 1]].callee :
				    g->edges[edges[0]].caller;

			if (v == w)
				return true;
		}
	}
	return false;
}

/* A call a chain of this reach may take into a hot function. */
static bool hot_edge(const struct graph *g, const struct reach *r, int e)
{
	int caller = g->edges[e].caller;

	return reach_has(r, caller) && !g->nodes[caller].opaque &&
	       !g->nodes[caller].cold && !g->edges[e].periodic &&
	       !(r->steady && g->edges[e].boot);
}

struct hot_ways {
	const struct graph *g;
	const struct reach *r;
};

static bool way_in(void *data, int node, int **edges, size_t *n)
{
	const struct hot_ways *h = data;

	if (!reach_has(h->r, node) || h->g->nodes[node].cold)
		return false;
	*n = reach_chain(h->g, h->r, node, edges);
	return true;
}

static bool way_edge(void *data, int e)
{
	const struct hot_ways *h = data;

	return hot_edge(h->g, h->r, e);
}

/* Does a site of the chain of @n edges or the sink hold a case atom? */
static bool edges_have_argument(const struct graph *g, const int *edges,
				size_t n, const struct gsink *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (guards_have(g->edges[edges[i]].guards, GUARD_ARGUMENT))
			return true;
	return guards_have(s->guards, GUARD_ARGUMENT);
}

/*
 * The first chain of a site whose conditions test parameters: one whose
 * constants make them hold when there is one (args.h), else one that
 * does not make them false. False: every way in makes one false.
 */
static bool pick_primary(const struct graph *g, const struct reach *r,
			 const struct gsink *s, int **primary, size_t *n,
			 enum args_verdict *v)
{
	struct hot_ways h = { .g = g, .r = r };
	struct args_ways w = { .way_in = way_in, .edge_ok = way_edge,
			       .data = &h };
	enum args_verdict a;
	int *alt;
	size_t m;

	*v = args_chain(g, *primary, *n, s);
	if (*v != ARGS_UNKNOWN && *v != ARGS_FAIL)
		return true;
	/*
	 * Not decided, and no case of a switch on a parameter to look for
	 * ("if (src)" in a root set's entry, whose arguments nobody on a
	 * chain passes): the first chain stays, in its order.
	 */
	if (*v == ARGS_UNKNOWN && !edges_have_argument(g, *primary, *n, s))
		return true;
	a = args_search(g, s, &w, &alt, &m);
	if (a == ARGS_FAIL)
		return false;
	if (alt && (a != ARGS_UNKNOWN || *v == ARGS_FAIL)) {
		free(*primary);
		*primary = alt;
		*n = m;
		*v = a;
	} else {
		free(alt);
	}
	return true;
}

/* Code that runs on a KVM host (the architecture's context.def). */
static bool nested_file(const char *file)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; file && i < a->nr_host_paths; i++)
		if (!strncmp(file, a->host_paths[i], strlen(a->host_paths[i])))
			return true;
	return false;
}

/*
 * Where the read traps: a chain that runs through KVM host or hyp code
 * executes on a host, which traps only when it is itself a guest.
 */
static bool chain_nested(const struct chain *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		if (nested_file(c->steps[i].file))
			return true;
	return false;
}

static bool fill_chains(const struct graph *g, const struct reach *r,
			const struct gsink *s, struct finding *f)
{
	struct tail *q;
	int *primary, *done[FINDING_MAX_OTHER_CHAINS];
	size_t n = reach_chain(g, r, s->func, &primary), head, nq = 1, i;
	size_t done_len[FINDING_MAX_OTHER_CHAINS], nd = 0;
	enum args_verdict v;

	if (!pick_primary(g, r, s, &primary, &n, &v)) {
		free(primary);
		return false;
	}
	q = xcalloc(64, sizeof(*q));
	f->chains = xcalloc(1, sizeof(*f->chains));
	f->nr_chains = 1;
	build_chain(g, primary, n, s, &f->chains[0]);
	f->chains[0].args_hold = v == ARGS_HOLD;
	q[0].node = s->func;
	q[0].edges = NULL;
	q[0].len = 0;

	/*
	 * The same sink entered another way: going back from the sink up to
	 * OTHER_CHAIN_DEPTH calls, every other hot caller gives one more
	 * chain (its shortest way in, then the way to the sink):
	 * cpu_has_hw_af() as arch_has_hw_pte_young() and as
	 * arch_wants_old_prefaulted_pte(), set_pte_range() from
	 * finish_fault() and from filemap_map_pages() through
	 * vm_ops->map_pages().
	 */
	for (head = 0; head < nq && f->nr_chains <= FINDING_MAX_OTHER_CHAINS;
	     head++) {
		struct tail *t = &q[head];
		const struct gnode *fn = &g->nodes[t->node];

		if (t->len >= OTHER_CHAIN_DEPTH)
			continue;
		for (i = 0; i < fn->nr_in &&
		     f->nr_chains <= FINDING_MAX_OTHER_CHAINS; i++) {
			int e = fn->in[i], caller = g->edges[e].caller;
			size_t m, j;
			bool seen = caller == s->func;
			int *alt;

			for (j = 0; j < t->len && !seen; j++)
				seen = g->edges[t->edges[j]].callee == caller;
			if (seen || !hot_edge(g, r, e))
				continue;
			m = reach_chain(g, r, caller, &alt);
			alt = xrealloc(alt, (m + 1 + t->len) * sizeof(*alt));
			alt[m] = e;
			if (t->len)
				memcpy(alt + m + 1, t->edges,
				       t->len * sizeof(*alt));
			/* A way the constants it passes rule out. */
			if (loops(g, alt, m + 1 + t->len) ||
			    args_chain(g, alt, m + 1 + t->len, s) ==
			    ARGS_FAIL) {
				free(alt);
				continue;
			}
			for (j = 0, seen = same_edges(alt, m + 1 + t->len,
						      primary, n);
			     j < nd && !seen; j++)
				seen = same_edges(alt, m + 1 + t->len, done[j],
						  done_len[j]);
			if (!seen) {
				f->chains = xrealloc(f->chains,
						     (f->nr_chains + 1) *
						     sizeof(*f->chains));
				build_chain(g, alt, m + 1 + t->len, s,
					    &f->chains[f->nr_chains++]);
				done[nd] = alt;
				done_len[nd++] = m + 1 + t->len;
			} else {
				free(alt);
			}
			/* Go on back from this caller, once per function. */
			for (j = 0; j < nq && q[j].node != caller; j++)
				;
			if (j == nq && nq < 64) {
				q[nq].node = caller;
				q[nq].len = t->len + 1;
				q[nq].edges = xmalloc(q[nq].len *
						      sizeof(*q[nq].edges));
				q[nq].edges[0] = e;
				if (t->len)
					memcpy(q[nq].edges + 1, t->edges,
					       t->len * sizeof(*t->edges));
				nq++;
			}
		}
	}
	for (i = 0; i < nq; i++)
		free(q[i].edges);
	for (i = 0; i < nd; i++)
		free(done[i]);
	free(q);
	free(primary);
	/* The other chains in order, after the shortest. */
	sort_n(f->chains + 1, f->nr_chains - 1, sizeof(*f->chains),
	       chain_order);
	for (i = 0; i < f->nr_chains; i++)
		f->chains[i].nested = chain_nested(&f->chains[i]);
	return true;
}

static struct finding *new_finding(struct findings *out,
				   const struct finding *proto,
				   const struct rule *rule,
				   const struct rule_ctx *ctx)
{
	struct finding *f = PUSH(out->v, out->nr, out->alloc);

	*f = *proto;
	f->message = xstrdup(proto->message);
	f->doubt.unless = proto->doubt.unless ? xstrdup(proto->doubt.unless) :
						NULL;
	f->rule = rule->id;
	f->site = ctx->site;
	f->fn = ctx->func;
	return f;
}

static void drop_last(struct findings *out)
{
	finding_free(&out->v[--out->nr]);
}

/*
 * The reach that explains a site for one root set: the steady one when
 * a steady path exists and the site itself is not boot-only; none for a
 * rate-limited site.
 */
static const struct reach *pick(const struct reach *steady,
				const struct reach *any,
				const struct gsink *s)
{
	if (s->periodic)
		return NULL;
	if (reach_has(steady, s->func) && !s->boot)
		return steady;
	return reach_has(any, s->func) ? any : NULL;
}

static unsigned int chain_inferred(const struct chain *c)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < c->len; i++)
		n += c->steps[i].inferred;
	return n;
}

/* A reason it does not run (a note that is sure), not a doubt? */
static bool refused(const struct finding *f)
{
	return f->doubt.no_device || f->doubt.not_in_kvm ||
	       f->doubt.not_offered || f->doubt.not_then;
}

/* Is @doubt the machine's doubt of CPU capability @cap? */
static bool doubt_of_cap(const char *doubt, const char *cap)
{
	char *at = xasprintf(", on a CPU with %s, which ", cap);
	bool yes = strstr(doubt, at) != NULL;

	free(at);
	return yes;
}

/* "(traps under T)" in @f's message becomes "(traps under T, @q)". */
static void qualify_trap(struct finding *f, const char *q)
{
	char *under = xasprintf("(traps under %s)", f->read.trap), *at, *m;

	at = strstr(f->message, under);
	if (at) {
		m = xasprintf("%.*s(traps under %s, %s)%s",
			      (int)(at - f->message), f->message,
			      f->read.trap, q, at + strlen(under));
		free(f->message);
		f->message = m;
	}
	free(under);
}

/*
 * Which of two root sets' findings of one site explains it better? A
 * site is a warning when one of them is: that one states it (a guest's
 * note, the BTS driver's read on a machine with no BTS, does not explain
 * a KVM host's warning).
 */
static bool better(const struct finding *a, const struct finding *b)
{
	bool ga = !strcmp(finding_context(a), "guest");
	bool gb = !strcmp(finding_context(b), "guest");
	const struct chain *ca = &a->chains[0], *cb = &b->chains[0];

	if (finding_low(a) != finding_low(b))
		return !finding_low(a);
	if (ga != gb)
		return ga;
	if (ca->rare != cb->rare)
		return ca->rare < cb->rare;
	/* Of notes, one that may still run tells what to check. */
	if (refused(a) != refused(b))
		return !refused(a);
	if (a->doubt.inferred != b->doubt.inferred)
		return a->doubt.inferred < b->doubt.inferred;
	if (ca->len != cb->len)
		return ca->len < cb->len;
	return finding_estimate(a) > finding_estimate(b);
}

static bool same_site(const struct finding *a, const struct finding *b)
{
	return a->rule == b->rule && a->site->line == b->site->line &&
	       a->site->col == b->site->col &&
	       !strcmp(a->site->file, b->site->file);
}

/* On a KVM host the read traps only under nested virtualisation. */
static void say_nested(struct finding *f)
{
	static const char hot[] = " on a hot path";
	const char *at = strstr(f->message, hot);
	char *m;

	if (strcmp(finding_context(f), "nested") || !at)
		return;
	m = xasprintf("%.*s on a hot path of a KVM host (traps only under "
		      "nested virtualisation)%s", (int)(at - f->message),
		      f->message, at + strlen(hot));
	free(f->message);
	f->message = m;
}

/*
 * One finding per site: the root set whose chain explains it best is the
 * finding, the others ride along in its also[] (--per-root keeps one per
 * root set). Takes @in's findings.
 */
static void group_sites(struct findings *in, struct findings *out)
{
	size_t i = 0, j, best;

	while (i < in->nr) {
		struct finding *f;

		for (j = i + 1; j < in->nr && same_site(&in->v[i], &in->v[j]);
		     j++)
			;
		for (best = i, f = &in->v[i]; f < &in->v[j]; f++)
			if (better(f, &in->v[best]))
				best = (size_t)(f - in->v);
		f = PUSH(out->v, out->nr, out->alloc);
		*f = in->v[best];
		f->nr_also = j - i - 1;
		f->also = f->nr_also ? xcalloc(f->nr_also, sizeof(*f->also)) :
				       NULL;
		for (f->nr_also = 0; i < j; i++) {
			if (i == best)
				continue;
			f->also[f->nr_also++] = in->v[i];
		}
	}
	in->nr = 0;
}


/* Per root set its REACH_WALKS walks (reach.h): steady, any, early. */
static struct reach *compute_reaches(const struct graph *g,
				     const struct root_sets *roots,
				     struct rules_stats *st)
{
	struct reach *reach = xcalloc(REACH_WALKS * roots->nr + 1,
				      sizeof(*reach));
	size_t j;

	reach_compute_sets(g, roots, reach);
	for (j = 0; st && j < roots->nr; j++)
		st->stopped += reach[REACH_WALKS * j + REACH_ANY].stopped;
	return reach;
}

/* Does a chain run only before the capabilities are finalized? */
static bool chain_early(const struct gsink *s, const struct chain *c)
{
	size_t i;

	if (guards_have(s->guards, GUARD_CAPS_UNFINALIZED))
		return true;
	for (i = 0; i < c->len; i++)
		if (guards_have(c->steps[i].guards, GUARD_CAPS_UNFINALIZED))
			return true;
	return false;
}

static void free_chains(struct finding *f)
{
	size_t i;

	for (i = 0; i < f->nr_chains; i++)
		free(f->chains[i].steps);
	free(f->chains);
	f->chains = NULL;
	f->nr_chains = 0;
}

/*
 * A boot-phase read that runs only before the capabilities are finalized
 * runs before the first process: its chains start at the entries user
 * space does not enter (the set's @early walk; none: every entry will
 * do). When only user-space entries reach it, it stays, with the reason,
 * a note. False when the early chains are refuted (args.h).
 */
static bool fit_phase(const struct graph *g, const struct reach *early,
		      const struct gsink *s, struct finding *f)
{
	if (strcmp(f->phase, "boot") || !early->parent ||
	    !chain_early(s, &f->chains[0]))
		return true;
	if (!reach_has(early, s->func)) {
		f->doubt.not_then = xasprintf(
			"it runs only before the capabilities are finalized, "
			"before the first process, and only %s's user-space "
			"entries reach it", early->set->name);
		return true;
	}
	free_chains(f);
	return fill_chains(g, early, s, f);
}

/* A RULE_ONCE finding not on a hot path: the site alone. */
static void site_alone(struct findings *all, const struct finding *proto,
		       const struct rule *rule, const struct rule_ctx *ctx)
{
	struct finding *f = new_finding(all, proto, rule, ctx);
	const struct gsink *s = ctx->site;
	struct chain *c;

	f->phase = s->boot ? "boot" : "steady";
	f->chains = xcalloc(1, sizeof(*f->chains));
	f->nr_chains = 1;
	c = &f->chains[0];
	c->len = 1;
	c->steps = xcalloc(1, sizeof(*c->steps));
	c->steps[0].function = ctx->func->name;
	c->steps[0].file = s->file;
	c->steps[0].line = s->line;
	c->steps[0].col = s->col;
	c->steps[0].guards = s->guards;
	c->nested = chain_nested(c);
}

/*
 * Does some CPU run every step of @c and have register @reg (cpus.def)?
 * When none does, @why (of @len bytes, if not NULL) says which two
 * disagree.
 */
static bool chain_cpus(const struct chain *c, const char *reg, char *why,
		       size_t len)
{
	unsigned int cpus = cond_reg_cpus(reg), here;
	const char *by = cpus != ~0u ? reg : NULL;
	char *a, *b;
	size_t i;

	for (i = 0; i < c->len; i++) {
		here = cond_path_cpus(c->steps[i].file);
		if (cpus & here) {
			/* The step that narrowed the families last. */
			if ((cpus & here) != cpus)
				by = c->steps[i].function;
			cpus &= here;
			continue;
		}
		if (why) {
			a = cond_cpu_names(cpus);
			b = cond_cpu_names(here);
			snprintf(why, len, "%s%s (%s) and %s() (%s)", by,
				 by == reg ? "" : "()", a,
				 c->steps[i].function, b);
			free(a);
			free(b);
		}
		return false;
	}
	return true;
}

/* Drops the chains of @f that no CPU runs; false when none is left. */
static bool cpus_possible(struct finding *f, char *why, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < f->nr_chains; i++) {
		if (chain_cpus(&f->chains[i], f->read.reg, i ? NULL : why,
			       len)) {
			f->chains[k++] = f->chains[i];
			continue;
		}
		free(f->chains[i].steps);
	}
	f->nr_chains = k;
	return k > 0;
}

/* One rule at one site: a finding per root set that reaches it. */
static void check_site(const struct graph *g, const struct root_sets *roots,
		       const struct reach *reach, const struct rule *rule,
		       const struct rule_ctx *ctx, struct findings *all,
		       const struct rules_opts *o, const struct machine *m,
		       struct rules_stats *st)
{
	enum rule_scope scope = RULE_PER_ROOT;
	struct finding proto = { .read.cached = -1 };
	const struct gsink *s = ctx->site;
	bool reported = false, refuted = false, no_cpu = false;
	char cpus_why[160] = "";
	size_t j;

	if (!rule->check(ctx, &proto, &scope))
		return;
	for (j = 0; j < roots->nr; j++) {
		const struct reach *w = &reach[REACH_WALKS * j];
		const struct reach *r = pick(&w[REACH_STEADY], &w[REACH_ANY],
					     s);
		struct finding *f;

		if (!r || (scope == RULE_STEADY_PER_ROOT && !r->steady))
			continue;
		f = new_finding(all, &proto, rule, ctx);
		f->root = roots->sets[j].name;
		f->phase = r->steady ? "steady" : "boot";
		if (!fill_chains(g, r, s, f) ||
		    !fit_phase(g, &w[REACH_EARLY], s, f)) {
			drop_last(all);
			refuted = true;
			continue;
		}
		/* Code (or a register) of two CPU families: never runs. */
		if (!cpus_possible(f, cpus_why, sizeof(cpus_why))) {
			drop_last(all);
			no_cpu = true;
			continue;
		}
		f->doubt.inferred = chain_inferred(&f->chains[0]);
		/* Code KVM as the outer hypervisor never lets run there. */
		if (!(o && o->outer_any) && f->chains[0].nested)
			f->doubt.not_offered = outer_refusal(
				g, &f->chains[0], f->chains + 1,
				f->nr_chains - 1, o && o->outer_nested);
		/* Code KVM never runs in its guest (PSCI as standby). */
		if (!(o && o->outer_any))
			f->doubt.not_in_kvm = outer_guest_refusal(
				g, &f->chains[0], f->chains + 1,
				f->nr_chains - 1);
		/* A register KVM makes trap only on some hosts, or never. */
		if (!(o && o->outer_any) && f->read.trap) {
			char *q, *why = outer_trap_refusal(g, f->read.reg, &q);

			if (!f->doubt.not_in_kvm)
				f->doubt.not_in_kvm = why;
			else
				free(why);
			if (q)
				qualify_trap(f, q);
			free(q);
		}
		/* A driver no device of the guest's machine binds. */
		f->doubt.no_device = machine_refusal(m, g, &roots->sets[j],
						     &f->chains[0],
						     f->chains + 1,
						     f->nr_chains - 1,
						     &f->doubt.machine_doubt);
		/* A CPU capability KVM never, or only on some hosts, offers. */
		if (!(o && o->outer_any)) {
			const char *cap;
			char *q, *why = outer_cpu_refusal(g, &f->chains[0],
							  f->chains + 1,
							  f->nr_chains - 1, &q,
							  &cap);

			if (!f->doubt.not_in_kvm)
				f->doubt.not_in_kvm = why;
			else
				free(why);
			/* Only after the doubt of the same capability. */
			if (q && f->doubt.machine_doubt &&
			    doubt_of_cap(f->doubt.machine_doubt, cap)) {
				char *d = xasprintf("%s; %s",
						    f->doubt.machine_doubt, q);

				free(f->doubt.machine_doubt);
				f->doubt.machine_doubt = d;
			}
			free(q);
		}
		/* A rare branch only, the others: notes (finding_low()). */
		estimate_finding(f, &roots->sets[j]);
		if (rule->check_chain &&
		    !rule->check_chain(ctx, f, &roots->sets[j])) {
			drop_last(all);
			continue;
		}
		reported = true;
		if (scope == RULE_ONCE)
			break;
	}
	/* A RULE_ONCE site is reported alone below: not counted. */
	if (no_cpu && !reported && st && scope != RULE_ONCE) {
		if (st->nr_cpu_refuted_ex < RULES_REFUTED_EXAMPLES)
			snprintf(st->cpu_refuted_ex[st->nr_cpu_refuted_ex++],
				 sizeof(st->cpu_refuted_ex[0]),
				 "%s:%u in %s(): %s", s->file, s->line,
				 ctx->func->name, cpus_why);
		st->cpu_refuted++;
		refuted = false;
	}
	if (refuted && !reported && st) {
		if (st->nr_refuted_ex < RULES_REFUTED_EXAMPLES)
			snprintf(st->refuted_ex[st->nr_refuted_ex++],
				 sizeof(st->refuted_ex[0]), "%s:%u in %s()",
				 s->file, s->line, ctx->func->name);
		st->args_refuted++;
	}
	if (scope == RULE_ONCE && !reported)
		site_alone(all, &proto, rule, ctx);
	free(proto.message);
	free(proto.doubt.unless);
}

/* One finding per site (or per root set), warnings and notes apart. */
static void sort_out(struct findings *all, const struct rules_opts *o,
		     struct findings *out, struct findings *low)
{
	struct findings grouped = { 0 };
	size_t i;

	if (o && o->per_root) {
		grouped = *all;
		memset(all, 0, sizeof(*all));
	} else {
		sort_n(all->v, all->nr, sizeof(*all->v), finding_site_cmp);
		group_sites(all, &grouped);
	}
	findings_free(all);
	for (i = 0; i < grouped.nr; i++) {
		struct finding *f = &grouped.v[i];

		say_nested(f);
		if (finding_low(f) && !(o && o->all_chains) && low)
			*PUSH(low->v, low->nr, low->alloc) = *f;
		else
			*PUSH(out->v, out->nr, out->alloc) = *f;
	}
	free(grouped.v);
	findings_sort(out);
	if (low)
		findings_sort(low);
}

void rules_run(const struct graph *g, const struct root_sets *roots,
	       const struct rules_opts *o, struct findings *out,
	       struct findings *low, struct rules_stats *st)
{
	struct reach *reach = compute_reaches(g, roots, st);
	const struct rule *own = arch_current()->own_rules;
	struct findings all = { 0 };
	struct machine m;
	size_t i, j, k;

	machine_init(&m, g, o ? o->machine : NULL);
	for (i = 0; i < g->nr_sinks; i++) {
		const struct gsink *s = &g->sinks[i];
		struct rule_ctx ctx = {
			.graph = g,
			.site = s,
			.def = sink_at(s->sink),
			.func = &g->nodes[s->func],
		};

		for (k = 0; k < ARRAY_SIZE(rule_table); k++)
			check_site(g, roots, reach, &rule_table[k], &ctx,
				   &all, o, &m, st);
		for (k = 0; own && own[k].id; k++)
			check_site(g, roots, reach, &own[k], &ctx, &all, o,
				   &m, st);
	}
	machine_free(&m);
	for (j = 0; j < REACH_WALKS * roots->nr; j++)
		reach_free(&reach[j]);
	free(reach);
	sort_out(&all, o, out, low);
}
