// SPDX-License-Identifier: GPL-2.0
/*
 * graph-dispatch.c - calls through members that registration fills,
 * resolved per list head over the graph (the tables, and the steps, in
 * model/dispatch.c).
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/dispatch.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/base/util.h"

static const char *intern_n(struct graph *g, const char *s, size_t n)
{
	char *t = xstrndup(s, n);
	const char *p = strpool_intern(&g->pool, t);

	free(t);
	return p;
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
	size_t i, round;

	for (i = 0; i < g->nr_nodes; i++) {
		roles[i].reg_head = roles[i].reg_block = -1;
		roles[i].disp_head = -1;
		roles[i].ctl_obj = -1;
		int head, block;

		if (dispatch_reg_fn(g->nodes[i].name, &head, &block))
			set_reg(&roles[i], NULL, head, block);
		if (dispatch_fn(g->nodes[i].name, &head))
			roles[i].disp_head = head;
	}
	for (i = 0; i < g->nr_icalls; i++) {
		const struct gicall *ic = &g->icalls[i];
		size_t n = dispatch_ctl_struct_len(ic->member);

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
		const char *object;

		if (strcmp(regs[i].head, head))
			continue;
		/* Objects are the graph's strings: compared by address. */
		object = strpool_find(&g->pool, regs[i].object);
		if (!object)
			continue;
		for (j = 0; j < g->nr_assigns; j++) {
			const struct gassign *as = &g->assigns[j];
			size_t before = g->nr_edges;
			int e;

			if (as->object != object ||
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
	/* The graph's copy of @object: assigns compared by address. */
	const char *pooled = object ? strpool_find(&g->pool, object) : NULL;
	size_t j, n = strlen(type);

	for (j = 0; j < g->nr_assigns && (!object || pooled); j++) {
		const struct gassign *as = &g->assigns[j];
		struct tu_call c = *site;
		size_t before = g->nr_edges;
		char *via;
		int e;

		if (dispatch_ctl_struct_len(as->member) != n ||
		    strncmp(as->member, type, n) ||
		    (object && as->object != pooled))
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
		size_t n = dispatch_ctl_struct_len(ic->member);
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

void graph_dispatch(struct graph *g)
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
