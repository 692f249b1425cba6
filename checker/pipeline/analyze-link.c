// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-link.c - the link of a run with a facts database: every TU's
 * facts, stored or new, merged into the graph in compile database order;
 * or, when no TU changed, the graph the last such link merged, read back
 * from the database in one piece (the stored link, graphio.h).
 *
 * The stored link is kept under a key made of every linked TU's database
 * path and stored key, in order, and of what the bytes depend on besides
 * (the facts' and the format's version, this build of trapcheck); storing
 * any TU's facts or a file's new hash drops it (db-facts.c), and it is
 * written only if no TU's key changed while the run read the facts. So it is read only when the same
 * facts would be merged in the same order: the run's output is the same
 * byte for byte either way (tests/e2e/db.t compares).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/graph/graphio.h"
#include "trapcheck/store/db.h"

#include "analyze-internal.h"

/* Every entry that is linked: a TU of the compile database to parse. */
static bool linked(const struct tu_status *st)
{
	return st->skip == FLAGS_PARSE;
}

/*
 * This build of trapcheck: graph_merge() decides what the bytes hold
 * (which site an edge keeps, what a guard makes of it), so a link is
 * read only by the build that wrote it. 0 when it cannot be told.
 */
static uint64_t build_id(void)
{
	static uint64_t id;
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t n, i;
	FILE *f;

	if (id)
		return id;
	f = fopen("/proc/self/exe", "rb");
	if (!f)
		return 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	if (!ferror(f))
		id = h | 1;
	fclose(f);
	return id;
}

/*
 * The key of the stored link this run could read or write: NULL when a
 * linked TU has no stored facts (not read, crashed, or never stored), or
 * the build cannot be told.
 */
static char *link_key(struct pool *p)
{
	uint64_t h = hash_mix(hash_str(FACTS_VERSION), graph_codec_hash());
	size_t i, n = 0;

	if (!build_id())
		return NULL;
	h = hash_mix(h, build_id());

	for (i = 0; i < p->db->nr; i++) {
		char *key;

		if (!linked(&p->status[i]))
			continue;
		key = db_tu_key(p->fdb, p->status[i].dbkey);
		if (!key)
			return NULL;
		h = hash_mix(h, hash_str(p->status[i].dbkey));
		h = hash_mix(h, hash_str(key));
		free(key);
		n++;
	}
	return xasprintf("%zu:%016llx", n, (unsigned long long)h);
}

static int decode_link(const void *data, size_t len, void *arg)
{
	return graph_decode(data, len, arg);
}

/* A TU's errors as the run's summary counts them, from its facts. */
static void take_errors(struct tu_status *st)
{
	free(st->first_error);
	st->parse_error = st->facts.parse_error;
	st->nr_errors = st->facts.nr_errors;
	st->first_error = st->facts.first_error ?
		xstrdup(st->facts.first_error) : NULL;
}

/*
 * Nothing parsed and every linked TU kept: the stored link, if it is
 * this run's, with each TU's errors from its row. False: link anew.
 */
static bool read_stored(struct pool *p, const char *key)
{
	size_t i;

	if (!key || p->nr_work || p->opts->nr_unsaved)
		return false;
	for (i = 0; i < p->db->nr; i++)
		if (linked(&p->status[i]) && !p->status[i].reused)
			return false;
	if (db_link_read(p->fdb, key, decode_link, &p->a->graph))
		return false;
	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];

		if (!linked(st))
			continue;
		if (db_load_head(p->fdb, st->dbkey, &st->facts))
			continue;	/* the database's failure is said */
		p->a->summary.from_db++;
		take_errors(st);
		tu_facts_free(&st->facts);
	}
	p->a->summary.stored_link = true;
	return true;
}

struct still_arg {
	struct pool *p;
	const char *key;
};

/* Every linked TU's stored key as it was before their facts were read. */
static bool still_same(void *arg)
{
	struct still_arg *s = arg;
	char *now = link_key(s->p);
	bool same = now && !strcmp(now, s->key);

	free(now);
	return same;
}

/*
 * What this run merged, kept for the next one under @key, the TUs' keys
 * read before their facts (a failure is said); only when it merged every
 * linked TU's stored facts (@whole): a TU not read now keeps its stored
 * facts and key, which a link without them would then stand for; and
 * only if no other process stored a TU meanwhile.
 */
static void write_stored(struct pool *p, const char *key, bool whole)
{
	struct still_arg s = { .p = p, .key = key };
	struct bytes b = { 0 };

	if (!key || !whole || !p->store || db_error(p->fdb, NULL, 0))
		return;
	graph_encode(&p->a->graph, &b);
	if (b.len)
		db_link_write(p->fdb, key, b.data, b.len, still_same, &s);
	bytes_free(&b);
}

void link_from_db(struct pool *p)
{
	struct analysis *a = p->a;
	const char **keep = xcalloc(p->db->nr + 1, sizeof(*keep));
	size_t i, nr_keep = 0;
	char *key = NULL;
	bool stored, whole = true;

	if (!p->nr_work || p->store)
		key = link_key(p);
	stored = read_stored(p, key);
	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];

		if (!linked(st))
			continue;
		keep[nr_keep++] = st->dbkey;
		if (stored)
			continue;
		/* Not read or crashed now: no stale facts either. */
		if (st->parse && (st->parse_error == TU_NOT_READ ||
				  st->parse_error == TU_CRASHED)) {
			whole = false;
			continue;
		}
		/*
		 * Kept or just stored; with unsaved files or a read-only
		 * database, parsed into memory.
		 */
		if ((st->reused || p->store) &&
		    !db_load_linked(p->fdb, st->dbkey, &st->facts)) {
			a->summary.from_db += st->reused;
			take_errors(st);
		} else {
			whole = false;
		}
		if (!st->facts.parse_error)
			graph_merge(&a->graph, &st->facts);
		tu_facts_free(&st->facts);
	}
	if (p->store && !db_error(p->fdb, NULL, 0))
		a->summary.removed = db_prune(p->fdb, keep, nr_keep);
	free(keep);
	if (!stored)
		write_stored(p, key, whole);
	free(key);
}
