// SPDX-License-Identifier: GPL-2.0
/*
 * machine.c - the guest's machine (--machine, "guest" by default): a
 * driver binds only to the devices its match tables name, so the code of
 * a driver whose tables name none of the machine profile's devices (the
 * architecture's machine.def) never runs in such a guest, and a chain
 * through it is no guest's hot path. The tables are the analysed tree's
 * (rows of kind ROW_DEVICE, clang/tables.c); a driver is its module, as
 * kbuild builds it (rows of kind ROW_MODULE: KBUILD_MODFILE, -DMODULE),
 * or its file when the compile command names none.
 *
 * A chain needs such a driver's device when it enters the driver's code
 * through what the driver registers once bound: a static function
 * (nothing outside the module calls it otherwise), a call through a
 * struct member, or a root's entry that its root set does not list by
 * name (a "member:" or "register:" line found it); or when it enters a
 * loadable module of it at all (nothing of an =m module runs unless it is loaded,
 * and udev loads a driver for a device it has). A loadable module with
 * no match tables that only such drivers call (a driver's core library:
 * its bus modules hold the tables) is loaded for them only: a chain into
 * it needs one of their devices too.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

/* Does the profile have device @id of @bus (a pattern of machine.def)? */
static bool profile_has(const char *profile, const char *bus, const char *id)
{
	const struct arch *a = arch_current();
	size_t i, n;

	if (!strcmp(id, "*"))
		return true;	/* a class match: any vendor's device */
	for (i = 0; i < a->nr_machine; i++) {
		const struct arch_device *d = &a->machine[i];

		if ((strcmp(profile, "guest") && strcmp(d->profile, profile)) ||
		    strcmp(d->bus, bus))
			continue;
		if (!fnmatch(d->id, id, 0))
			return true;
		/* A driver's "1af4:*" and the profile's "1af4:1000". */
		n = strlen(id);
		if (n > 2 && !strcmp(id + n - 2, ":*") &&
		    !strncmp(d->id, id, n - 1))
			return true;
	}
	return false;
}

/* The group (drivers[]) named @key, made if new. */
static int group(struct machine *m, const char *key)
{
	struct machine_driver *d;
	int k = strmap_get(&m->groups, key);

	if (k >= 0)
		return k;
	k = (int)m->nr;
	d = PUSH(m->drivers, m->nr, m->alloc);
	memset(d, 0, sizeof(*d));
	d->name = key;
	d->present = true;	/* until it has a table */
	strmap_put(&m->groups, key, k);
	return k;
}

/* The group of source file @file: its module's, else its own. */
static int group_of_file(struct machine *m, const char *file)
{
	int k = strmap_get(&m->files, file);

	if (k < 0) {
		k = group(m, file);
		strmap_put(&m->files, file, k);
	}
	return k;
}

static void add_id(struct machine_driver *d, const struct grow *r)
{
	char *old = d->ids;

	if (d->nr_ids++ < 3)
		d->ids = xasprintf("%s%s%s:%s", old ? old : "",
				   old ? ", " : "", r->table, r->key);
	else if (d->nr_ids == 4)
		d->ids = xasprintf("%s, ...", old);
	if (d->ids != old)
		free(old);
}

static bool absent(const struct machine_driver *d)
{
	return !d->present || d->unused;
}

/* The group of node @k, or -1 (a header's function is no module's). */
static int node_group(const struct machine *m, int k)
{
	return m->node_group[k];
}

/* Does node @k run only with a device no machine of the profile has? */
static bool dead(const struct machine *m, const struct graph *g, int k)
{
	int d = node_group(m, k);

	return d >= 0 && absent(&m->drivers[d]) &&
	       (g->nodes[k].is_static || m->drivers[d].loadable);
}

/* Add group @u to the users of @l, once: "file: ids" or "module M.ko". */
static void add_user(struct machine *m, struct machine_driver *l, int u)
{
	const struct machine_driver *d = &m->drivers[u];
	char *old = l->users, *one;

	if (d->file)
		one = xasprintf("%s: %s", d->file, d->ids);
	else
		one = xasprintf("module %s.ko", d->name);
	if (old && strstr(old, one)) {
		free(one);
		return;
	}
	l->users = xasprintf("%s%s%s", old ? old : "", old ? "; " : "", one);
	free(one);
	free(old);
}

/*
 * Loadable modules without tables whose every direct caller outside
 * them is dead: grown to a fixed point (a module only such a module
 * calls is unused too). Calls through members or registrations are the
 * module's own registrations, not users.
 */
static void find_unused(struct machine *m, const struct graph *g)
{
	bool *live = xcalloc(m->nr ? m->nr : 1, sizeof(*live));
	bool changed = true;
	size_t i, j, n;
	int l, c, d;

	while (changed) {
		changed = false;
		for (n = 0; n < m->nr; n++) {
			live[n] = false;
			if (m->drivers[n].unused)
				continue;
			free(m->drivers[n].users);
			m->drivers[n].users = NULL;
		}
		for (i = 0; i < g->nr_nodes; i++) {
			const struct gnode *fn = &g->nodes[i];
			struct machine_driver *lib;

			l = node_group(m, (int)i);
			if (l < 0 || !fn->defined)
				continue;
			lib = &m->drivers[l];
			if (!lib->loadable || lib->file || lib->unused ||
			    live[l])
				continue;
			for (j = 0; j < fn->nr_in; j++) {
				const struct gedge *e = &g->edges[fn->in[j]];

				if (e->inferred || e->registered)
					continue;
				c = e->caller;
				d = node_group(m, c);
				if (d == l)
					continue;
				if (d < 0 || !dead(m, g, c)) {
					live[l] = true;
					break;
				}
				add_user(m, lib, d);
			}
		}
		for (n = 0; n < m->nr; n++) {
			struct machine_driver *lib = &m->drivers[n];

			if (lib->loadable && !lib->file && !lib->unused &&
			    !live[n] && lib->users) {
				lib->unused = true;
				changed = true;
			}
		}
	}
	/* Only the unused keep their users. */
	for (n = 0; n < m->nr; n++)
		if (!m->drivers[n].unused) {
			free(m->drivers[n].users);
			m->drivers[n].users = NULL;
		}
	free(live);
}

/* Each function name's first node, how many bear it, and which is whose. */
static void index_names(struct machine *m, const struct graph *g)
{
	size_t i;
	int k;

	m->counts = xcalloc(g->nr_nodes ? g->nr_nodes : 1,
			    sizeof(*m->counts));
	for (i = 0; i < g->nr_nodes; i++) {
		k = strmap_put(&m->names, g->nodes[i].name, (int)i);
		m->counts[k]++;
	}
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *fn = &g->nodes[i];
		char *key;

		k = strmap_get(&m->names, fn->name);
		if (m->counts[k] < 2 || !fn->file)
			continue;
		key = xasprintf("%s@%s", fn->name, fn->file);
		strmap_put(&m->dups, key, (int)i);
		free(key);
	}
}

void machine_init(struct machine *m, const struct graph *g,
		  const char *profile)
{
	bool any = false;
	size_t i;
	int k;

	memset(m, 0, sizeof(*m));
	strmap_init(&m->groups);
	strmap_init(&m->files);
	strmap_init(&m->names);
	strmap_init(&m->dups);
	m->profile = profile;
	if (!profile || !arch_current()->nr_machine)
		return;
	/* The modules first: a table's file is then its module's. */
	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];

		if (r->kind != ROW_MODULE || !r->file || !r->key)
			continue;
		k = group(m, r->key);
		m->drivers[k].loadable |= r->table && !strcmp(r->table, "m");
		strmap_put(&m->files, r->file, k);
	}
	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];
		struct machine_driver *d;

		if (r->kind != ROW_DEVICE || !r->file || !r->key)
			continue;
		k = group_of_file(m, r->file);
		d = &m->drivers[k];
		if (!d->file) {
			d->file = r->file;
			d->present = false;
			any = true;
		}
		d->present |= profile_has(profile, r->table, r->key);
		add_id(d, r);
	}
	if (!any)
		return;
	m->node_group = xcalloc(g->nr_nodes ? g->nr_nodes : 1,
				sizeof(*m->node_group));
	for (i = 0; i < g->nr_nodes; i++)
		m->node_group[i] = g->nodes[i].file ?
			strmap_get(&m->files, g->nodes[i].file) : -1;
	find_unused(m, g);
	index_names(m, g);
}

void machine_free(struct machine *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->drivers[i].ids);
		free(m->drivers[i].users);
	}
	strmap_free(&m->groups);
	strmap_free(&m->files);
	strmap_free(&m->names);
	strmap_free(&m->dups);
	free(m->counts);
	free(m->node_group);
	free(m->drivers);
	m->drivers = NULL;
}

/* The node of chain step @s: by its name, and its file when two share it. */
static int step_node(const struct machine *m, const struct chain_step *s)
{
	int k = s->function ? strmap_get(&m->names, s->function) : -1;
	char *key;

	if (k < 0 || m->counts[k] < 2)
		return k;
	if (!s->file)
		return -1;
	key = xasprintf("%s@%s", s->function, s->file);
	k = strmap_get(&m->dups, key);
	free(key);
	return k;
}

/* Is @fn one of the functions root set @set lists by name? */
static bool listed(const struct root_set *set, const char *fn)
{
	size_t i;

	for (i = 0; set && i < set->nr; i++)
		if (!strcmp(set->funcs[i], fn))
			return true;
	return false;
}

/*
 * The driver whose device chain @c needs, or NULL: the first step that
 * enters a driver the profile has no device of from outside it, through
 * what the driver registers (a static function, a call through a struct
 * member, the root's entry when the root set does not list it by name:
 * a "member:" or "register:" line's), or into a loadable module of it.
 */
static const struct machine_driver *needs(const struct machine *m,
					  const struct graph *g,
					  const struct root_set *set,
					  const struct chain *c)
{
	const struct machine_driver *d;
	int k, prev = -1;
	size_t i;

	for (i = 0; i < c->len; i++, prev = k) {
		k = step_node(m, &c->steps[i]);
		if (k < 0 || node_group(m, k) < 0)
			continue;
		d = &m->drivers[node_group(m, k)];
		if (!absent(d))
			continue;
		if (prev >= 0 && node_group(m, prev) == node_group(m, k))
			continue;
		if (g->nodes[k].is_static || d->loadable ||
		    c->steps[i].inferred ||
		    (!i && !listed(set, c->steps[i].function)))
			return d;
	}
	return NULL;
}

char *machine_refusal(const struct machine *m, const struct graph *g,
		      const struct root_set *set, const struct chain *c,
		      const struct chain *others, size_t nr_others)
{
	const struct machine_driver *d;
	size_t j;

	if (!m->profile || !m->counts)
		return NULL;
	d = needs(m, g, set, c);
	for (j = 0; d && j < nr_others; j++)
		if (!needs(m, g, set, &others[j]))
			return NULL;
	if (!d)
		return NULL;
	if (d->unused)
		return xasprintf("it runs only in module %s.ko, which only "
				 "drivers of devices no machine of "
				 "--machine=%s has call (%s)", d->name,
				 m->profile, d->users);
	return xasprintf("it runs only with a device of %s (%s), which no "
			 "machine of --machine=%s has", d->file, d->ids,
			 m->profile);
}
