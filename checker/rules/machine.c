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
 *
 * A chain also needs what its conditions ask of the device it drives: an
 * atom of kind MACHINE (model/conditions.def: "!dma_kmalloc_safe(dev,
 * dir)") that is false for a device with a property (machine.def
 * PROPERTY: "dma-coherent") never holds on a machine whose every device
 * has it. When only some machines of the profile are known to have it,
 * the finding is one of low confidence that says so.
 *
 * And what it asks of the guest's CPU: an atom of kind CPU
 * (conditions.def: "cpuc->lbr_users", which needs LBR) holds only on a
 * CPU with that capability, which a guest has only when its VMM offers
 * it: a chain that needs it is a note, its reason the machines that may
 * offer it (machine.def CPU_CAP), or that none of the profile's is known
 * to.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"
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

/* Machine profile @name's line for property @prop, or NULL. */
static const struct arch_device *property_line(const char *name,
					       const char *prop)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_machine; i++) {
		const struct arch_device *d = &a->machine[i];

		if (!strcmp(d->bus, "property") && !strcmp(d->profile, name) &&
		    !strcmp(d->id, prop))
			return d;
	}
	return NULL;
}

/*
 * Is line @i of machine.def the first of a machine of @profile ("guest":
 * every profile of machine.def)?
 */
static bool machine_of(const char *profile, size_t i)
{
	const struct arch *a = arch_current();
	const char *name = a->machine[i].profile;
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(a->machine[j].profile, name))
			return false;
	return !strcmp(profile, "guest") || !strcmp(profile, name);
}

/*
 * How many machines of @profile ("guest": every profile of machine.def)
 * there are, in *@all, and how many of them have property @prop.
 */
static size_t property_held(const char *profile, const char *prop,
			    size_t *all)
{
	const struct arch *a = arch_current();
	size_t i, held = 0;

	*all = 0;
	for (i = 0; i < a->nr_machine; i++) {
		const char *name = a->machine[i].profile;

		if (!machine_of(profile, i))
			continue;
		(*all)++;
		held += property_line(name, prop) != NULL;
	}
	return held;
}

/*
 * Is @atom the negation of one call, "!name(...)", whose name is of kind
 * MACHINE? Its property in *@prop.
 */
static bool negated_machine_call(const char *atom, const char **prop)
{
	const char *p = atom + 1, *e;
	char *name;
	int depth = 0;
	bool ok;

	if (atom[0] != '!' || !(isalpha((unsigned char)*p) || *p == '_'))
		return false;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (*p != '(')
		return false;
	for (e = p; *e; e++) {
		depth += *e == '(';
		depth -= *e == ')';
		if (!depth)
			break;
	}
	if (!*e || e[1])
		return false;
	name = xstrndup(atom + 1, (size_t)(p + 1 - (atom + 1)));
	ok = cond_classify(name, prop) == COND_MACHINE && *prop;
	free(name);
	return ok;
}

/*
 * The first atom of chain @c that a device with a property makes false
 * (a new string), its property in *@prop; NULL: none.
 */
static char *needs_without(const struct chain *c, const char **prop)
{
	char *found = NULL, **atoms;
	size_t i, j, n;

	for (i = 0; i < c->len && !found; i++) {
		if (!c->steps[i].guards)
			continue;
		n = cond_atoms(c->steps[i].guards, &atoms);
		for (j = 0; j < n; j++) {
			if (!found && negated_machine_call(atoms[j], prop))
				found = atoms[j];
			else
				free(atoms[j]);
		}
		free(atoms);
	}
	return found;
}

/*
 * The first atom of chain @c that needs a CPU capability (conditions.def
 * CPU: a positive atom; a new string), the capability in *@cap; NULL:
 * none.
 */
char *machine_needs_cpu(const struct chain *c, const char **cap)
{
	const struct arch *a = arch_current();
	char *found = NULL, **atoms;
	size_t i, j, n;

	/*
	 * Code that only such a CPU runs (conditions.def CPU_FILE): a path
	 * prefix, or (no '/') an fnmatch(3) pattern of function names.
	 */
	for (i = 0; i < c->len; i++)
		for (j = 0; j < a->nr_cpu_files; j++) {
			const char *p = a->cpu_files[j].prefix;
			const char *fn = c->steps[i].function;
			const char *file = c->steps[i].file;

			if (strchr(p, '/') ?
			    file && !strncmp(file, p, strlen(p)) :
			    fn && !fnmatch(p, fn, 0)) {
				*cap = a->cpu_files[j].cap;
				return xasprintf("%s, %s() being its code",
						 a->cpu_files[j].when,
						 c->steps[i].function);
			}
		}
	for (i = 0; i < c->len && !found; i++) {
		if (!c->steps[i].guards)
			continue;
		n = cond_atoms(c->steps[i].guards, &atoms);
		for (j = 0; j < n; j++) {
			if (!found && atoms[j][0] != '!' &&
			    cond_classify(atoms[j], cap) == COND_CPU && *cap)
				found = atoms[j];
			else
				free(atoms[j]);
		}
		free(atoms);
	}
	return found;
}

/* Machine profile @name's CPU_CAP line for @cap, or NULL. */
static const struct arch_device *cpu_line(const char *name, const char *cap)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_machine; i++) {
		const struct arch_device *d = &a->machine[i];

		if (!strcmp(d->bus, "cpu") && !strcmp(d->profile, name) &&
		    !strcmp(d->id, cap))
			return d;
	}
	return NULL;
}

/*
 * Why chain @c may not run on a machine of --machine=@profile, or NULL:
 * it needs a CPU capability that no machine of the profile is known to
 * offer (*@never set), or that only some guests of some of them have.
 */
static char *cpu_why(const char *profile, const struct chain *c, bool *never)
{
	const struct arch *a = arch_current();
	const char *cap;
	char *atom = machine_needs_cpu(c, &cap), *may = NULL, *without = NULL;
	char *old;
	char *why;
	size_t i;

	*never = false;
	if (!atom)
		return NULL;
	for (i = 0; i < a->nr_machine; i++) {
		const char *name = a->machine[i].profile;
		const struct arch_device *d;
		char **to;

		if (!machine_of(profile, i))
			continue;
		d = cpu_line(name, cap);
		to = d ? &may : &without;
		old = *to;
		*to = d ? xasprintf("%s%s%s (%s)", old ? old : "",
				    old ? "; " : "", name, d->source) :
			  xasprintf("%s%s%s", old ? old : "", old ? ", " : "",
				    name);
		free(old);
	}
	*never = !may;
	if (!may)
		why = xasprintf("it runs only when %s, on a CPU with %s, which "
				"no machine of --machine=%s is known to offer "
				"a guest", atom, cap, profile);
	else if (!without)
		why = xasprintf("it runs only when %s, on a CPU with %s, which "
				"only some guests have: %s", atom, cap, may);
	else
		why = xasprintf("it runs only when %s, on a CPU with %s, which "
				"only some guests have: %s; those of %s are "
				"not known to", atom, cap, may, without);
	free(may);
	free(without);
	free(atom);
	return why;
}

enum chain_verdict {
	RUNS,		/* nothing rules it out */
	NO_DEVICE,	/* it needs a device no machine has */
	NO_PROPERTY,	/* it needs a device without a property all have */
	SOME_PROPERTY,	/* ... that only some machines are known to have */
	NO_CPU,		/* it needs a CPU no machine is known to offer */
	SOME_CPU,	/* ... one only some guests have */
};

static enum chain_verdict verdict(const struct machine *m,
				  const struct graph *g,
				  const struct root_set *set,
				  const struct chain *c)
{
	const char *prop;
	size_t all, held;
	char *atom;
	bool never;

	if (m->counts && needs(m, g, set, c))
		return NO_DEVICE;
	atom = cpu_why(m->profile, c, &never);
	if (atom) {
		free(atom);
		return never ? NO_CPU : SOME_CPU;
	}
	atom = needs_without(c, &prop);
	if (!atom)
		return RUNS;
	free(atom);
	held = property_held(m->profile, prop, &all);
	if (!held)
		return RUNS;
	return held == all ? NO_PROPERTY : SOME_PROPERTY;
}

/* "virt: SOURCE; cloud: SOURCE" for the machines of @profile with @prop. */
static char *property_sources(const char *profile, const char *prop,
			      char **without)
{
	const struct arch *a = arch_current();
	char *out = NULL, *old;
	size_t i;

	*without = NULL;
	for (i = 0; i < a->nr_machine; i++) {
		const char *name = a->machine[i].profile;
		const struct arch_device *d;

		if (!machine_of(profile, i))
			continue;
		d = property_line(name, prop);
		if (!d) {
			old = *without;
			*without = xasprintf("%s%s%s", old ? old : "",
					     old ? ", " : "", name);
			free(old);
			continue;
		}
		old = out;
		out = xasprintf("%s%s%s (%s)", old ? old : "",
				old ? "; " : "", name, d->source);
		free(old);
	}
	return out;
}

/* Why chain @c, of verdict NO_PROPERTY or SOME_PROPERTY, may not run. */
static char *property_why(const struct machine *m, const struct chain *c)
{
	const char *prop;
	char *atom = needs_without(c, &prop), *src, *without, *why;

	src = property_sources(m->profile, prop, &without);
	if (!without)
		why = xasprintf("it runs only when %s, which is false for a "
				"%s device, and every device of every machine "
				"of --machine=%s is %s: %s", atom, prop,
				m->profile, prop, src);
	else
		why = xasprintf("it runs only when %s, which is false for a "
				"%s device, as every device of %s is; those "
				"of %s are not known to be", atom, prop, src,
				without);
	free(src);
	free(without);
	free(atom);
	return why;
}

char *machine_refusal(const struct machine *m, const struct graph *g,
		      const struct root_set *set, const struct chain *c,
		      const struct chain *others, size_t nr_others,
		      char **doubt)
{
	const struct chain *partial = NULL;
	const struct machine_driver *d;
	enum chain_verdict v, first, pv = RUNS;
	bool never;
	size_t j;

	*doubt = NULL;
	if (!m->profile)
		return NULL;
	first = verdict(m, g, set, c);
	if (first == RUNS)
		return NULL;
	if (first == SOME_PROPERTY || first == SOME_CPU) {
		partial = c;
		pv = first;
	}
	for (j = 0; j < nr_others; j++) {
		v = verdict(m, g, set, &others[j]);
		if (v == RUNS)
			return NULL;
		if ((v == SOME_PROPERTY || v == SOME_CPU) && !partial) {
			partial = &others[j];
			pv = v;
		}
	}
	/* Some machine of the profile may run it: a doubt, not a reason. */
	if (partial) {
		*doubt = pv == SOME_CPU ? cpu_why(m->profile, partial, &never) :
			 property_why(m, partial);
		return NULL;
	}
	if (first == NO_PROPERTY)
		return property_why(m, c);
	if (first == NO_CPU)
		return cpu_why(m->profile, c, &never);
	d = needs(m, g, set, c);
	if (d->unused)
		return xasprintf("it runs only in module %s.ko, which only "
				 "drivers of devices no machine of "
				 "--machine=%s has call (%s)", d->name,
				 m->profile, d->users);
	return xasprintf("it runs only with a device of %s (%s), which no "
			 "machine of --machine=%s has", d->file, d->ids,
			 m->profile);
}
