// SPDX-License-Identifier: GPL-2.0
/*
 * args.c - constants carried along chains (args.h). A call passes a
 * constant or its caller's parameter (gedge.consts, one variant per site
 * that differs); a function's parameters are named in gnode.params, "~"
 * marking one its body changes. A callee's parameter may have the values
 * the sites of the call pass (a site that passes nothing known adds "not
 * known"). A condition on a parameter ("src", "!src", "reg==3",
 * "<argument reg is CSSELR_EL1 (12)>") holds when one of them makes it
 * true (some site passes it: the chain runs), fails when none can, and
 * is not decided otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/graph/args.h"
#include "trapcheck/base/util.h"

/* Parameters past this many are not followed. */
#define ARGS_PARAMS_MAX 16
/* Values of one parameter, at most; more are a value not known. */
#define ARGS_VALUES_MAX 8

/* One value a parameter may have. */
struct one {
	long long v;
	const char *name;	/* as written, or NULL: a literal */
	size_t name_len;
};

/*
 * The values a parameter may have on entry: one per site that passes a
 * known one, and whether some site passes one not known.
 */
struct value {
	struct one v[ARGS_VALUES_MAX];
	size_t n;
	bool unknown;
};

/* The parameters of a function: names (not NUL-ended) and changes. */
struct params {
	const char *name[ARGS_PARAMS_MAX];
	size_t len[ARGS_PARAMS_MAX];
	bool changed[ARGS_PARAMS_MAX];
	size_t n;
};

static void params_of(const struct gnode *fn, struct params *p)
{
	const char *s = fn->params;

	p->n = 0;
	while (s && p->n < ARGS_PARAMS_MAX) {
		const char *end = strchr(s, ',');
		size_t l = end ? (size_t)(end - s) : strlen(s);

		p->changed[p->n] = l && *s == '~';
		p->name[p->n] = s + p->changed[p->n];
		p->len[p->n] = l - p->changed[p->n];
		p->n++;
		s = end ? end + 1 : NULL;
	}
}

static int param_named(const struct params *p, const char *s, size_t l)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->len[i] == l && l && !strncmp(p->name[i], s, l))
			return (int)i;
	return -1;
}

/* "12", "0x1fUL", "-1": a number and nothing else. */
static bool number(const char *s, size_t l, long long *v)
{
	char buf[32], *end;

	if (!l || l >= sizeof(buf))
		return false;
	memcpy(buf, s, l);
	buf[l] = '\0';
	*v = strtoll(buf, &end, 0);
	if (end == buf)
		return false;
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return !*end;
}

static void add_one(struct value *to, const struct one *o)
{
	size_t i;

	for (i = 0; i < to->n; i++)
		if (to->v[i].v == o->v)
			return;
	if (to->n == ARGS_VALUES_MAX)
		to->unknown = true;
	else
		to->v[to->n++] = *o;
}

/*
 * Add what one site's "k=#12:NAME" or "k=$j" (@variant, @vlen long) says
 * of parameter @k to @to: nothing said is a value not known.
 */
static void add_site(struct value *to, const char *variant, size_t vlen,
		     size_t k, const struct value *caller,
		     const struct params *cp)
{
	const char *p = variant, *end = variant + vlen;
	size_t i;

	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;
		char *after;
		unsigned long idx = strtoul(p, &after, 10);

		if (after < stop && *after == '=' && idx == k) {
			struct one o = { 0 };
			const char *colon;
			unsigned long j;

			switch (after[1]) {
			case '$':
				j = strtoul(after + 2, NULL, 10);
				if (j >= cp->n || cp->changed[j]) {
					to->unknown = true;
					return;
				}
				for (i = 0; i < caller[j].n; i++)
					add_one(to, &caller[j].v[i]);
				to->unknown |= caller[j].unknown;
				return;
			case '#':
				o.v = strtoll(after + 2, NULL, 10);
				colon = memchr(after, ':', (size_t)(stop - after));
				if (colon) {
					o.name = colon + 1;
					o.name_len = (size_t)(stop - colon - 1);
				}
				add_one(to, &o);
				return;
			default:
				break;
			}
		}
		p = stop + 1;
	}
	to->unknown = true;
}

/* The values the callee of @e is entered with, from its caller's. */
static void enter(const struct graph *g, const struct gedge *e,
		  const struct value *caller, struct value *callee)
{
	struct params cp, ep;
	const char *all = e->consts ? e->consts : "";
	size_t k;

	params_of(&g->nodes[e->caller], &cp);
	params_of(&g->nodes[e->callee], &ep);
	for (k = 0; k < ep.n; k++) {
		const char *p = all;

		callee[k].n = 0;
		callee[k].unknown = false;
		for (;;) {
			const char *bar = strchr(p, '|');
			size_t l = bar ? (size_t)(bar - p) : strlen(p);

			add_site(&callee[k], p, l, k, caller, &cp);
			if (!bar)
				break;
			p = bar + 1;
		}
	}
}

/*
 * A test of one value: @op '=' (==), '!' (!=), 't' (true), 'f' (false);
 * for == and !=, @want or, @wname not NULL, a name. 1 true, 0 false,
 * -1 not decided (two names).
 */
static int test_one(const struct one *o, char op, long long want,
		    const char *wname, size_t wlen)
{
	int eq;

	switch (op) {
	case 't':
		return o->v != 0;
	case 'f':
		return o->v == 0;
	default:
		break;
	}
	if (wname) {
		if (!o->name || o->name_len != wlen ||
		    strncmp(o->name, wname, wlen))
			return -1;
		eq = 1;
	} else {
		eq = o->v == want;
	}
	return op == '=' ? eq : !eq;
}

/* Over every value @val may have: 1 one makes it true, 0 none can. */
static int test(const struct value *val, bool changed, char op,
		long long want, const char *wname, size_t wlen)
{
	bool undecided = val->unknown || changed;
	size_t i;

	if (changed)
		return -1;
	for (i = 0; i < val->n; i++) {
		int r = test_one(&val->v[i], op, want, wname, wlen);

		if (r == 1)
			return 1;
		undecided |= r < 0;
	}
	return undecided ? -1 : 0;
}

/*
 * One atom in the function with parameters @p and values @val: 1 a way
 * in passes values that make it true, 0 none does, -1 not decided, -2
 * not a condition on a parameter.
 */
static int atom_value(const char *a, size_t l, const struct params *p,
		      const struct value *val)
{
	static const char arg[] = "<argument ";
	const char *is, *op;
	bool neg = false;
	long long want;
	int i, r;

	if (l > sizeof(arg) && !strncmp(a, arg, sizeof(arg) - 1)) {
		const char *name = a + sizeof(arg) - 1, *open;

		is = strstr(name, " is ");
		if (!is || is > a + l)
			return -1;
		i = param_named(p, name, (size_t)(is - name));
		if (i < 0)
			return -1;
		open = a + l - 2;
		while (open > is && *open != '(')
			open--;
		if (open > is && a[l - 2] == ')' &&
		    number(open + 1, (size_t)(a + l - 2 - open - 1), &want))
			return test(&val[i], p->changed[i], '=', want, NULL,
				    0);
		is += 4;
		return test(&val[i], p->changed[i], '=', 0, is,
			    (size_t)(a + l - 1 - is));
	}
	if (*a == '<')
		return -2;
	if (*a == '!') {
		neg = true;
		a++;
		l--;
	}
	op = NULL;
	for (is = a; is + 1 < a + l && !op; is++)
		if ((is[0] == '=' || is[0] == '!') && is[1] == '=')
			op = is;
	i = param_named(p, a, op ? (size_t)(op - a) : l);
	if (i < 0)
		return -2;
	if (!op)
		return test(&val[i], p->changed[i], neg ? 'f' : 't', 0, NULL,
			    0);
	/* !(p == x) is p != x. */
	if (number(op + 2, (size_t)(a + l - op - 2), &want))
		r = test(&val[i], p->changed[i], (op[0] == '=') != neg ?
			 '=' : '!', want, NULL, 0);
	else
		r = test(&val[i], p->changed[i], (op[0] == '=') != neg ?
			 '=' : '!', 0, op + 2, (size_t)(a + l - op - 2));
	return r;
}

/* Fold the atoms of @guards into *@v. */
static void judge(const char *guards, const struct params *p,
		  const struct value *val, enum args_verdict *v)
{
	const char *s = guards;

	while (s && *s) {
		const char *end = strstr(s, " && ");
		size_t l = end ? (size_t)(end - s) : strlen(s);
		int r = atom_value(s, l, p, val);

		if (r == 0)
			*v = ARGS_FAIL;
		else if (r == -1 && *v != ARGS_FAIL)
			*v = ARGS_UNKNOWN;
		else if (r == 1 && *v == ARGS_NONE)
			*v = ARGS_HOLD;
		s = end ? end + 4 : NULL;
	}
}

enum args_verdict args_chain(const struct graph *g, const int *edges,
			     size_t n, const struct gsink *s)
{
	struct value cur[ARGS_PARAMS_MAX], next[ARGS_PARAMS_MAX];
	enum args_verdict v = ARGS_NONE;
	struct params p;
	size_t i;

	/* The first function is entered with nothing known. */
	for (i = 0; i < ARGS_PARAMS_MAX; i++) {
		cur[i].n = 0;
		cur[i].unknown = true;
	}
	for (i = 0; i < n; i++) {
		const struct gedge *e = &g->edges[edges[i]];

		params_of(&g->nodes[e->caller], &p);
		judge(e->guards, &p, cur, &v);
		enter(g, e, cur, next);
		memcpy(cur, next, sizeof(cur));
	}
	params_of(&g->nodes[s->func], &p);
	judge(s->guards, &p, cur, &v);
	return v;
}

/* States args_search() looks at, calls back, ways through one function. */
#define SEARCH_STATES_MAX	512
#define SEARCH_DEPTH_MAX	8
#define SEARCH_VISITS_MAX	4

struct way {
	int node;
	int *edges;		/* node to the sink's function */
	size_t len;
};

/* Does the way of @n edges visit a function twice? */
static bool cycles(const struct graph *g, const int *edges, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j <= i; j++)
			if (g->edges[edges[i]].callee ==
			    g->edges[edges[j]].caller)
				return true;
	return false;
}

static bool visits(const struct graph *g, const int *edges, size_t n,
		   int node)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g->edges[edges[i]].caller == node ||
		    g->edges[edges[i]].callee == node)
			return true;
	return false;
}

enum args_verdict args_search(const struct graph *g, const struct gsink *s,
			      const struct args_ways *w, int **out,
			      size_t *n)
{
	struct way *q = xcalloc(SEARCH_STATES_MAX, sizeof(*q));
	unsigned char *seen = xcalloc(g->nr_nodes, 1);
	enum args_verdict best = ARGS_FAIL;
	size_t nq = 1, head, i;
	bool cut = false, found = false;

	*out = NULL;
	*n = 0;
	q[0].node = s->func;
	for (head = 0; head < nq && !found; head++) {
		struct way *t = &q[head];
		const struct gnode *fn = &g->nodes[t->node];
		enum args_verdict tail = args_chain(g, t->edges, t->len, s);
		int *full = NULL;
		size_t m;

		if (tail == ARGS_FAIL)
			continue;
		if (!w->way_in(w->data, t->node, &full, &m))
			continue;
		full = xrealloc(full, (m + t->len + 1) * sizeof(*full));
		if (t->len)
			memcpy(full + m, t->edges, t->len * sizeof(*full));
		if (!cycles(g, full, m + t->len)) {
			enum args_verdict v = args_chain(g, full, m + t->len,
							 s);

			/* No condition left undecided: as good as holding. */
			found = v == ARGS_HOLD || v == ARGS_NONE;
			if (found || (v == ARGS_UNKNOWN && best == ARGS_FAIL)) {
				free(*out);
				*out = full;
				*n = m + t->len;
				best = v;
				full = NULL;
			}
		}
		free(full);
		if (t->len >= SEARCH_DEPTH_MAX) {
			cut = true;
			continue;
		}
		for (i = 0; i < fn->nr_in; i++) {
			int e = fn->in[i], caller = g->edges[e].caller;
			struct way *b;

			if (caller == s->func ||
			    visits(g, t->edges, t->len, caller) ||
			    !w->edge_ok(w->data, e))
				continue;
			/*
			 * A function met on more ways than this is not
			 * looked at again: a way through it may hold, so
			 * the search is cut short, never refuted.
			 */
			if (seen[caller] >= SEARCH_VISITS_MAX) {
				cut = true;
				continue;
			}
			if (nq == SEARCH_STATES_MAX) {
				cut = true;
				break;
			}
			seen[caller]++;
			b = &q[nq++];
			b->node = caller;
			b->len = t->len + 1;
			b->edges = xmalloc(b->len * sizeof(*b->edges));
			b->edges[0] = e;
			if (t->len)
				memcpy(b->edges + 1, t->edges,
				       t->len * sizeof(*t->edges));
		}
	}
	for (i = 0; i < nq; i++)
		free(q[i].edges);
	free(q);
	free(seen);
	/* Cut short: a way not looked at may hold. */
	if (best == ARGS_FAIL && cut)
		best = ARGS_UNKNOWN;
	return best;
}
