// SPDX-License-Identifier: GPL-2.0
/*
 * machine.c - the guest's machine (--machine, "guest" by default): a
 * driver binds only to the devices its match tables name, so the code of
 * a driver whose tables name none of the machine profile's devices (the
 * architecture's machine.def) never runs in such a guest, and a chain
 * through it is no guest's hot path. The tables are the analysed tree's
 * (rows of kind ROW_DEVICE, clang/tables.c); a chain needs a driver's
 * device when one of its functions is a static function of the driver's
 * file (nothing outside the file calls it but through what the driver
 * registers once bound).
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

/*
 * The static functions of the drivers the profile has no device of, by
 * name (a name two of them share is looked at no further: rare), and how
 * many functions bear each name: a chain's step names its function.
 */
static void index_absent(struct machine *m, const struct graph *g)
{
	size_t i;
	int d, n;

	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *fn = &g->nodes[i];

		/* strmap_put() keeps a first value: count in counts[]. */
		n = strmap_put(&m->names, fn->name, (int)m->nr_names);
		if (n == (int)m->nr_names)
			*PUSH(m->counts, m->nr_names, m->alloc_names) = 0;
		m->counts[n]++;
		if (!fn->is_static || !fn->file)
			continue;
		d = strmap_get(&m->files, fn->file);
		if (d >= 0 && !m->drivers[d].present &&
		    strmap_get(&m->absent, fn->name) < 0)
			strmap_put(&m->absent, fn->name, (int)i);
	}
}

void machine_init(struct machine *m, const struct graph *g,
		  const char *profile)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	strmap_init(&m->files);
	strmap_init(&m->names);
	strmap_init(&m->absent);
	m->profile = profile;
	if (!profile || !arch_current()->nr_machine)
		return;
	for (i = 0; i < g->nr_rows; i++) {
		const struct grow *r = &g->rows[i];
		struct machine_driver *d;
		char *old;
		int k;

		if (r->kind != ROW_DEVICE || !r->file || !r->key)
			continue;
		k = strmap_get(&m->files, r->file);
		if (k < 0) {
			k = (int)m->nr;
			d = PUSH(m->drivers, m->nr, m->alloc);
			memset(d, 0, sizeof(*d));
			d->file = r->file;
			strmap_put(&m->files, r->file, k);
		}
		d = &m->drivers[k];
		d->present |= profile_has(profile, r->table, r->key);
		old = d->ids;
		if (d->nr_ids++ < 3)
			d->ids = xasprintf("%s%s%s:%s", old ? old : "",
					   old ? ", " : "", r->table, r->key);
		else if (d->nr_ids == 4)
			d->ids = xasprintf("%s, ...", old);
		if (d->ids != old)
			free(old);
	}
	if (m->nr)
		index_absent(m, g);
}

void machine_free(struct machine *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->drivers[i].ids);
	strmap_free(&m->files);
	strmap_free(&m->names);
	strmap_free(&m->absent);
	free(m->counts);
	free(m->drivers);
	m->drivers = NULL;
}

/* The driver whose device chain @c needs, or NULL. */
static const struct machine_driver *needs(const struct machine *m,
					  const struct graph *g,
					  const struct chain *c)
{
	size_t i;

	for (i = 0; i < c->len; i++) {
		const char *name = c->steps[i].function;
		int k = name ? strmap_get(&m->absent, name) : -1;
		const struct gnode *fn;

		if (k < 0)
			continue;
		fn = &g->nodes[k];
		/* Of two functions of one name, the step's. */
		if (m->counts[strmap_get(&m->names, name)] > 1 &&
		    c->steps[i].file &&
		    strcmp(fn->file, c->steps[i].file))
			continue;
		return &m->drivers[strmap_get(&m->files, fn->file)];
	}
	return NULL;
}

char *machine_refusal(const struct machine *m, const struct graph *g,
		      const struct chain *c, const struct chain *others,
		      size_t nr_others)
{
	const struct machine_driver *d;
	size_t j;

	if (!m->profile || !m->nr)
		return NULL;
	d = needs(m, g, c);
	for (j = 0; d && j < nr_others; j++)
		if (!needs(m, g, &others[j]))
			return NULL;
	if (!d)
		return NULL;
	return xasprintf("it runs only with a device of %s (%s), which no "
			 "machine of --machine=%s has", d->file, d->ids,
			 m->profile);
}
