// SPDX-License-Identifier: GPL-2.0
/*
 * outer.c - the outer hypervisor (--outer=kvm, the default): a read in
 * KVM host code traps only when that host is itself a guest, and then
 * only code the outer hypervisor lets run there can trap. An
 * architecture's outer.def says which conditions need which capability
 * probe; the probe's bit names and the bits the analysed tree's KVM
 * offers a nested host are facts (rows of kind ROW_BODY_WORD). A chain under
 * such a condition whose probe needs a bit KVM never offers cannot run
 * on a nested host; nor can any chain when the analysed tree's KVM never
 * runs a nested host (outer.def's NESTING lines).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
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

static char *refuse_set(const struct graph *g, const struct arch_outer *o);

/* Why line @o rules chain @c out on a nested host, or NULL. */
static char *refuse(const struct graph *g, const struct arch_outer *o)
{
	char *missing = NULL, *m;
	bool any = false, probed = false;
	size_t i;

	if (o->clear)
		return refuse_set(g, o);
	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_BODY_WORD || strcmp(r->table, o->probe) ||
		    fnmatch(o->bits, r->key, 0))
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

/* Is function @name defined in the graph? */
static const struct gnode *defined(const struct graph *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nr_nodes; i++)
		if (g->nodes[i].defined && !strcmp(g->nodes[i].name, name))
			return &g->nodes[i];
	return NULL;
}

/*
 * Macro @name's value in the analysed tree, when it is a plain number
 * (ROW_MACRO rows): true and *@v; *@seen says whether it is defined.
 */
static bool macro_value(const struct graph *g, const char *name, long *v,
			bool *seen)
{
	bool known = false;
	long n;
	size_t i;
	char *end;

	*seen = false;
	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_MACRO || strcmp(r->key, name))
			continue;
		*seen = true;
		if (!r->v[0] || !*r->v[0])
			return false;
		n = strtol(r->v[0], &end, 0);
		if (end == r->v[0])
			return false;
		/* 7, 7U, 7UL: a number; anything else is not known. */
		while (*end == 'U' || *end == 'u' || *end == 'L' ||
		       *end == 'l')
			end++;
		/* Two definitions that differ: not known either. */
		if (*end || (known && n != *v))
			return false;
		*v = n;
		known = true;
	}
	return known;
}

/*
 * Why the analysed tree's KVM never runs a nested host (NESTING lines),
 * so that no KVM host code runs on a host that is its guest; or NULL
 * when it can, or when its KVM is not analysed (the check or the limit
 * unknown).
 */
static char *refuse_nesting(const struct graph *g)
{
	const struct arch *a = arch_current();
	const struct gnode *chk;
	long limit, bit;
	bool seen;
	size_t i;

	for (i = 0; i < a->nr_nestings; i++) {
		const struct arch_nesting *e = &a->nestings[i];

		/* The first line whose check the tree defines decides. */
		chk = defined(g, e->check);
		if (!chk)
			continue;
		if (!macro_value(g, e->limit, &limit, &seen))
			return NULL;
		if (!macro_value(g, e->feature, &bit, &seen)) {
			if (seen)
				return NULL;
			return xasprintf("KVM as the outer hypervisor never "
					 "runs %s, which a nested host is: "
					 "the analysed tree's KVM has no %s, "
					 "and %s() (%s:%u) refuses every vCPU "
					 "feature from %s (%ld) on", e->what,
					 e->feature, e->check, chk->file,
					 chk->line, e->limit, limit);
		}
		if (bit >= 0 && bit < limit)
			return NULL;
		return xasprintf("KVM as the outer hypervisor never runs %s, "
				 "which a nested host is: the analysed tree's "
				 "%s (%ld) is not below %s (%ld), and %s() "
				 "(%s:%u) refuses a vCPU with it", e->what,
				 e->feature, bit, e->limit, limit, e->check,
				 chk->file, chk->line);
	}
	return NULL;
}

char *outer_refusal(const struct graph *g, const struct chain *c,
		    const struct chain *others, size_t nr_others,
		    bool runs_nested)
{
	const struct arch *a = arch_current();
	bool all_nested = c->nested;
	size_t i, j;
	char *none;

	/* No nested host at all: only when every chain runs on one. */
	for (j = 0; all_nested && j < nr_others; j++)
		all_nested = others[j].nested;
	none = all_nested && !runs_nested ? refuse_nesting(g) : NULL;
	if (none)
		return none;
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

/*
 * When KVM makes a guest's read of a register trap: the conditions under
 * which its setter names the trap bit (TRAP_SET lines, rows of kind
 * ROW_BODY_WORD with the guards in v[0]), evaluated for a guest of the
 * analysed kernel on a common host (HOST lines). An atom neither
 * decides is the host's: its value is unknown.
 */
enum tv { TV_FALSE, TV_TRUE, TV_HOST };

#define MAX_HOST_ATOMS 4

struct eval {
	const struct graph *g;
	char *unknown[MAX_HOST_ATOMS];	/* the host's atoms met */
	size_t nr_unknown;
	bool more;			/* more than MAX_HOST_ATOMS */
	bool assume;			/* the unknown[] have values: */
	unsigned int values;		/* bit k: unknown[k] holds */
	char *why;			/* what decided atoms, "; "-joined */
};

static void add_why(struct eval *e, const char *why)
{
	char *old = e->why;

	if (old && strstr(old, why))
		return;
	e->why = xasprintf("%s%s%s", old ? old : "", old ? "; " : "", why);
	free(old);
}

/* The argument of a one-argument call "f(ARG)", a new string, or NULL. */
static char *call_arg(const char *leaf)
{
	const char *open = strchr(leaf, '('), *close;

	if (!open)
		return NULL;
	close = strchr(open, ')');
	if (!close || close[1] || strchr(open + 1, '(') || strchr(open, ','))
		return NULL;
	return xstrndup(open + 1, (size_t)(close - open - 1));
}

/* Is @cap an entry of table @table of the analysed tree? */
static bool in_table(const struct graph *g, const char *table,
		     const char *cap)
{
	size_t i;

	for (i = 0; i < g->nr_rows; i++)
		if (g->rows[i].table && !strcmp(g->rows[i].table, table) &&
		    g->rows[i].key && !strcmp(g->rows[i].key, cap))
			return true;
	return false;
}

static enum tv leaf_value(struct eval *e, const char *leaf)
{
	const struct arch *a = arch_current();
	const char *label;
	char *arg;
	size_t i;

	for (i = 0; e->assume && i < e->nr_unknown; i++)
		if (!strcmp(e->unknown[i], leaf))
			return e->values & (1u << i) ? TV_TRUE : TV_FALSE;
	for (i = 0; i < a->nr_host_atoms; i++) {
		const struct arch_host_atom *h = &a->host_atoms[i];

		if (!strncmp(h->pattern, "table:", 6) || !strstr(leaf, h->pattern))
			continue;
		add_why(e, h->why);
		return h->value ? TV_TRUE : TV_FALSE;
	}
	arg = cond_classify(leaf, &label) == COND_FEATURE ? call_arg(leaf) :
							     NULL;
	for (i = 0; arg && i < a->nr_host_atoms; i++) {
		const struct arch_host_atom *h = &a->host_atoms[i];
		char *why;

		if (strncmp(h->pattern, "table:", 6) ||
		    !in_table(e->g, h->pattern + 6, arg))
			continue;
		why = xasprintf("%s is %s", arg, h->why);
		add_why(e, why);
		free(why);
		free(arg);
		return h->value ? TV_TRUE : TV_FALSE;
	}
	free(arg);
	for (i = 0; i < e->nr_unknown; i++)
		if (!strcmp(e->unknown[i], leaf))
			return TV_HOST;
	if (e->nr_unknown < MAX_HOST_ATOMS)
		e->unknown[e->nr_unknown++] = xstrdup(leaf);
	else
		e->more = true;
	return TV_HOST;
}

static enum tv tv_not(enum tv v)
{
	return v == TV_HOST ? v : v == TV_TRUE ? TV_FALSE : TV_TRUE;
}

static enum tv eval_or(struct eval *e, const char **p);

static void skip_space(const char **p)
{
	while (**p == ' ')
		(*p)++;
}

/* A leaf: up to a "&&", "||" or ")" outside its own parentheses. */
static enum tv eval_leaf(struct eval *e, const char **p)
{
	const char *s = *p;
	int depth = 0;
	enum tv v;
	char *leaf;
	size_t n;

	for (; **p; (*p)++) {
		if (!depth && (!strncmp(*p, "&&", 2) || !strncmp(*p, "||", 2) ||
			       **p == ')'))
			break;
		depth += **p == '(';
		depth -= **p == ')';
	}
	n = (size_t)(*p - s);
	while (n && s[n - 1] == ' ')
		n--;
	leaf = xstrndup(s, n);
	v = leaf_value(e, leaf);
	free(leaf);
	return v;
}

static enum tv eval_unary(struct eval *e, const char **p)
{
	enum tv v;

	skip_space(p);
	if (**p == '!' && (*p)[1] != '=') {
		(*p)++;
		return tv_not(eval_unary(e, p));
	}
	if (**p != '(')
		return eval_leaf(e, p);
	(*p)++;
	v = eval_or(e, p);
	skip_space(p);
	if (**p == ')')
		(*p)++;
	return v;
}

static enum tv eval_and(struct eval *e, const char **p)
{
	enum tv v = eval_unary(e, p), w;

	for (skip_space(p); !strncmp(*p, "&&", 2); skip_space(p)) {
		*p += 2;
		w = eval_unary(e, p);
		if (v == TV_FALSE || w == TV_FALSE)
			v = TV_FALSE;
		else if (v == TV_HOST || w == TV_HOST)
			v = TV_HOST;
	}
	return v;
}

static enum tv eval_or(struct eval *e, const char **p)
{
	enum tv v = eval_and(e, p), w;

	for (skip_space(p); !strncmp(*p, "||", 2); skip_space(p)) {
		*p += 2;
		w = eval_and(e, p);
		if (v == TV_TRUE || w == TV_TRUE)
			v = TV_TRUE;
		else if (v == TV_HOST || w == TV_HOST)
			v = TV_HOST;
	}
	return v;
}

/* The row where KVM's setter @setter names @bit; *@analysed: any setter. */
static const struct grow *setter_row(const struct graph *g,
				     const char *setter, const char *bit,
				     bool *analysed)
{
	size_t i;

	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_BODY_WORD || fnmatch(setter, r->table, 0))
			continue;
		*analysed = true;
		if (!strcmp(r->key, bit))
			return r;
	}
	return NULL;
}

/* Does KVM make @reg trap, any of its lines holding? */
static enum tv reg_traps(struct eval *e, const char *reg, bool *analysed,
			 const struct grow **first)
{
	const struct arch *a = arch_current();
	enum tv v = TV_FALSE, w;
	size_t i;

	for (i = 0; i < a->nr_trap_sets; i++) {
		const struct arch_trap_set *t = &a->trap_sets[i];
		const struct grow *r;
		const char *p;

		if (strcmp(t->reg, reg))
			continue;
		r = setter_row(e->g, t->setter, t->bit, analysed);
		if (!r)
			continue;
		if (!*first)
			*first = r;
		p = r->v[0] ? r->v[0] : "";
		w = *p ? eval_or(e, &p) : TV_TRUE;
		if (w == TV_TRUE || v == TV_TRUE)
			v = TV_TRUE;
		else if (w == TV_HOST)
			v = TV_HOST;
	}
	return v;
}

/* "ARM64_HAS_EVT" for "cpus_have_final_cap(ARM64_HAS_EVT)", or the atom. */
static char *host_name(const char *leaf)
{
	const char *label;
	char *arg = cond_classify(leaf, &label) == COND_FEATURE ?
		    call_arg(leaf) : NULL;

	return arg ? arg : xstrdup(leaf);
}

char *outer_trap_refusal(const struct graph *g, const char *reg,
			 char **qualifier)
{
	struct eval e = { .g = g };
	const struct grow *first = NULL;
	bool analysed = false, all_true = true, all_false = true;
	char *why = NULL, *name;
	unsigned int combo, n;
	int decider = -1;
	enum tv v;
	size_t i, k;

	*qualifier = NULL;
	for (i = 0; reg && i < arch_current()->nr_trap_sets; i++)
		if (!strcmp(arch_current()->trap_sets[i].reg, reg))
			break;
	if (!reg || i == arch_current()->nr_trap_sets)
		return NULL;
	v = reg_traps(&e, reg, &analysed, &first);
	if (!analysed || v == TV_TRUE)
		goto out;
	/* The host decides: try each of its answers. */
	if (v == TV_HOST && !e.more) {
		n = 1u << e.nr_unknown;
		e.assume = true;
		for (combo = 0; combo < n; combo++) {
			e.values = combo;
			v = reg_traps(&e, reg, &analysed, &first);
			all_true &= v == TV_TRUE;
			all_false &= v == TV_FALSE;
		}
		/* One atom whose answer alone decides it? */
		for (k = 0; k < e.nr_unknown && !all_true && !all_false &&
			    decider < 0; k++) {
			bool with = true, without = true, t, b;

			for (combo = 0; combo < n; combo++) {
				e.values = combo;
				t = reg_traps(&e, reg, &analysed, &first) ==
				    TV_TRUE;
				b = combo & (1u << k);
				with &= t == b;
				without &= t == !b;
			}
			if (!with && !without)
				continue;
			decider = (int)k;
			name = host_name(e.unknown[k]);
			*qualifier = xasprintf("which KVM sets for a guest on "
					       "a host %s %s: %s:%u",
					       with ? "with" : "without", name,
					       first->file, first->line);
			free(name);
		}
		e.assume = false;
		if (all_true || decider >= 0)
			goto out;
		if (all_false)
			v = TV_FALSE;
	}
	if (v == TV_FALSE) {
		if (first)
			why = xasprintf("KVM as the outer hypervisor makes %s "
					"trap only when %s() sets %s, under %s "
					"(%s:%u), never in a guest of this "
					"kernel on a common host: %s",
					reg, first->table, first->key,
					first->v[0] ? first->v[0] : "-",
					first->file ? first->file : "?",
					first->line, e.why ? e.why : "-");
		else
			why = xasprintf("KVM as the outer hypervisor never "
					"makes %s trap: no setter of the "
					"analysed tree sets a bit that traps "
					"it", reg);
		goto out;
	}
	if (first)
		*qualifier = xasprintf("which KVM sets for a guest when %s: "
				       "%s:%u", first->v[0] ? first->v[0] : "-",
				       first->file ? first->file : "?",
				       first->line);
out:
	for (i = 0; i < e.nr_unknown; i++)
		free(e.unknown[i]);
	free(e.why);
	return why;
}

/*
 * OUTER_SET lines: the code needs @o->bits clear, and KVM's offer
 * function names it. Each row where it does: through a mask of the
 * host's bits (v2, the mask's name) it depends on the host; written
 * itself, under guards that the HOST lines decide. Set on a common host
 * when any such row holds there.
 */
static char *refuse_set(const struct graph *g, const struct arch_outer *o)
{
	struct eval e = { .g = g };
	const struct grow *hit = NULL;
	bool probed = false;
	char *why = NULL;
	const char *p;
	size_t i, k;

	for (i = 0; i < g->nr_rows && !probed; i++)
		probed = g->rows[i].kind == ROW_BODY_WORD &&
			 !strcmp(g->rows[i].table, o->probe) &&
			 !strcmp(g->rows[i].key, o->bits);
	if (!probed)
		return NULL;
	for (i = 0; i < g->nr_rows && !hit; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_BODY_WORD ||
		    fnmatch(o->offer, r->table, 0) ||
		    strcmp(r->key, o->bits) || r->v[1])
			continue;
		/* Each row's guards on their own: its reasons only. */
		for (k = 0; k < e.nr_unknown; k++)
			free(e.unknown[k]);
		free(e.why);
		e = (struct eval){ .g = g };
		p = r->v[0] ? r->v[0] : "";
		if (!*p || eval_or(&e, &p) == TV_TRUE)
			hit = r;
	}
	if (hit)
		why = xasprintf("%s needs %s() to find %s clear: KVM as the "
				"outer hypervisor sets it for a nested host "
				"(%s(), %s:%u%s%s%s%s)", o->atom, o->probe,
				o->bits, hit->table,
				hit->file ? hit->file : "?", hit->line,
				hit->v[0] ? ", when " : "",
				hit->v[0] ? hit->v[0] : "",
				e.why ? ": " : "", e.why ? e.why : "");
	for (i = 0; i < e.nr_unknown; i++)
		free(e.unknown[i]);
	free(e.why);
	return why;
}

/* FALSE, then the host's, then TRUE: how far a bit is offered. */
static int tv_rank(enum tv v)
{
	return v == TV_TRUE ? 2 : v == TV_HOST ? 1 : 0;
}

/*
 * Is row @r one of @n's: written in the function @n, not in another
 * function of the same name (a static one of another file)? A row with
 * no place is taken by its name.
 */
static bool row_of(const struct grow *r, const struct gnode *n)
{
	return !strcmp(r->table, n->name) &&
	       (!r->file || !n->file || !strcmp(r->file, n->file));
}

/*
 * Does @fn take @bit away in an unconditional OFFER_CLEAR (a flagged row
 * without guards) after line @line, column @col?
 */
static bool cleared_after(const struct graph *g, const struct gnode *fn,
			  const char *bit, unsigned int line, unsigned int col)
{
	size_t i;

	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind == ROW_BODY_WORD && r->flag &&
		    row_of(r, fn) && !strcmp(r->key, bit) &&
		    (!r->v[0] || !*r->v[0]) &&
		    (r->line > line || (r->line == line && r->num > col)))
			return true;
	}
	return false;
}

/*
 * Does @file match @pattern (fnmatch(3)) from its start or from the
 * start of one of its directories? "arch/x86/kvm/vmx/vmx.c" matches
 * "/src/arch/x86/kvm/vmx/vmx.c" and "arch/x86/kvm/vmx/vmx.c", "*.c"
 * matches both too.
 */
static bool path_tail_matches(const char *pattern, const char *file)
{
	const char *p;

	if (!fnmatch(pattern, file, 0))
		return true;
	for (p = strchr(file, '/'); p; p = strchr(p + 1, '/'))
		if (!fnmatch(pattern, p + 1, 0))
			return true;
	return false;
}

/*
 * The function a CPU_OFFER vendor @spec names: "name", or
 * "file-pattern:name" (the file it is defined in); NULL when no function
 * or more than one defined in the graph fits (functions of one name in
 * several files: which one makes the offer is not known), *@many then
 * true for more than one.
 */
static const struct gnode *vendor_node(const struct graph *g,
				       const char *spec, bool *many)
{
	const char *name = strrchr(spec, ':');
	const struct gnode *found = NULL;
	char *file = NULL;
	size_t i;

	*many = false;

	if (name)
		file = xstrndup(spec, (size_t)(name++ - spec));
	else
		name = spec;
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *n = &g->nodes[i];

		if (!n->defined || strcmp(n->name, name) ||
		    (file && (!n->file || !path_tail_matches(file, n->file))))
			continue;
		if (found) {
			found = NULL;
			*many = true;
			break;
		}
		found = n;
	}
	free(file);
	return found;
}

#define MAX_OFFER_FNS 16

/* The functions whose rows make a vendor's offer, and where it calls. */
struct offer_scope {
	const struct gnode *fns[MAX_OFFER_FNS];	/* [0]: the vendor */
	unsigned int line[MAX_OFFER_FNS];	/* its first call of each */
	unsigned int col[MAX_OFFER_FNS];
	size_t nr;
};

/* "f() (FILE)" or "f()" for vendor @spec: a new string. */
static char *vendor_text(const char *spec)
{
	const char *name = strrchr(spec, ':');

	if (!name)
		return xasprintf("%s()", spec);
	return xasprintf("%s() (%.*s)", name + 1, (int)(name - spec), spec);
}

/*
 * Vendor @v's scope: @v and the functions it calls that match @offer.
 * False when it cannot be known, *@unknown then why (a new string): @v
 * not defined in the graph (not analysed) or defined more than once, a
 * callee not defined, or more callees than the scope holds.
 */
static bool offer_scope(const struct graph *g, const char *v,
			const char *offer, struct offer_scope *sc,
			char **unknown)
{
	bool many;
	const struct gnode *n = vendor_node(g, v, &many);
	char *vt;
	size_t j, k;

	sc->nr = 0;
	*unknown = NULL;
	if (!n) {
		vt = vendor_text(v);
		*unknown = xasprintf(many ? "%s is defined more than once" :
				     "%s is not in the analysed tree", vt);
		free(vt);
		return false;
	}
	sc->fns[0] = n;
	sc->line[0] = sc->col[0] = 0;
	sc->nr = 1;
	for (j = 0; j < n->nr_out; j++) {
		const struct gedge *e = &g->edges[n->out[j]];
		const struct gnode *c = &g->nodes[e->callee];

		if (!arch_fn_matches(offer, c->name))
			continue;
		if (!c->defined) {
			*unknown = xasprintf("%s(), which %s() calls, is not in the analysed tree",
					     c->name, n->name);
			return false;
		}
		for (k = 1; k < sc->nr && sc->fns[k] != c; k++)
			;
		if (k < sc->nr) {
			if (e->line < sc->line[k] ||
			    (e->line == sc->line[k] && e->col < sc->col[k])) {
				sc->line[k] = e->line;
				sc->col[k] = e->col;
			}
			continue;
		}
		if (sc->nr == MAX_OFFER_FNS) {
			*unknown = xasprintf("%s() calls more than %d functions that may offer it",
					     n->name, MAX_OFFER_FNS - 1);
			return false;
		}
		sc->fns[sc->nr] = c;
		sc->line[sc->nr] = e->line;
		sc->col[sc->nr++] = e->col;
	}
	return true;
}

#define MAX_HOST_ROWS 4

/* What decides whether KVM offers a bit, and where. */
struct offered {
	enum tv v;
	const struct grow *row;		/* the row that offers it best */
	const struct grow *false_row;	/* one whose guards never hold */
	/* TV_HOST: the rows whose guards the host decides */
	const struct grow *hosts[MAX_HOST_ROWS];
	size_t nr_hosts;
	char *searched;			/* the callees asked, ", " */
};

/* Add @r to @out's host rows, unless one with its guards is there. */
static void add_host_row(struct offered *out, const struct grow *r)
{
	size_t k;

	for (k = 0; k < out->nr_hosts; k++)
		if (!strcmp(out->hosts[k]->v[0], r->v[0]))
			return;
	if (out->nr_hosts < MAX_HOST_ROWS)
		out->hosts[out->nr_hosts++] = r;
}

/*
 * Vendor @sc's offer of CPU_OFFER line @o's bit, merged into @out: each
 * row of its scope that names the bit outside a clear and is not taken
 * away after: by an unconditional clear of the vendor after its call of
 * the row's function (or after the row, in the vendor itself), or of the
 * row's own function after the row.
 */
static void vendor_offer(struct eval *e, const struct arch_cpu_offer *o,
			 const struct offer_scope *sc, struct offered *out)
{
	const struct gnode *vendor = sc->fns[0];
	unsigned int line, col;
	enum tv w;
	const char *p;
	size_t i, k;

	for (i = 0; i < e->g->nr_rows; i++) {
		const struct grow *r = &e->g->rows[i];

		if (r->kind != ROW_BODY_WORD || r->flag || r->v[1] ||
		    strcmp(r->key, o->bit))
			continue;
		for (k = 0; k < sc->nr && !row_of(r, sc->fns[k]); k++)
			;
		if (k == sc->nr)
			continue;
		line = k ? sc->line[k] : r->line;
		col = k ? sc->col[k] : r->num;
		if (cleared_after(e->g, vendor, o->bit, line, col) ||
		    (k && cleared_after(e->g, sc->fns[k], o->bit, r->line,
					r->num)))
			continue;
		p = r->v[0] ? r->v[0] : "";
		w = *p ? eval_or(e, &p) : TV_TRUE;
		if (w == TV_FALSE && !out->false_row)
			out->false_row = r;
		if (w == TV_HOST)
			add_host_row(out, r);
		if (!out->row || tv_rank(w) > tv_rank(out->v))
			out->row = r;
		if (tv_rank(w) > tv_rank(out->v))
			out->v = w;
	}
}

/* Is @name() one of @list ("a(), b()"), or NULL? */
static bool in_fn_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = list; p && (p = strstr(p, name)); p += len) {
		bool starts = p == list ||
			      (p - list >= 2 && !strncmp(p - 2, ", ", 2));

		if (starts && !strncmp(p + len, "()", 2))
			return true;
	}
	return false;
}

/*
 * CPU_OFFER line @o: does KVM offer a guest its bit, for any of its
 * vendors? *@unknown set (a new string, why): no vendor that was
 * analysed offers it, and one (or a function it calls) is not in the
 * graph: nothing is known.
 */
static void cpu_bit_offered(struct eval *e, const struct arch_cpu_offer *o,
			    struct offered *out, char **unknown)
{
	struct offer_scope sc;
	char *vendors = xstrdup(o->vendors), *v, *save = NULL, *old;
	size_t k;

	*out = (struct offered){ .v = TV_FALSE };
	*unknown = NULL;
	for (v = strtok_r(vendors, " ", &save); v;
	     v = strtok_r(NULL, " ", &save)) {
		char *why;

		if (!offer_scope(e->g, v, o->offer, &sc, &why)) {
			if (!*unknown)
				*unknown = why;
			else
				free(why);
			continue;
		}
		vendor_offer(e, o, &sc, out);
		for (k = 1; k < sc.nr; k++) {
			if (in_fn_list(out->searched, sc.fns[k]->name))
				continue;
			old = out->searched;
			out->searched = xasprintf("%s%s%s()", old ? old : "",
						  old ? ", " : "",
						  sc.fns[k]->name);
			free(old);
		}
	}
	free(vendors);
	/* Another vendor's offer stands whatever this one would say. */
	if (*unknown && out->v != TV_FALSE) {
		free(*unknown);
		*unknown = NULL;
	}
}

static void free_eval(struct eval *e)
{
	size_t i;

	for (i = 0; i < e->nr_unknown; i++)
		free(e->unknown[i]);
	free(e->why);
	*e = (struct eval){ .g = e->g };
}

#define MAX_CPU_BITS 8

/* The offers of a capability's bits, for the doubt's text. */
struct offer_text {
	const struct grow *rows[MAX_CPU_BITS];
	const char *bits[MAX_CPU_BITS];
	/* the guards, or NULL: every host; with places when several */
	char *host[MAX_CPU_BITS];
	bool placed[MAX_CPU_BITS];
	size_t n;
};

/*
 * The guards of @off's host rows: "G" for one; "G1 (f1(), FILE:L1) or
 * G2 (f2(), FILE:L2)" for several, *@placed then. A new string.
 */
static char *host_text(const struct offered *off, bool *placed)
{
	char *out = NULL, *old;
	size_t k;

	*placed = off->nr_hosts > 1;
	if (!*placed)
		return xstrdup(off->hosts[0]->v[0]);
	for (k = 0; k < off->nr_hosts; k++) {
		const struct grow *r = off->hosts[k];

		old = out;
		out = xasprintf("%s%s%s (%s(), %s:%u)", old ? old : "",
				old ? " or " : "", r->v[0], r->table,
				r->file ? r->file : "?", r->line);
		free(old);
	}
	return out;
}

/* Do offers @a and @b read alike: one function, file and guard? */
static bool same_offer(const struct offer_text *t, size_t a, size_t b)
{
	return !t->placed[a] && !t->placed[b] &&
	       !strcmp(t->rows[a]->table, t->rows[b]->table) &&
	       !strcmp(t->rows[a]->file ? t->rows[a]->file : "",
		       t->rows[b]->file ? t->rows[b]->file : "") &&
	       !strcmp(t->host[a] ? t->host[a] : "",
		       t->host[b] ? t->host[b] : "");
}

/*
 * "KVM offers a guest X86_FEATURE_DS and X86_FEATURE_DTES64 only on a
 * host where vmx_pebs_supported() (vmx_set_cpu_caps(), FILE:59, :60)":
 * offers [@from, @to) of @t added to *@q.
 */
static void add_offered(char **q, const struct offer_text *t, size_t from,
			size_t to)
{
	const struct grow *r = t->rows[from];
	char *old = *q, *names = NULL, *lines = NULL, *s;
	size_t k;

	for (k = from; k < to; k++) {
		s = names;
		names = xasprintf("%s%s%s", s ? s : "",
				  !s ? "" : k + 1 == to ? " and " : ", ",
				  t->bits[k]);
		free(s);
		s = lines;
		lines = xasprintf("%s%s%u", s ? s : "", s ? ", :" : "",
				  t->rows[k]->line);
		free(s);
	}
	if (t->host[from] && t->placed[from])
		*q = xasprintf("%s%sKVM offers a guest %s only on a host where "
			       "%s", old ? old : "", old ? "; " : "", names,
			       t->host[from]);
	else if (t->host[from])
		*q = xasprintf("%s%sKVM offers a guest %s only on a host where "
			       "%s (%s(), %s:%s)", old ? old : "",
			       old ? "; " : "", names, t->host[from],
			       r->table, r->file ? r->file : "?", lines);
	else
		*q = xasprintf("%s%sKVM offers a guest %s (%s(), %s:%s)",
			       old ? old : "", old ? "; " : "", names,
			       r->table, r->file ? r->file : "?", lines);
	free(old);
	free(names);
	free(lines);
}

/*
 * "whether KVM offers a guest X86_FEATURE_DS and X86_FEATURE_DTES64 is
 * not known: vmx_set_cpu_caps() (FILE) is not in the analysed tree":
 * the @n bits @bits, whose offer @why leaves open, added to *@q.
 */
static void add_unknown(char **q, const char **bits, size_t n,
			const char *why)
{
	char *old = *q, *names = NULL, *s;
	size_t k;

	for (k = 0; k < n; k++) {
		s = names;
		names = xasprintf("%s%s%s", s ? s : "",
				  !s ? "" : k + 1 == n ? " and " : ", ",
				  bits[k]);
		free(s);
	}
	*q = xasprintf("%s%swhether KVM offers a guest %s is not known: %s",
		       old ? old : "", old ? "; " : "", names, why);
	free(old);
	free(names);
}

/*
 * "a() and b()", "a(), b() and c()" for "a b c" (or "f:a g:b h:c", the
 * functions' file patterns left out): a new string.
 */
static char *fn_list(const char *names)
{
	char *copy = xstrdup(names), *v, *save = NULL, *out = NULL, *old;
	const char *rest, *name;

	for (v = strtok_r(copy, " ", &save); v;
	     v = strtok_r(NULL, " ", &save)) {
		old = out;
		rest = save && *save ? save : NULL;
		name = strrchr(v, ':');
		out = xasprintf("%s%s%s()", old ? old : "",
				!old ? "" : rest ? ", " : " and ",
				name ? name + 1 : v);
		free(old);
	}
	free(copy);
	return out ? out : xstrdup("");
}

/* Why no KVM guest has CPU capability @cap, or NULL; *@q when and where. */
static char *cpu_cap_refusal(const struct graph *g, const char *cap,
			     char **q)
{
	const struct arch *a = arch_current();
	struct offer_text t = { .n = 0 };
	struct eval e = { .g = g };
	struct offered off;
	const char *unknown_bits[MAX_CPU_BITS];
	char *unknown_why[MAX_CPU_BITS];
	size_t i, from, nr_unknown = 0;
	char *why = NULL, *unknown;

	*q = NULL;
	for (i = 0; i < a->nr_cpu_offers && !why; i++) {
		const struct arch_cpu_offer *o = &a->cpu_offers[i];

		if (strcmp(o->cap, cap))
			continue;
		free_eval(&e);
		cpu_bit_offered(&e, o, &off, &unknown);
		/*
		 * A vendor's offer function not analysed: nothing known of
		 * this bit, which the doubt says.
		 */
		if (unknown) {
			if (nr_unknown < MAX_CPU_BITS) {
				unknown_bits[nr_unknown] = o->bit;
				unknown_why[nr_unknown++] = unknown;
			} else
				free(unknown);
			free(off.searched);
			continue;
		}
		if (off.v == TV_FALSE && !off.false_row) {
			char *fns = fn_list(o->vendors);
			bool many = strchr(o->vendors, ' ');

			why = xasprintf("a CPU with %s needs %s, which KVM as "
					"the outer hypervisor never offers a "
					"guest: %s%s%s%s name%s it only in a "
					"clear or before one, in a test, or "
					"not at all",
					cap, o->bit, fns,
					off.searched ? " and " : "",
					off.searched ? off.searched : "",
					!off.searched ? "" : many ?
					", which they call," :
					", which it calls,",
					many || off.searched ? "" : "s");
			free(fns);
		} else if (off.v == TV_FALSE)
			why = xasprintf("a CPU with %s needs %s, which KVM as "
					"the outer hypervisor offers a guest "
					"only when %s (%s(), %s:%u), never on "
					"a common host: %s", cap, o->bit,
					off.false_row->v[0],
					off.false_row->table,
					off.false_row->file ?
					off.false_row->file : "?",
					off.false_row->line,
					e.why ? e.why : "-");
		else if (t.n < MAX_CPU_BITS) {
			t.rows[t.n] = off.v == TV_HOST ? off.hosts[0] : off.row;
			t.bits[t.n] = o->bit;
			t.placed[t.n] = false;
			t.host[t.n] = off.v == TV_HOST ?
				      host_text(&off, &t.placed[t.n]) : NULL;
			t.n++;
		}
		free(off.searched);
	}
	free_eval(&e);
	for (from = 0, i = 1; !why && i <= t.n; i++)
		if (i == t.n || !same_offer(&t, from, i)) {
			add_offered(q, &t, from, i);
			from = i;
		}
	for (from = 0, i = 1; !why && i <= nr_unknown; i++)
		if (i == nr_unknown ||
		    strcmp(unknown_why[from], unknown_why[i])) {
			add_unknown(q, unknown_bits + from, i - from,
				    unknown_why[from]);
			from = i;
		}
	for (i = 0; i < t.n; i++)
		free(t.host[i]);
	for (i = 0; i < nr_unknown; i++)
		free(unknown_why[i]);
	return why;
}

char *outer_cpu_refusal(const struct graph *g, const struct chain *c,
			const struct chain *others, size_t nr_others,
			char **qualifier, const char **qcap)
{
	const char *cap, *cap0;
	char *atom, *why, *q;
	size_t j;

	*qualifier = NULL;
	*qcap = NULL;
	atom = machine_needs_cpu(c, &cap0);
	if (!atom)
		return NULL;
	*qcap = cap0;
	why = cpu_cap_refusal(g, cap0, qualifier);
	if (!why)
		goto out;
	/* Ruled out only when every chain needs what KVM never offers. */
	for (j = 0; j < nr_others; j++) {
		char *a = machine_needs_cpu(&others[j], &cap), *w;

		if (!a) {
			free(why);
			why = NULL;
			break;
		}
		free(a);
		w = strcmp(cap, cap0) ? cpu_cap_refusal(g, cap, &q) :
					xstrdup(why);
		if (strcmp(cap, cap0))
			free(q);
		if (!w) {
			free(why);
			why = NULL;
			break;
		}
		free(w);
	}
	if (why) {
		char *full = xasprintf("it runs only when %s: %s", atom, why);

		free(why);
		why = full;
	}
out:
	free(atom);
	return why;
}
