// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-plan.c - which TUs a run parses: the entries of the compile
 * database and their keys; with a facts database, which keep their
 * stored facts, the header functions those own, and the kept TUs that
 * must be parsed again to adopt functions whose owner is gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/input/kconfig.h"
#include "trapcheck/rules/rules.h"

#include "analyze-internal.h"

/* Is the TU's file @file, or one it includes, given as unsaved text? */
static bool reads_unsaved(const struct pool *p, const char *file,
			  char **inc, size_t nr)
{
	unsigned int u;
	size_t i;

	for (u = 0; u < p->opts->nr_unsaved; u++) {
		char *rel = path_relative(p->opts->unsaved[u].path,
					  p->a->root);
		bool hit = !strcmp(file, rel);

		/* A body-only change reaches its bodies' owners only. */
		for (i = 0; i < nr && !hit && !p->opts->unsaved[u].body_only;
		     i++)
			hit = !strcmp(inc[i], rel);
		free(rel);
		if (hit)
			return true;
	}
	return false;
}

/*
 * The headers changed only inside function bodies (relative to the
 * tree), once per run; NULL-terminated, or NULL when there are none.
 */
static char **body_only_files(const struct pool *p)
{
	char **v = NULL;
	size_t nr = 0, alloc = 0;
	unsigned int u;

	for (u = 0; u < p->opts->nr_unsaved; u++)
		if (p->opts->unsaved[u].body_only)
			*PUSH(v, nr, alloc) = path_relative(
				p->opts->unsaved[u].path, p->a->root);
	if (v)
		*PUSH(v, nr, alloc) = NULL;
	return v;
}

/*
 * Does TU @rel own (stored) the body of a function of one of @changed?
 * Then it is parsed again, with the new text, and extracts those bodies
 * anew; the other includers keep theirs.
 */
static bool owns_changed_body(const struct pool *p, const char *rel,
			      char **changed)
{
	char **keys, **files;
	size_t nk, j, c;
	bool hit = false;

	if (!changed)
		return false;
	nk = db_tu_header_funcs(p->fdb, rel, &keys, &files);
	for (j = 0; j < nk; j++) {
		for (c = 0; !hit && changed[c]; c++)
			hit = !strcmp(files[j], changed[c]);
		free(keys[j]);
		free(files[j]);
	}
	if (nk) {
		free(keys);
		free(files);
	}
	return hit;
}

/* Index of @file in the pool's list of orphan candidate files. */
static int orphan_file(struct pool *p, const char *file)
{
	int k = strmap_get(&p->ofile_index, file);

	if (k >= 0)
		return k;
	*PUSH(p->ofiles, p->nr_ofiles, p->alloc_ofiles) = xstrdup(file);
	strmap_put(&p->ofile_index, file, (int)p->nr_ofiles - 1);
	return (int)p->nr_ofiles - 1;
}

/*
 * The header functions the database says TU @rel extracted: claimed by
 * entry @owner when that TU is kept, else (-1) orphans, for a kept TU
 * that includes their file to adopt (plan_adopt_orphans()).
 */
static void stored_header_funcs(struct pool *p, struct strmap *prev_owned,
				const char *rel, int owner)
{
	char **keys, **files;
	size_t nk = db_tu_header_funcs(p->fdb, rel, &keys, &files), j;

	for (j = 0; j < nk; j++) {
		if (owner >= 0)
			claims_take(&p->claims, keys[j], owner);
		else
			strmap_put(prev_owned, keys[j],
				   orphan_file(p, files[j]));
		free(keys[j]);
		free(files[j]);
	}
	if (nk) {
		free(keys);
		free(files);
	}
}

/*
 * TUs the database holds that the compile database does not (a smaller
 * compile database, a shard, a file gone): link_from_db() prunes them,
 * so the header functions they owned are orphans, for plan_adopt_orphans()
 * to have a kept TU re-extract; else they would vanish from the graph.
 */
static void forget_dropped(struct pool *p, struct strmap *prev_owned)
{
	struct strmap here;
	char **tus;
	size_t n, i;

	strmap_init(&here);
	for (i = 0; i < p->db->nr; i++)
		strmap_put(&here, p->status[i].dbkey, 0);
	n = db_tus(p->fdb, &tus);
	for (i = 0; i < n; i++) {
		if (strmap_get(&here, tus[i]) < 0)
			stored_header_funcs(p, prev_owned, tus[i], -1);
		free(tus[i]);
	}
	free(tus);
	strmap_free(&here);
}

/*
 * With a database: which TUs can keep their stored facts (same flags,
 * same contents of the TU and of everything it included last time), and
 * the header functions they own, which the re-parsed TUs need not
 * extract again.
 */
void plan_incremental(struct pool *p, struct strmap *prev_owned)
{
	char **changed = body_only_files(p);
	/*
	 * No file changed since the stored link was made: each stored key's
	 * contents part is still right, and no include list is read.
	 */
	bool unchanged = !p->opts->nr_unsaved && db_link_kept(p->fdb) &&
			 db_files_unchanged(p->fdb, p->a->root, key_memo_seed,
					    p);
	size_t i;

	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];
		char *rel = xstrdup(st->dbkey);
		char *stored = db_tu_key(p->fdb, rel), *key = NULL;
		char **inc = NULL;
		size_t nr = 0;
		uint64_t h;

		if (st->skip == FLAGS_PARSE && stored) {
			char *file = path_relative(p->db->entries[i].file,
						   p->a->root);

			h = st->flags_hash;
			/*
			 * Unsaved files need the include list itself; else
			 * it is streamed into the key, never copied.
			 */
			if (p->opts->nr_unsaved) {
				nr = db_tu_includes(p->fdb, rel, &inc);
				key = tu_key(p, h, file, inc, nr);
			} else if (unchanged) {
				key = tu_key_unchanged(h, stored);
			} else {
				key = tu_key_stored(p, h, file, rel);
			}
			st->reused = key && !strcmp(key, stored) &&
				     !reads_unsaved(p, file, inc, nr) &&
				     !owns_changed_body(p, rel, changed);
			free(file);
		}
		if (stored)
			stored_header_funcs(p, prev_owned, rel,
					    st->reused ? (int)i : -1);
		st->parse = st->skip == FLAGS_PARSE && !st->reused;
		strv_free(inc, nr);
		free(key);
		free(stored);
		free(rel);
	}
	for (i = 0; changed && changed[i]; i++)
		free(changed[i]);
	free(changed);
	forget_dropped(p, prev_owned);
}

/*
 * A header function whose owner was re-parsed or removed, and that no
 * re-parsed TU claimed, would vanish from the graph: a kept TU that
 * includes its file is re-parsed and claims it (with any other orphan of
 * the files it includes), re-extracting what it owned and the orphans.
 * One pass over the kept TUs' include lists finds the first includer of
 * each orphaned file (thousands of orphans when a big database meets a
 * small compile database).
 */
void plan_adopt_orphans(struct pool *p, struct strmap *prev_owned)
{
	int *includer = xmalloc((p->nr_ofiles + 1) * sizeof(*includer));
	size_t i, t, j, n;
	char **inc;

	for (i = 0; i < p->nr_ofiles; i++)
		includer[i] = -1;
	for (t = 0; t < p->db->nr && p->nr_ofiles; t++) {
		if (!p->status[t].reused)
			continue;
		n = db_tu_includes(p->fdb, p->status[t].dbkey, &inc);
		for (j = 0; j < n; j++) {
			int k = strmap_get(&p->ofile_index, inc[j]);

			if (k >= 0 && includer[k] < 0)
				includer[k] = (int)t;
		}
		strv_free(inc, n);
	}
	for (i = 0; i <= prev_owned->mask; i++) {
		const char *key = prev_owned->slots[i].key;
		struct tu_status *st;
		int who;

		if (!key || strmap_get(&p->claims.set, key) >= 0)
			continue;
		who = includer[prev_owned->slots[i].value];
		if (who < 0)
			continue;	/* no kept TU includes it now */
		st = &p->status[who];
		if (st->reused) {
			st->reused = false;
			st->parse = true;
			p->work[p->nr_work++] = (size_t)who;
		}
		claims_take(&p->claims, key, who);
	}
	free(includer);
}

/*
 * Which entries are parsed, and the key of each in the database: its
 * path, and its flags' hash too when the compile database builds the
 * file more than once (VHE and nVHE hyp code): one key per build.
 */
void plan_entries(struct pool *p)
{
	const struct compdb *db = p->db;
	const char *root = p->a->root;
	struct strmap seen;
	int *times = xcalloc(db->nr + 1, sizeof(*times));
	size_t i;

	for (i = 0; i < db->nr; i++) {
		struct clang_args args;
		struct tu_status *st = &p->status[i];

		st->skip = flags_translate(&db->entries[i], root, &args);
		if (st->skip == FLAGS_PARSE)
			st->flags_hash = flags_hash(&args, root);
		clang_args_free(&args);
		if (st->skip == FLAGS_SKIP_COMPILER && db->entries[i].argc &&
		    flag_warn_once(&p->warnings, db->entries[i].argv[0]))
			diag_at(db->entries[i].file, "warning", "unknown "
				"compiler '%s': entry skipped",
				db->entries[i].argv[0]);
		st->parse = st->skip == FLAGS_PARSE;
		st->dbkey = path_relative(db->entries[i].file, root);
	}
	/* How many entries build each file: its first entry counts them. */
	strmap_init(&seen);
	for (i = 0; i < db->nr; i++)
		times[strmap_put(&seen, db->entries[i].file, (int)i)]++;
	for (i = 0; i < db->nr; i++) {
		int first = strmap_get(&seen, db->entries[i].file);

		if (times[first] > 1 && p->status[i].skip == FLAGS_PARSE) {
			char *k = xasprintf("%s@%016llx", p->status[i].dbkey,
					    (unsigned long long)
					    p->status[i].flags_hash);

			free(p->status[i].dbkey);
			p->status[i].dbkey = k;
		}
	}
	strmap_free(&seen);
	free(times);
}
