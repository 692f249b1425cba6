// SPDX-License-Identifier: GPL-2.0
/*
 * analyze.c - parse every TU of a compile database in parser processes,
 * merge the facts into one graph and run the rules.
 *
 * This file runs it: the keys that make a TU's stored facts stale, the
 * summary every run ends with, which TUs are parsed, the link of every
 * TU's facts into the graph, the run itself (the pool, the facts
 * database, the rules). The parse, in processes or threads, is
 * analyze-pool.c's; a run from facts databases alone analyze-report.c's.
 * The merge order varies with -j but the graph's walks are ordered by
 * keys and call sites, so results do not.
 */
#include <clang-c/Index.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"
#include "trapcheck/graph/regroots.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/model/macrodefs.h"
#include "trapcheck/model/macroset.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/input/kconfig.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/graph/graphio.h"

#include "analyze-internal.h"

/*
 * What makes a TU's stored facts stale: the hash of its
 * translated flags and of the contents of it and every file it included
 * (analyze-internal.h). The run (analyze.c) plans with them, the parse
 * (analyze-pool.c) stores under them.
 */

/*
 * The hash of a TU's translated flags, before any retry drops some. The
 * tree's own path is left out (flags_translate() makes -I and -include
 * paths absolute): a database keeps its facts when its tree is moved or
 * copied (cp -a, a hard-linked copy), and only what changed is parsed.
 */
uint64_t analyze_flags_hash(const struct clang_args *args, const char *root)
{
	uint64_t h = hash_str(FACTS_VERSION);
	size_t n = strlen(root);
	int j;

	if (args->assembly)
		h = hash_mix(h, hash_str(ASM_FACTS_VERSION));

	for (j = 0; j < args->argc; j++) {
		const char *a = args->argv[j], *at;
		uint64_t v = 0xcbf29ce484222325ULL;

		/* Each "ROOT/" or final "ROOT" counts as "$ROOT". */
		while (n && (at = strstr(a, root)) &&
		       (at[n] == '/' || !at[n])) {
			char *head = xstrndup(a, (size_t)(at - a));

			v = hash_mix(v, hash_str(head));
			v = hash_mix(v, hash_str("$ROOT"));
			free(head);
			a = at + n;
		}
		v = hash_mix(v, hash_str(a));
		h = hash_mix(h, v);
	}
	return h;
}

/*
 * One file's part of a contents hash: its name's hash and its contents'
 * hash mixed in, each worked out once per run (the only memo of a run's
 * file hashes: each file is stat()ed and looked up once). Under db_lock.
 */
static uint64_t mix_file(struct pool *p, uint64_t c, const char *file)
{
	int i = strmap_get(&p->key_files, file);

	if (i < 0) {
		char *fh = db_file_hash(p->fdb, p->a->root, file);

		i = strmap_put(&p->key_files, file,
			       (int)(p->nr_key_hashes / 2));
		*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
			hash_str(file);
		*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
			hash_str(fh);
		free(fh);
	}
	c = hash_mix(c, p->key_hashes[2 * i]);
	return hash_mix(c, p->key_hashes[2 * i + 1]);
}

static void key_memo_seed(const char *rel, const char *hash, void *arg)
{
	struct pool *p = arg;

	if (strmap_get(&p->key_files, rel) >= 0)
		return;
	strmap_put(&p->key_files, rel, (int)(p->nr_key_hashes / 2));
	*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
		hash_str(rel);
	*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
		hash_str(hash);
}

static char *key_text(uint64_t h, uint64_t c)
{
	return xasprintf("%016llx:%016llx", (unsigned long long)h,
			 (unsigned long long)c);
}

/* "flags-hash:contents-hash" of a TU: what makes its facts stale. */
char *analyze_tu_key(struct pool *p, uint64_t h, const char *rel,
		     char **includes, size_t nr)
{
	uint64_t c = 0xcbf29ce484222325ULL;
	size_t i;

	pthread_mutex_lock(&p->db_lock);
	for (i = 0; i <= nr; i++)
		c = mix_file(p, c, i ? includes[i - 1] : rel);
	pthread_mutex_unlock(&p->db_lock);
	return key_text(h, c);
}

struct stored_key {
	struct pool *p;
	uint64_t c;
};

static void mix_stored(const char *file, void *arg)
{
	struct stored_key *k = arg;

	k->c = mix_file(k->p, k->c, file);
}

static char *tu_key_stored(struct pool *p, uint64_t h, const char *rel,
		    const char *dbkey)
{
	struct stored_key k = { .p = p, .c = 0xcbf29ce484222325ULL };
	long nr;

	pthread_mutex_lock(&p->db_lock);
	k.c = mix_file(p, k.c, rel);
	nr = db_tu_includes_each(p->fdb, dbkey, mix_stored, &k);
	pthread_mutex_unlock(&p->db_lock);
	return nr < 0 ? NULL : key_text(h, k.c);
}

static char *tu_key_unchanged(uint64_t h, const char *stored)
{
	const char *c = strchr(stored, ':');

	return c ? xasprintf("%016llx%s", (unsigned long long)h, c) : NULL;
}

/*
 * What every run ends with, from a compile database
 * or from facts databases: the rules over the linked graph and the
 * summary of what was analysed (analyze-internal.h); freeing an analysis.
 */

/*
 * What the linked graph and the architecture's tables say of themselves,
 * for the summary.
 */
void analyze_stats(struct analysis *a)
{
	const struct arch *arch = arch_current();

	graph_stats(&a->graph, &a->graph_stats);
	if (arch->tables_stats && a->graph.arch_tables)
		arch->tables_stats(a->graph.arch_tables, &a->tables);
}

/* The rules over the linked graph, and what they counted. */
void analyze_rules(struct analysis *a, const struct analysis_opts *o,
		   const struct root_sets *roots)
{
	struct rules_opts ro = { o->per_root, o->all_chains, o->outer_any,
				 o->outer_nested, o->machine };

	regroots_find(&a->graph, roots);
	rules_run(&a->graph, roots, &ro, &a->findings, &a->low, &a->rules);
	a->rules.low = a->low.nr;
}

void analysis_summary(const struct analysis *a, struct summary *s)
{
	s->tus = &a->tus;
	s->graph = &a->graph_stats;
	s->rules = &a->rules;
	s->tables = &a->tables;
	s->baseline = &a->baseline;
}

void analyze_graph_start(struct analysis *a, const struct analysis_opts *o)
{
	graph_init(&a->graph);
	if (o->max_targets)
		a->graph.max_targets = o->max_targets;
}

void analysis_free(struct analysis *a)
{
	size_t i;

	findings_free(&a->findings);
	findings_free(&a->low);
	findings_free(&a->hidden);
	facts_stats_free(&a->tus);
	free(a->tables.unresolved);
	free(a->tables.unknown);
	graph_free(&a->graph);
	free(a->root);
	for (i = 0; i < a->nr_configs; i++) {
		if (a->parts)
			analysis_free(&a->parts[i]);
		free(a->configs[i]);
	}
	free(a->parts);
	free(a->configs);
	for (i = 0; i < a->nr_earlier; i++)
		analysis_free(&a->earlier[i]);
	free(a->earlier);
}

/*
 * Which TUs a run parses: the entries of the compile
 * database and their keys; with a facts database, which keep their
 * stored facts, the header functions those own, and the kept TUs that
 * must be parsed again to adopt functions whose owner is gone.
 */

/*
 * The macros the unsaved headers changed only in macros change, once per
 * run: their hashes (any TU that expands one), and those of every
 * definition that may expand one, in turn, by the file it is in (a TU
 * that includes the file and expands the name): macrodefs.h, over the
 * definitions of every file the database knows and the new text of those
 * headers. And the names that may be newly defined.
 */
static void macro_query(struct pool *p)
{
	struct macro_defs *defs;
	struct macro_dep *deps;
	char **changed = NULL, **files, *path, *text;
	size_t nr = 0, alloc = 0, n, i, len, len2, nr_deps, alloc_q = 0;
	unsigned int u;
	char **v;

	for (u = 0; u < p->opts->nr_unsaved; u++) {
		const struct unsaved_file *f = &p->opts->unsaved[u];

		for (v = f->macros; v && *v; v++)
			*PUSH(changed, nr, alloc) = *v;
		for (v = f->macros_added; v && *v; v++)
			*PUSH(p->macro_new, p->nr_macro_new,
			      p->alloc_macro_new) = *v;
	}
	if (!nr)
		return;
	*PUSH(changed, nr, alloc) = NULL;
	defs = macro_defs_new();
	n = db_files(p->fdb, &files);
	for (i = 0; i < n; i++) {
		path = path_join(p->a->root, files[i]);
		text = file_bytes(path, &len);
		len2 = strlen(files[i]);
		if (text)
			macro_defs_read(defs, text, len, (int)i, len2 > 2 &&
					!strcmp(files[i] + len2 - 2, ".c"));
		free(text);
		free(path);
	}
	for (u = 0; u < p->opts->nr_unsaved; u++)
		if (p->opts->unsaved[u].macros)
			macro_defs_read(defs, p->opts->unsaved[u].text,
					p->opts->unsaved[u].len, -1, false);
	deps = macro_defs_closure(defs, changed, &nr_deps);
	macro_defs_free(defs);
	free(changed);
	/* Sorted by file, then hash: one sorted run of hashes per file. */
	for (i = 0; i < nr_deps; i++) {
		struct macro_file *mf;

		if (deps[i].file < 0) {
			*PUSH(p->macro_q, p->nr_macro_q, alloc_q) = deps[i].h;
			continue;
		}
		if (!p->nr_macro_files || strcmp(
			    p->macro_files[p->nr_macro_files - 1].file,
			    files[deps[i].file])) {
			mf = PUSH(p->macro_files, p->nr_macro_files,
				  p->alloc_macro_files);
			memset(mf, 0, sizeof(*mf));
			mf->file = xstrdup(files[deps[i].file]);
			strmap_put(&p->macro_file_index, mf->file,
				   (int)p->nr_macro_files - 1);
		}
		mf = &p->macro_files[p->nr_macro_files - 1];
		*PUSH(mf->h, mf->nr, mf->alloc) = deps[i].h;
	}
	free(deps);
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
}

/*
 * The hashes a TU that includes @file (or is it) depends on through the
 * definitions there: added to @q.
 */
static void macro_file_query(const struct pool *p, const char *file,
			     uint32_t **q, size_t *nr, size_t *alloc)
{
	int k = strmap_get(&p->macro_file_index, file);
	size_t i;

	if (k < 0)
		return;
	for (i = 0; i < p->macro_files[k].nr; i++)
		*PUSH(*q, *nr, *alloc) = p->macro_files[k].h[i];
}

/* Is @rel one of the unsaved headers changed only in macros? */
static const struct unsaved_file *unsaved_of(const struct pool *p,
					     const char *rel)
{
	unsigned int u;

	for (u = 0; u < p->opts->nr_unsaved; u++) {
		char *r = path_relative(p->opts->unsaved[u].path, p->a->root);
		bool same = !strcmp(r, rel);

		free(r);
		if (same)
			return &p->opts->unsaved[u];
	}
	return NULL;
}

/*
 * Does file @rel (as the patch leaves it) name one of the macros that
 * may be newly defined? Its own definitions are those that define them:
 * a header changed only in macros is not asked (shape_macros() read it).
 * Known once per file; an unreadable file names them.
 */
static bool names_new_macro(struct pool *p, const char *rel)
{
	int known = strmap_get(&p->mentions, rel);
	const struct unsaved_file *u;
	const char *text, *q;
	char *path, *own = NULL;
	size_t len, i, n;
	bool hit = false;

	if (known >= 0)
		return known;
	u = unsaved_of(p, rel);
	if (u && u->macros) {
		strmap_put(&p->mentions, rel, 0);
		return false;
	}
	if (u) {
		text = u->text;
		len = u->len;
	} else {
		path = path_join(p->a->root, rel);
		text = own = file_bytes(path, &len);
		free(path);
		hit = !own;
	}
	for (i = 0; !hit && i < p->nr_macro_new; i++) {
		n = strlen(p->macro_new[i]);
		for (q = text; !hit && q && (size_t)(q - text) + n <= len;
		     q++) {
			q = memmem(q, len - (size_t)(q - text),
				   p->macro_new[i], n);
			if (!q)
				break;
			hit = (q == text || !ident_char(q[-1])) &&
			      ((size_t)(q - text) + n == len ||
			       !ident_char(q[n]));
		}
	}
	free(own);
	strmap_put(&p->mentions, rel, hit);
	return hit;
}

/*
 * A TU that includes a header changed only in macros: does its stored
 * macro set hold a changed one, or does it include a file naming one
 * that may be newly defined? A TU with no set (assembly) is parsed.
 */
static bool macro_hit(struct pool *p, const char *dbkey, const char *file,
		      char **inc, size_t nr)
{
	char *set = db_tu_macros(p->fdb, dbkey);
	uint32_t *q = NULL;
	size_t nq = 0, alloc = 0, i;
	const char *why = NULL;
	int any;

	for (i = 0; i < p->nr_macro_q; i++)
		*PUSH(q, nq, alloc) = p->macro_q[i];
	macro_file_query(p, file, &q, &nq, &alloc);
	for (i = 0; i < nr; i++)
		macro_file_query(p, inc[i], &q, &nq, &alloc);
	nq = macroset_sort(q, nq);
	any = set ? macroset_any(set, q, nq) : -ENOENT;
	free(q);
	free(set);
	p->nr_macro_includers++;
	if (any)
		why = any > 0 ? "depends on a changed macro" :
				"no macro set stored";
	if (!why && p->nr_macro_new && names_new_macro(p, file))
		why = file;
	for (i = 0; !why && p->nr_macro_new && i < nr; i++)
		if (names_new_macro(p, inc[i]))
			why = inc[i];
	if (!why)
		return false;
	p->nr_macro_parsed++;
	if (p->opts->bodyskip_stats) {
		char *line = xasprintf("macros: %s parsed again: %s%s", dbkey,
				       any ? "" : "a new macro named in ",
				       why);

		diag_line(line);
		free(line);
	}
	return true;
}

/*
 * Is the TU's file @file, or one it includes, given as unsaved text, in
 * a way that changes the TU (@dbkey: its stored facts)?
 */
static bool reads_unsaved(struct pool *p, const char *dbkey,
			  const char *file, char **inc, size_t nr)
{
	bool macros = false;
	unsigned int u;
	size_t i;

	for (u = 0; u < p->opts->nr_unsaved; u++) {
		const struct unsaved_file *f = &p->opts->unsaved[u];
		char *rel = path_relative(f->path, p->a->root);
		bool hit = !strcmp(file, rel), own = hit;

		/* A body-only change reaches its bodies' owners only. */
		for (i = 0; i < nr && !hit && !f->body_only; i++)
			hit = !strcmp(inc[i], rel);
		free(rel);
		/* A macro change: those whose macros it changes. */
		if (hit && !own && f->macros) {
			macros = true;
			continue;
		}
		if (hit)
			return true;
	}
	return macros && macro_hit(p, dbkey, file, inc, nr);
}

/*
 * The headers changed only inside function bodies, or there and in
 * macros (relative to the tree), once per run; NULL-terminated, or NULL
 * when there are none.
 */
static char **body_only_files(const struct pool *p)
{
	char **v = NULL;
	size_t nr = 0, alloc = 0;
	unsigned int u;

	for (u = 0; u < p->opts->nr_unsaved; u++)
		if (p->opts->unsaved[u].body_only ||
		    p->opts->unsaved[u].macros)
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

/* How many includers of the headers changed in macros only are parsed. */
static void say_macros(const struct pool *p)
{
	struct bytes names = { 0 };
	unsigned int u, n = 0;
	char **v;

	if (!p->nr_macro_includers)
		return;
	for (u = 0; u < p->opts->nr_unsaved; u++)
		for (v = p->opts->unsaved[u].macros; v && *v; v++, n++) {
			if (n < 4 && n)
				bytes_put(&names, ", ", 2);
			if (n < 4)
				bytes_put(&names, *v, strlen(*v));
		}
	if (n > 4)
		bytes_put(&names, ", ...", 5);
	bytes_put(&names, "", 1);
	diag_info("a change to macros only (%s): %zu of the %zu TUs that include it parsed again",
		  (char *)names.data, p->nr_macro_parsed,
		  p->nr_macro_includers);
	bytes_free(&names);
}

/*
 * With a database: which TUs can keep their stored facts (same flags,
 * same contents of the TU and of everything it included last time), and
 * the header functions they own, which the re-parsed TUs need not
 * extract again.
 */
static void plan_incremental(struct pool *p, struct strmap *prev_owned)
{
	char **changed = body_only_files(p);
	/*
	 * Every stored key, include list and file hash read below is of
	 * one snapshot: another run's commit meanwhile is not half seen.
	 */
	bool snap = !db_snapshot_begin(p->fdb);
	/*
	 * No file changed since the stored link was made: each stored key's
	 * contents part is still right, and no include list is read.
	 */
	bool unchanged = !p->opts->nr_unsaved && db_link_kept(p->fdb) &&
			 db_files_unchanged(p->fdb, p->a->root, key_memo_seed,
					    p);
	size_t i;

	macro_query(p);
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
				key = analyze_tu_key(p, h, file, inc, nr);
			} else if (unchanged) {
				key = tu_key_unchanged(h, stored);
			} else {
				key = tu_key_stored(p, h, file, rel);
			}
			st->reused = key && !strcmp(key, stored) &&
				     !reads_unsaved(p, rel, file, inc, nr) &&
				     !owns_changed_body(p, rel, changed);
			free(file);
		}
		if (st->reused) {
			/* The facts the link may read: those of this key. */
			st->key = key;
			key = NULL;
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
	say_macros(p);
	forget_dropped(p, prev_owned);
	if (snap)
		db_snapshot_end(p->fdb);
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
static void plan_adopt_orphans(struct pool *p, struct strmap *prev_owned)
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
static void plan_entries(struct pool *p)
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
		if (st->skip == FLAGS_PARSE && args.assembly &&
		    !p->opts->assembly)
			st->skip = FLAGS_SKIP_NOT_C;
		if (st->skip == FLAGS_PARSE)
			st->flags_hash = analyze_flags_hash(&args, root);
		flags_args_free(&args);
		if (st->skip == FLAGS_SKIP_COMPILER && db->entries[i].argc &&
		    flags_warn_once(&p->warnings, db->entries[i].argv[0]))
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

/*
 * The link of a run with a facts database: every TU's
 * facts, stored or new, merged into the graph in compile database order;
 * or, when no TU changed, the graph the last such link merged, read back
 * from the database in one piece (the stored link, graphio.h).
 *
 * The stored link is kept under a key made of every linked TU's database
 * path and stored key, in order, and of what the bytes depend on besides
 * (the facts' and the format's version, this build of trapcheck); storing
 * any TU's facts or a file's new hash drops it (store/db.c), and it is
 * written only if no TU's key changed while the run read the facts. So
 * it is read only when the same facts would be merged in the same order:
 * the run's output is the same byte for byte either way (tests/e2e/db.t
 * compares).
 */

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
 * The key of the stored link this run could read or write, of the TU
 * keys this run kept or stored (@now: of those the database holds now):
 * NULL when a linked TU has none (not read, crashed, or never stored),
 * or the build cannot be told.
 */
static char *link_key(struct pool *p, bool now)
{
	uint64_t h = hash_mix(hash_str(FACTS_VERSION), graphio_hash());
	size_t i, n = 0;

	if (!build_id())
		return NULL;
	h = hash_mix(h, build_id());

	for (i = 0; i < p->db->nr; i++) {
		char *key;

		if (!linked(&p->status[i]))
			continue;
		key = now ? db_tu_key(p->fdb, p->status[i].dbkey) :
			    (p->status[i].key ? xstrdup(p->status[i].key) :
						NULL);
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
	return graphio_decode(data, len, arg);
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
 * Unsaved files (a patch linted) that no TU reads leave every key as
 * stored, and the link made of those TUs' facts is the graph.
 */
static bool read_stored(struct pool *p, const char *key)
{
	size_t i;
	int ret;

	if (!key || p->nr_work)
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
		ret = db_load_head(p->fdb, st->dbkey, st->key, &st->facts);
		p->stale |= ret == -ESTALE;
		if (ret)
			continue;	/* the database's failure is said */
		p->a->tus.from_db++;
		take_errors(st);
		facts_free(&st->facts);
	}
	p->a->tus.stored_link = true;
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
	char *now = link_key(s->p, true);
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
	graphio_encode(&p->a->graph, &b);
	if (b.len)
		db_link_write(p->fdb, key, b.data, b.len, still_same, &s);
	bytes_free(&b);
}

static void link_from_db(struct pool *p)
{
	struct analysis *a = p->a;
	const char **keep = xcalloc(p->db->nr + 1, sizeof(*keep));
	size_t i, nr_keep = 0;
	char *key = NULL;
	bool stored, whole = true;
	int ret;

	if (!p->nr_work || p->store)
		key = link_key(p, false);
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
		ret = st->reused || p->store ?
		      db_load_linked(p->fdb, st->dbkey, st->key, &st->facts) :
		      -ENOENT;
		if (!ret) {
			a->tus.from_db += st->reused;
			take_errors(st);
		} else {
			/* Another run stored it meanwhile: link again. */
			p->stale |= ret == -ESTALE;
			whole = false;
		}
		if (!st->facts.parse_error)
			graph_merge(&a->graph, &st->facts);
		facts_free(&st->facts);
	}
	if (p->store && !db_error(p->fdb, NULL, 0))
		a->tus.removed = db_prune(p->fdb, keep, nr_keep);
	free(keep);
	if (!stored)
		write_stored(p, key, whole);
	free(key);
}

static void summarise(struct pool *p)
{
	struct tu_stats *s = &p->a->tus;
	size_t i;

	s->entries = p->db->nr;
	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];

		if (st->skip != FLAGS_PARSE) {
			s->skipped++;
			continue;
		}
		if (!st->parse_error)
			s->tus++;
		if (!st->parse_error && !st->nr_errors) {
			free(st->first_error);
			st->first_error = NULL;
			continue;
		}
		/* The first error is the summary's now. */
		facts_add_problem(s, path_relative(p->db->entries[i].file,
						   p->a->root),
				  st->nr_errors, st->first_error,
				  st->parse_error);
		st->first_error = NULL;
	}
	analyze_stats(p->a);
}

/* The pool of a run over @db, with libclang's view of the unsaved files. */
static void pool_init(struct pool *p, const struct compdb *db,
		      const struct analysis_opts *o, struct analysis *a)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->db = db;
	p->opts = o;
	p->a = a;
	p->status = xcalloc(db->nr, sizeof(*p->status));
	p->cx_unsaved = xcalloc(o->nr_unsaved + 1, sizeof(*p->cx_unsaved));
	for (i = 0; i < o->nr_unsaved; i++) {
		p->cx_unsaved[i].Filename = o->unsaved[i].path;
		p->cx_unsaved[i].Contents = o->unsaved[i].text;
		p->cx_unsaved[i].Length = o->unsaved[i].len;
	}
	claims_init(&p->claims);
	strmap_init(&p->ofile_index);
	strmap_init(&p->mentions);
	strmap_init(&p->macro_file_index);
	flags_warnings_init(&p->warnings);
	pthread_mutex_init(&p->merge_lock, NULL);
	pthread_mutex_init(&p->take_lock, NULL);
	pthread_mutex_init(&p->db_lock, NULL);
	strmap_init(&p->key_files);
}

static void pool_free(struct pool *p)
{
	size_t i;

	for (i = 0; i < p->db->nr; i++) {
		free(p->status[i].key);
		free(p->status[i].dbkey);
		free(p->status[i].first_error);
		facts_free(&p->status[i].facts);
	}
	strv_free(p->ofiles, p->nr_ofiles);
	strmap_free(&p->ofile_index);
	strmap_free(&p->mentions);
	free(p->macro_q);
	free(p->macro_new);
	for (i = 0; i < p->nr_macro_files; i++) {
		free(p->macro_files[i].file);
		free(p->macro_files[i].h);
	}
	free(p->macro_files);
	strmap_free(&p->macro_file_index);
	db_close(p->fdb);
	pthread_mutex_destroy(&p->merge_lock);
	pthread_mutex_destroy(&p->take_lock);
	pthread_mutex_destroy(&p->db_lock);
	strmap_free(&p->key_files);
	free(p->key_hashes);
	flags_warnings_free(&p->warnings);
	claims_free(&p->claims);
	free(p->cx_unsaved);
	free(p->work);
	free(p->status);
}

/*
 * Parse what p->work holds, with SIGINT and SIGTERM caught; with a
 * database, then the kept TUs that adopt orphaned header functions.
 */
static void parse_all(struct pool *p, struct strmap *prev_owned)
{
	struct sigaction old[2];

	analyze_catch_signals(old);
	analyze_workers(p);
	if (p->fdb && !analysis_interrupted()) {
		size_t first = p->nr_work;

		plan_adopt_orphans(p, prev_owned);
		if (p->nr_work > first) {
			/* Parse just the adopted ones. */
			memmove(p->work, p->work + first,
				(p->nr_work - first) * sizeof(*p->work));
			p->nr_work -= first;
			p->a->tus.parsed += p->nr_work;
			analyze_workers(p);
		}
	}
	analyze_restore_signals(old);
}

/*
 * The facts database of a run: the architecture checked before anything
 * is written (a refused run leaves the file as it was), then the tree
 * and the run recorded. One this process may not write is read: what
 * changed is parsed into memory, nothing stored.
 */
static int open_db(struct pool *p, const struct analysis_opts *o,
		   struct analysis *a, char *err, size_t errlen)
{
	int ret = db_open(&p->fdb, o->db_path, DB_WRITE, err, errlen);

	if (ret)
		return ret;
	ret = db_check_arch(p->fdb, arch_current()->name, err, errlen);
	if (ret)
		return ret;
	p->store = !o->unsaved && !db_readonly(p->fdb);
	if (db_readonly(p->fdb)) {
		diag_at(o->db_path, "note", "cannot write the database (%s): "
			"what changed is analysed in memory, not stored",
			db_readonly_why(p->fdb));
		return 0;
	}
	/*
	 * Keys and paths are relative to the tree: the database of a tree
	 * that moved, or of the tree a copy was made from, is this tree's
	 * now (what differs is parsed again).
	 */
	ret = db_begin_run(p->fdb, a->root, arch_current()->name, p->store);
	if (ret)
		db_error(p->fdb, err, errlen);
	return ret;
}

static int run_once(struct analysis *a, const struct analysis_opts *o,
		    const struct root_sets *roots, char *err, size_t errlen)
{
	struct compdb db;
	struct pool p;
	const struct arch *arch;
	struct strmap prev_owned;
	size_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	if (!o->compdb)
		return analyze_from_db(a, o, roots, err, errlen);
	ret = compdb_load(&db, o->compdb, err, errlen);
	if (ret)
		return ret;
	/* Before any parser process starts: they inherit it. */
	arch = arch_of_compdb(&db);
	if (arch)
		arch_set(arch);
	if (o->srctree) {
		ret = compdb_set_srctree(&db, o->srctree, err, errlen);
		if (ret) {
			compdb_free(&db);
			return ret;
		}
	}
	if (o->shard_n)
		a->tus.shard_of = compdb_shard(&db, o->shard_k,
						   o->shard_n);
	a->root = xstrdup(db.srctree);
	analyze_graph_start(a, o);
	pool_init(&p, &db, o, a);
	strmap_init(&prev_owned);

	if (o->db_path) {
		ret = open_db(&p, o, a, err, errlen);
		if (ret)
			goto out_free;
	}
	plan_entries(&p);
	if (p.fdb)
		plan_incremental(&p, &prev_owned);
	p.work = xcalloc(db.nr + 1, sizeof(*p.work));
	for (i = 0; i < db.nr; i++)
		if (p.status[i].parse)
			p.work[p.nr_work++] = i;
	a->tus.parsed = p.nr_work;

	ret = p.fdb ? db_error(p.fdb, err, errlen) : 0;
	if (!ret)
		parse_all(&p, &prev_owned);
	if (!ret && p.fdb)
		ret = db_error(p.fdb, err, errlen);
	if (ret)
		goto out_free;
	if (analysis_interrupted()) {
		snprintf(err, errlen, "interrupted: %zu TUs parsed%s",
			 (size_t)atomic_load(&p.done), p.store ?
			 " and stored in the database" : "");
		if (p.fdb)
			db_end_run(p.fdb, false);
		ret = -EINTR;
		goto out_free;
	}
	if (p.fdb) {
		link_from_db(&p);
		ret = db_end_run(p.fdb, true);
		if (ret) {
			db_error(p.fdb, err, errlen);
			goto out_free;
		}
		if (p.stale) {
			ret = -ESTALE;
			goto out_free;
		}
	}
	a->graph.features = o->features;
	graph_finish(&a->graph);
	summarise(&p);
	analyze_rules(a, o, roots);
	ret = 0;

out_free:
	if (ret) {
		/* Nothing half-made for the caller to free. */
		analysis_free(a);
		memset(a, 0, sizeof(*a));
	}
	pool_free(&p);
	strmap_free(&prev_owned);
	compdb_free(&db);
	return ret;
}

/*
 * How many times a run links again when another run sharing its --db
 * stored, between this run's reading of a TU's key and of its facts,
 * other facts for the TU (a tree that differs): each time, what changed
 * is parsed again.
 */
#define STALE_TRIES 5

int analysis_run(struct analysis *a, const struct analysis_opts *o,
		 const struct root_sets *roots, char *err, size_t errlen)
{
	int ret, tries = 0;

	do
		ret = run_once(a, o, roots, err, errlen);
	while (ret == -ESTALE && ++tries < STALE_TRIES);
	if (ret == -ESTALE)
		snprintf(err, errlen, "%s: other runs stored this tree's TUs "
			 "while this one read them, %d times: run again, or "
			 "give each tree its own --db", o->db_path,
			 STALE_TRIES);
	return ret;
}
