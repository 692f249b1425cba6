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

void machine_init(struct machine *m, const struct graph *g,
		  const char *profile)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	strmap_init(&m->files);
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
}

void machine_free(struct machine *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->drivers[i].ids);
	strmap_free(&m->files);
	free(m->drivers);
	m->drivers = NULL;
}

/* The driver whose device chain @c needs, or NULL. */
static const struct machine_driver *needs(const struct machine *m,
					  const struct graph *g,
					  const struct chain *c)
{
	size_t i, k, n;
	int idx[8];

	for (i = 0; i < c->len; i++) {
		n = graph_find_name(g, c->steps[i].function, idx, 8);
		for (k = 0; k < n && k < 8; k++) {
			const struct gnode *fn = &g->nodes[idx[k]];
			int d;

			/* Of two static functions of one name, the step's. */
			if (!fn->is_static || !fn->file ||
			    (n > 1 && c->steps[i].file &&
			     strcmp(fn->file, c->steps[i].file)))
				continue;
			d = strmap_get(&m->files, fn->file);
			if (d >= 0 && !m->drivers[d].present)
				return &m->drivers[d];
		}
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
