// SPDX-License-Identifier: GPL-2.0
/*
 * dispatch.c - calls through members that registration fills, resolved
 * per list head.
 *
 * Facts (extract.h): at each call, the arguments of a registration type
 * and what they name ("var:oom_notify_list", "$0" for the caller's first
 * parameter); at each assignment of a function to a member, the object
 * whose member it is ("var:foo_nb@mm/x.c", "kvm_arch.pm_nb").
 *
 * 1. Register and dispatch functions: the table's, and every function
 *    that passes its own parameter on as the block or head of one of
 *    them (register_oom_notifier(nb) calls
 *    blocking_notifier_chain_register(&oom_notify_list, nb)): a fixed
 *    point over the call sites, so wrappers of wrappers count.
 * 2. Registrations: calls of a register function whose head and block
 *    both name something: (head, object).
 * 3. Callbacks of a head: the functions stored in the registry member of
 *    the objects registered on it.
 * 4. Each call of a dispatch function on a named head gets an inferred
 *    edge to each callback of that head (via: the head's name); a head
 *    that is the caller's own parameter makes the caller a dispatch
 *    function (step 1); any other head is counted as unresolved, with
 *    examples for the summary, and reaches nothing.
 *
 * Control blocks (CTL_MEMBER, struct rmap_walk_control) are resolved per
 * object the same way, with no registration in between: a function that
 * calls through such a member of its parameter, and its wrappers (step
 * 1), dispatch on that parameter; a call of one on a named object (a
 * local "struct rmap_walk_control rwc = { .rmap_one = ... }") gets an
 * edge to each function stored in that object's control members (via:
 * "rwc.rmap_one"), and so does a call through the member made on a named
 * object directly. On an object that cannot be named, the call reaches
 * every function stored in those members, as an ops-table call would.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/dispatch.h"
#include "trapcheck/graph.h"
#include "trapcheck/util.h"

/* "struct.member" of a table line. */
struct member_ref {
	const char *type, *member;
};

static const struct member_ref reg_members[] = {
#define REG_MEMBER(s, m) { s, m },
#include "dispatch.def"
};

static const struct {
	const char *name;
	int head, block;
} reg_fns[] = {
#define REG_FN(f, h, b) { f, h, b },
#include "dispatch.def"
};

static const struct {
	const char *name;
	int head;
} dispatch_fns[] = {
#define DISPATCH_FN(f, h) { f, h },
#include "dispatch.def"
};

static const struct member_ref ctl_members[] = {
#define CTL_MEMBER(s, m) { s, m },
#include "dispatch.def"
};

/* The length of the struct name when @t lists "struct.member", or 0. */
static size_t member_in(const struct member_ref *t, size_t nr,
			const char *member)
{
	size_t i, n;

	for (i = 0; i < nr; i++) {
		n = strlen(t[i].type);
		if (!strncmp(member, t[i].type, n) && member[n] == '.' &&
		    !strcmp(member + n + 1, t[i].member))
			return n;
	}
	return 0;
}

/* The control block struct of "struct.member" (its length), or 0. */
static size_t ctl_struct_len(const char *member)
{
	return member_in(ctl_members, ARRAY_SIZE(ctl_members), member);
}

static const char *intern_n(struct graph *g, const char *s, size_t n)
{
	char *t = xstrndup(s, n);
	const char *p = strpool_intern(&g->pool, t);

	free(t);
	return p;
}

bool ctl_member(const char *member)
{
	return ctl_struct_len(member) > 0;
}

bool dispatch_member(const char *member)
{
	return member_in(reg_members, ARRAY_SIZE(reg_members), member) > 0;
}

char *dispatch_head_name(const char *id)
{
	const char *s = !strncmp(id, "var:", 4) ? id + 4 :
			!strncmp(id, "local:", 6) ? id + 6 : id;

	return xstrndup(s, strcspn(s, "@"));
}

/* Argument @i of a site's "i=id;..." list, in @buf; NULL if absent. */
static const char *arg_of(const char *args, int i, char *buf, size_t len)
{
	const char *p = args;

	while (p && *p) {
		char *end;
		long k = strtol(p, &end, 10);
		size_t n;

		if (*end != '=')
			return NULL;
		n = strcspn(end + 1, ";");
		if (k == i) {
			if (n >= len)
				return NULL;
			memcpy(buf, end + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = end + 1 + n;
		if (*p == ';')
			p++;
	}
	return NULL;
}

/* A caller's parameter ("$N"): its index, or -1. */
static int param_of(const char *id)
{
	return id && id[0] == '$' ? atoi(id + 1) : -1;
}

/* Something named: a global, a member; not a parameter, not unknown. */
static bool named(const char *id)
{
	return id && id[0] != '$' && strcmp(id, "?");
}

/* Per node: what kind of register or dispatch function it is. */
struct role {
	int reg_head, reg_block;	/* argument indices, -1: none */
	const char *reg_fixed;		/* the head, when it is fixed */
	int disp_head;			/* -1: not a dispatch function */
	int ctl_obj;			/* -1: dispatches no control block */
	const char *ctl_struct;		/* ... of this struct */
};

static bool set_reg(struct role *r, const char *fixed, int head, int block)
{
	if (r->reg_block >= 0)
		return false;
	r->reg_fixed = fixed;
	r->reg_head = head;
	r->reg_block = block;
	return true;
}

/* The head a call of a register function registers on, in @buf. */
static const char *reg_head(const struct role *r, const struct gargsite *a,
			    char *buf, size_t len)
{
	if (r->reg_fixed)
		return r->reg_fixed;
	return arg_of(a->args, r->reg_head, buf, len);
}

/* Step 1: the table's functions and their wrappers, to a fixed point. */
static void find_roles(struct graph *g, struct role *roles)
{
	char hb[512], bb[512];
	bool changed = true;
	size_t i, j, round;

	for (i = 0; i < g->nr_nodes; i++) {
		roles[i].reg_head = roles[i].reg_block = -1;
		roles[i].disp_head = -1;
		roles[i].ctl_obj = -1;
		for (j = 0; j < ARRAY_SIZE(reg_fns); j++)
			if (!strcmp(g->nodes[i].name, reg_fns[j].name))
				set_reg(&roles[i], NULL, reg_fns[j].head,
					reg_fns[j].block);
		for (j = 0; j < ARRAY_SIZE(dispatch_fns); j++)
			if (!strcmp(g->nodes[i].name, dispatch_fns[j].name))
				roles[i].disp_head = dispatch_fns[j].head;
	}
	for (i = 0; i < g->nr_icalls; i++) {
		const struct gicall *ic = &g->icalls[i];
		size_t n = ctl_struct_len(ic->member);

		if (n && param_of(ic->object) >= 0 &&
		    roles[ic->caller].ctl_obj < 0) {
			roles[ic->caller].ctl_obj = param_of(ic->object);
			roles[ic->caller].ctl_struct = intern_n(g,
				ic->member, n);
		}
	}
	for (round = 0; changed && round < 16; round++) {
		changed = false;
		for (i = 0; i < g->nr_argsites; i++) {
			const struct gargsite *a = &g->argsites[i];
			const struct role *r = &roles[a->callee];
			struct role *c = &roles[a->caller];

			if (r->reg_block >= 0) {
				const char *h = reg_head(r, a, hb, sizeof(hb));
				int b = param_of(arg_of(a->args, r->reg_block,
							bb, sizeof(bb)));

				if (b >= 0 && named(h))
					changed |= set_reg(c, strpool_intern(
						&g->pool, h), -1, b);
				else if (b >= 0 && param_of(h) >= 0)
					changed |= set_reg(c, NULL,
							   param_of(h), b);
			}
			if (r->disp_head >= 0 && c->disp_head < 0) {
				int h = param_of(arg_of(a->args, r->disp_head,
							hb, sizeof(hb)));

				if (h >= 0) {
					c->disp_head = h;
					changed = true;
				}
			}
			if (r->ctl_obj >= 0 && c->ctl_obj < 0) {
				int h = param_of(arg_of(a->args, r->ctl_obj,
							hb, sizeof(hb)));

				if (h >= 0) {
					c->ctl_obj = h;
					c->ctl_struct = r->ctl_struct;
					changed = true;
				}
			}
		}
	}
}

struct registration {
	const char *head, *object;
};

static int site_order(const void *x, const void *y, void *graph)
{
	const struct graph *g = graph;
	const struct gargsite *a = x, *b = y;
	int c = site_cmp(a->file, a->line, a->col, b->file, b->line, b->col);

	if (c)
		return c;
	c = strcmp(g->nodes[a->caller].key, g->nodes[b->caller].key);
	return c ? c : strcmp(g->nodes[a->callee].key, g->nodes[b->callee].key);
}

/* Step 4 for one dispatch call on @head: an edge to each callback. */
static void connect(struct graph *g, const struct gargsite *a,
		    const char *head, const struct registration *regs,
		    size_t nr_regs)
{
	char *name = dispatch_head_name(head);
	struct tu_call c = {
		.file = (char *)a->file, .line = a->line, .col = a->col,
		.via = (char *)strpool_intern(&g->pool, name),
		.guards = (char *)a->guards, .loop = a->loop,
		.loop_guess = a->loop_guess,
	};
	size_t i, j;

	free(name);
	for (i = 0; i < nr_regs; i++) {
		if (strcmp(regs[i].head, head))
			continue;
		for (j = 0; j < g->nr_assigns; j++) {
			const struct gassign *as = &g->assigns[j];
			size_t before = g->nr_edges;
			int e;

			if (!as->object || strcmp(as->object, regs[i].object) ||
			    !dispatch_member(as->member))
				continue;
			e = graph_add_edge(g, a->caller, as->fn, &c, true);
			if (g->nr_edges > before) {
				g->edges[e].registered = true;
				g->inferred_edges++;
			}
		}
	}
}

/*
 * An edge from @caller at @site to each function stored in a member of
 * @type (a control block) of @object; any object when @object is NULL.
 */
static void connect_object(struct graph *g, int caller,
			   const struct tu_call *site, const char *type,
			   const char *object)
{
	char *name = object ? dispatch_head_name(object) : NULL;
	size_t j, n = strlen(type);

	for (j = 0; j < g->nr_assigns; j++) {
		const struct gassign *as = &g->assigns[j];
		struct tu_call c = *site;
		size_t before = g->nr_edges;
		char *via;
		int e;

		if (ctl_struct_len(as->member) != n ||
		    strncmp(as->member, type, n) ||
		    (object && (!as->object || strcmp(as->object, object))))
			continue;
		via = name ? xasprintf("%s.%s", name, as->member + n + 1) :
			     xstrdup(as->member);
		c.via = (char *)strpool_intern(&g->pool, via);
		free(via);
		e = graph_add_edge(g, caller, as->fn, &c, true);
		if (g->nr_edges > before) {
			g->edges[e].registered = object != NULL;
			g->inferred_edges++;
		}
	}
	free(name);
}

/* Calls on control blocks: on a named object, or through a wrapper. */
static void resolve_objects(struct graph *g, const struct role *roles,
			    size_t nr_sites)
{
	struct dispatch_stats *st = &g->dispatch;
	size_t i, nr_icalls = g->nr_icalls;
	char hb[512];

	for (i = 0; i < nr_sites; i++) {
		const struct gargsite *a = &g->argsites[i];
		const struct role *r = &roles[a->callee];
		struct tu_call c = {
			.file = (char *)a->file, .line = a->line,
			.col = a->col, .guards = (char *)a->guards,
			.loop = a->loop, .loop_guess = a->loop_guess,
		};
		const char *h;

		if (r->ctl_obj < 0)
			continue;
		h = arg_of(a->args, r->ctl_obj, hb, sizeof(hb));
		/* A wrapper's call: resolved at the wrapper's callers. */
		if (param_of(h) >= 0)
			continue;
		if (named(h))
			st->by_object++;
		else
			st->object_unknown++;
		connect_object(g, a->caller, &c, r->ctl_struct,
			       named(h) ? strpool_intern(&g->pool, h) : NULL);
	}
	for (i = 0; i < nr_icalls; i++) {
		const struct gicall *ic = &g->icalls[i];
		size_t n = ctl_struct_len(ic->member);
		struct tu_call c = {
			.file = (char *)ic->file, .line = ic->line,
			.col = ic->col, .guards = (char *)ic->guards,
			.loop = ic->loop, .loop_guess = ic->loop_guess,
		};
		const char *type;

		if (!n || !named(ic->object))
			continue;
		st->by_object++;
		type = intern_n(g, ic->member, n);
		connect_object(g, ic->caller, &c, type, ic->object);
	}
}

void dispatch_resolve(struct graph *g)
{
	struct role *roles = xcalloc(g->nr_nodes + 1, sizeof(*roles));
	struct registration *regs = NULL;
	size_t nr_regs = 0, alloc_regs = 0, i, nr_sites;
	struct dispatch_stats *st = &g->dispatch;
	char hb[512], bb[512];

	sort_r(g->argsites, g->nr_argsites, sizeof(*g->argsites), site_order,
	       g);
	find_roles(g, roles);
	for (i = 0; i < g->nr_argsites; i++) {
		const struct gargsite *a = &g->argsites[i];
		const struct role *r = &roles[a->callee];
		const char *h, *b;
		struct registration *reg;

		if (r->reg_block < 0)
			continue;
		h = reg_head(r, a, hb, sizeof(hb));
		b = arg_of(a->args, r->reg_block, bb, sizeof(bb));
		if (!named(h) || !named(b))
			continue;
		reg = PUSH(regs, nr_regs, alloc_regs);
		reg->head = strpool_intern(&g->pool, h);
		reg->object = strpool_intern(&g->pool, b);
		st->registrations++;
	}
	/* Edges are added below: the site list must not move under us. */
	nr_sites = g->nr_argsites;
	for (i = 0; i < nr_sites; i++) {
		const struct gargsite *a = &g->argsites[i];
		const struct role *r = &roles[a->callee];
		const char *h;

		if (r->disp_head < 0)
			continue;
		h = arg_of(a->args, r->disp_head, hb, sizeof(hb));
		if (named(h)) {
			st->by_registration++;
			connect(g, a, h, regs, nr_regs);
		} else if (param_of(h) >= 0) {
			st->through_wrapper++;
		} else {
			st->unresolved++;
			if (st->nr_examples < ARRAY_SIZE(st->examples)) {
				char *ex = xasprintf("%s:%u in %s()", a->file,
						     a->line,
						     g->nodes[a->caller].name);

				st->examples[st->nr_examples++] =
					strpool_intern(&g->pool, ex);
				free(ex);
			}
		}
	}
	resolve_objects(g, roles, nr_sites);
	free(regs);
	free(roles);
}
