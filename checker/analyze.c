// SPDX-License-Identifier: GPL-2.0
/*
 * analyze.c - parse every TU of a compile database on N threads, merge
 * the facts into one graph and run the rules.
 *
 * Each thread owns a CXIndex (libclang is thread-safe across indexes).
 * A TU's AST is disposed as soon as its facts are extracted; facts are
 * merged under one lock. The merge order varies with -j but the graph's
 * walks are ordered by keys and call sites, so results do not.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "trapcheck/diag.h"
#include "trapcheck/analyze.h"
#include "trapcheck/compdb.h"
#include "trapcheck/db.h"
#include "trapcheck/extract.h"
#include "trapcheck/factsio.h"
#include "trapcheck/flags.h"
#include "trapcheck/procpool.h"
#include "trapcheck/rules.h"

struct tu_status {
	char *dbkey;		/* the TU in the database: its path, and its
				 * flags' hash when the compile database
				 * builds the file more than once */
	enum flags_skip skip;
	bool parse;		/* to be parsed in this run */
	bool reused;		/* its facts come from the database */
	char *key;		/* database key (flags + contents) */
	int parse_error;
	unsigned int nr_errors;
	char *first_error;
	struct tu_facts facts;	/* parsed facts, kept for the link (DB) */
};

struct pool {
	const struct compdb *db;
	const struct analysis_opts *opts;
	struct analysis *a;
	struct tu_status *status;
	struct claims claims;
	struct flag_warnings warnings;
	pthread_mutex_t merge_lock;
	pthread_mutex_t take_lock;	/* threads: one take_tu() at a time */
	struct db *fdb;			/* the facts database, or NULL */
	struct CXUnsavedFile *cx_unsaved; /* opts->unsaved, for libclang */
	pthread_mutex_t db_lock;
	size_t *work;			/* entries to parse, in db order */
	size_t nr_work;
	char **ofiles;			/* files of possibly orphaned funcs */
	size_t nr_ofiles, alloc_ofiles;
	atomic_size_t next;
	atomic_size_t done;
	time_t start;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

bool analysis_interrupted(void)
{
	return interrupted;
}

static void progress(struct pool *p, const char *file)
{
	size_t done = atomic_fetch_add(&p->done, 1) + 1;
	time_t now = time(NULL);
	long eta;

	if (!p->opts->progress)
		return;
	size_t n = strlen(p->a->root);

	eta = done ? (long)((now - p->start) * (p->nr_work - done) / done) : 0;
	if (!strncmp(file, p->a->root, n) && file[n] == '/')
		file += n + 1;
	diag_progress("[%zu/%zu] %s  ETA %ldm%02lds", done, p->nr_work, file,
		      eta / 60, eta % 60);
	if (done == p->nr_work)
		diag_progress(NULL);
}

/*
 * The hash of a TU's translated flags, before any retry drops some. The
 * tree's own path is left out (flags_translate() makes -I and -include
 * paths absolute): a database keeps its facts when its tree is moved or
 * copied (cp -a, a hard-linked copy), and only what changed is parsed.
 */
static uint64_t flags_hash(const struct clang_args *args, const char *root)
{
	uint64_t h = hash_str(FACTS_VERSION);
	size_t n = strlen(root);
	int j;

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

/* "flags-hash:contents-hash" of a TU: what makes its facts stale. */
static char *tu_key(struct pool *p, uint64_t h, const char *rel,
		    char **includes, size_t nr)
{
	uint64_t c = 0xcbf29ce484222325ULL;
	size_t i;

	pthread_mutex_lock(&p->db_lock);
	for (i = 0; i <= nr; i++) {
		const char *file = i ? includes[i - 1] : rel;
		char *fh = db_file_hash(p->fdb, p->a->root, file);

		c = hash_mix(c, hash_str(file));
		c = hash_mix(c, hash_str(fh));
		free(fh);
	}
	pthread_mutex_unlock(&p->db_lock);
	return xasprintf("%016llx:%016llx", (unsigned long long)h,
			 (unsigned long long)c);
}

static bool includes_unsaved(const struct pool *p, char **inc, size_t nr)
{
	unsigned int u;
	size_t i;

	for (u = 0; u < p->opts->nr_unsaved; u++) {
		char *rel = path_relative(p->opts->unsaved[u].path,
					  p->a->root);
		bool hit = false;

		for (i = 0; i < nr && !hit; i++)
			hit = !strcmp(inc[i], rel);
		free(rel);
		if (hit)
			return true;
	}
	return false;
}

/* Parse entry @i into @facts: in a parser process, or in a thread. */
static void parse_tu(struct pool *p, CXIndex idx, size_t i,
		     struct tu_facts *facts, uint64_t *fhash)
{
	const struct compdb_entry *e = &p->db->entries[i];
	struct extract_opts eo = {
		.root = p->a->root,
		.claims = &p->claims,
		.owner = (int)i,
		.defer_warnings = true,
		.unsaved = p->cx_unsaved,
		.nr_unsaved = p->opts->nr_unsaved,
		.fault = p->opts->fault,
	};
	struct clang_args args;
	struct stat sb;

	/* Not a readable regular file: say so, never hang on a FIFO. */
	if (stat(e->file, &sb) || !S_ISREG(sb.st_mode) ||
	    access(e->file, R_OK)) {
		int er = errno;

		memset(facts, 0, sizeof(*facts));
		facts->file = path_relative(e->file, p->a->root);
		facts->parse_error = TU_NOT_READ;
		facts->first_error = xstrdup(stat(e->file, &sb) ?
					     strerror(er) :
					     !S_ISREG(sb.st_mode) ?
					     "not a regular file" :
					     strerror(er));
		*fhash = 0;
		return;
	}
	flags_translate(e, p->a->root, &args);
	/* The key's flags as translated: a retry may drop rejected ones. */
	*fhash = flags_hash(&args, p->a->root);
	extract_tu(idx, e->file, &args, &eo, facts);
	clang_args_free(&args);
}

/* The facts of entry @i, parsed: store or merge them. Takes @facts. */
static void take_tu(struct pool *p, size_t i, struct tu_facts *facts,
		    uint64_t fhash)
{
	struct tu_status *st = &p->status[i];
	size_t k;

	for (k = 0; k < facts->nr_warnings; k++)
		if (flag_warn_once(&p->warnings, facts->warnings[k].flag))
			diag_line(facts->warnings[k].text);
	st->parse_error = facts->parse_error;
	st->nr_errors = facts->nr_errors;
	free(st->first_error);
	st->first_error = facts->first_error ? xstrdup(facts->first_error) :
					       NULL;
	if (facts->parse_error == TU_NOT_READ ||
	    facts->parse_error == TU_CRASHED) {
		/* Not stored: the next run tries again. */
		tu_facts_free(facts);
		goto out_progress;
	}
	/* What a parser process claimed, the link must know is claimed. */
	for (k = 0; k < facts->nr_funcs; k++)
		if (facts->funcs[k].file &&
		    strcmp(facts->funcs[k].file, facts->file))
			claims_take(&p->claims, facts->funcs[k].key, (int)i);
	if (p->fdb && !p->opts->unsaved) {
		/* Stored now (one transaction), read back at the link. */
		char *key = tu_key(p, fhash, facts->file, facts->includes,
				   facts->nr_includes);

		pthread_mutex_lock(&p->db_lock);
		db_store(p->fdb, st->dbkey, key, facts);
		pthread_mutex_unlock(&p->db_lock);
		free(key);
		tu_facts_free(facts);
	} else if (p->fdb) {
		st->facts = *facts;	/* unsaved contents: never stored */
		memset(facts, 0, sizeof(*facts));
	} else {
		if (!facts->parse_error) {
			pthread_mutex_lock(&p->merge_lock);
			graph_merge(&p->a->graph, facts);
			pthread_mutex_unlock(&p->merge_lock);
		}
		tu_facts_free(facts);
	}
out_progress:
	progress(p, p->db->entries[i].file);
}

/* In-process (--no-isolate): threads, each with its own index. */
static void *worker(void *arg)
{
	struct pool *p = arg;
	CXIndex idx = clang_createIndex(0, 0);
	size_t i;

	while (!interrupted &&
	       (i = atomic_fetch_add(&p->next, 1)) < p->nr_work) {
		struct tu_facts facts;
		uint64_t fhash;

		parse_tu(p, idx, p->work[i], &facts, &fhash);
		pthread_mutex_lock(&p->take_lock);
		take_tu(p, p->work[i], &facts, fhash);
		pthread_mutex_unlock(&p->take_lock);
	}
	clang_disposeIndex(idx);
	return NULL;
}

static void run_threads(struct pool *p)
{
	pthread_attr_t attr;
	pthread_t *threads;
	int i, jobs = p->opts->jobs > 0 ? p->opts->jobs : 1;

	if ((size_t)jobs > p->nr_work)
		jobs = p->nr_work ? (int)p->nr_work : 1;
	threads = xcalloc(jobs, sizeof(*threads));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PROCPOOL_STACK);
	for (i = 0; i < jobs; i++)
		if (pthread_create(&threads[i], &attr, worker, p)) {
			jobs = i;	/* fewer threads, same result */
			break;
		}
	if (!jobs)
		worker(p);
	for (i = 0; i < jobs; i++)
		pthread_join(threads[i], NULL);
	pthread_attr_destroy(&attr);
	free(threads);
}

static char *tu_command(const struct compdb_entry *e, const char *root);

/* The parser processes' side: one index per process. */
static CXIndex proc_index;

static void proc_start(void *ctx)
{
	(void)ctx;
	proc_index = clang_createIndex(0, 0);
}

static void proc_stop(void *ctx)
{
	(void)ctx;
	clang_disposeIndex(proc_index);
}

static void proc_work(void *ctx, size_t i, struct bytes *out)
{
	struct pool *p = ctx;
	struct tu_facts facts;
	uint64_t fhash;

	parse_tu(p, proc_index, i, &facts, &fhash);
	facts_encode(&facts, fhash, out);
	tu_facts_free(&facts);
}

static void proc_done(void *ctx, size_t i, const void *msg, size_t len)
{
	struct pool *p = ctx;
	struct tu_facts facts;
	uint64_t fhash;

	if (facts_decode(msg, len, &facts, &fhash)) {
		memset(&facts, 0, sizeof(facts));
		facts.file = path_relative(p->db->entries[i].file, p->a->root);
		facts.parse_error = TU_CRASHED;
		facts.first_error = xstrdup("the parser's result did not "
					    "decode");
	}
	take_tu(p, i, &facts, fhash);
}

/* A TU whose parser crashed or hung: why, and how to do it by hand. */
static void proc_failed(void *ctx, size_t i, const char *why)
{
	struct pool *p = ctx;
	const struct compdb_entry *e = &p->db->entries[i];
	struct tu_facts facts;
	char *cmd = tu_command(e, p->a->root);

	if (!cmd)
		cmd = xstrdup("(no command)");

	memset(&facts, 0, sizeof(facts));
	facts.file = path_relative(e->file, p->a->root);
	facts.parse_error = TU_CRASHED;
	facts.first_error = xasprintf("%s; reproduce: cd %s && %s", why,
				      p->a->root, cmd);
	free(cmd);
	take_tu(p, i, &facts, 0);
}

static void run_workers(struct pool *p)
{
	struct procpool_opts po = {
		.jobs = p->opts->jobs,
		.timeout = p->opts->tu_timeout,
		.stop = &interrupted,
	};
	struct procpool_ops ops = {
		.ctx = p,
		.start = proc_start,
		.work = proc_work,
		.done = proc_done,
		.failed = proc_failed,
		.stop = proc_stop,
	};

	atomic_store(&p->next, 0);
	atomic_store(&p->done, 0);
	p->start = time(NULL);
	if (p->opts->no_isolate)
		run_threads(p);
	else if (procpool_run(p->work, p->nr_work, &po, &ops) &&
		 !interrupted)
		diag_warning("parser processes failed; some TUs were not "
			     "analysed");
}

static void summarise_tables(const struct cap_table *t,
			     struct run_summary *s)
{
	size_t i, j;

	s->have_caps = t->have_caps;
	s->have_ftr = t->have_ftr;
	s->caps = t->nr;
	s->ftr_regs = t->nr_ftr;
	for (i = 0; i < t->nr; i++) {
		bool dup = false;

		if (t->caps[i].how)
			continue;
		for (j = 0; j < s->nr_unresolved; j++)
			dup |= !strcmp(s->unresolved_caps[j], t->caps[i].name);
		if (!dup)
			*PUSH(s->unresolved_caps, s->nr_unresolved,
			      s->alloc_unresolved) = t->caps[i].name;
	}
	for (i = 0; i < t->nr_ftr; i++)
		if (!reg_lookup(t->ftr_regs[i]))
			*PUSH(s->unknown_regs, s->nr_unknown_regs,
			      s->alloc_unknown_regs) = t->ftr_regs[i];
}

static void summarise(struct pool *p)
{
	struct run_summary *s = &p->a->summary;
	size_t i;

	s->entries = p->db->nr;
	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];
		struct tu_problem *pr;

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
		pr = PUSH(s->problems, s->nr_problems, s->alloc_problems);
		pr->file = path_relative(p->db->entries[i].file, p->a->root);
		pr->nr_errors = st->nr_errors;
		pr->first_error = st->first_error;	/* now the summary's */
		st->first_error = NULL;
		pr->parse_error = st->parse_error;
	}
	summarise_tables(&p->a->graph.caps, s);
	s->inferred = p->a->graph.inferred_edges;
	s->dispatch = &p->a->graph.dispatch;
	s->pruned = p->a->graph.pruned;
	s->nr_pruned = p->a->graph.nr_pruned;
	s->max_targets = p->a->graph.max_targets;
	s->functions = p->a->graph.nr_nodes;
	s->edges = p->a->graph.nr_edges;
	s->sinks = p->a->graph.nr_sinks;
}

/* Index of @file in the pool's list of orphan candidate files. */
static int orphan_file(struct pool *p, const char *file)
{
	size_t i;

	for (i = 0; i < p->nr_ofiles; i++)
		if (!strcmp(p->ofiles[i], file))
			return (int)i;
	*PUSH(p->ofiles, p->nr_ofiles, p->alloc_ofiles) = xstrdup(file);
	return (int)p->nr_ofiles - 1;
}

/*
 * With a database: which TUs can keep their stored facts (same flags,
 * same contents of the TU and of everything it included last time), and
 * the header functions they own, which the re-parsed TUs need not
 * extract again.
 */
static void plan_incremental(struct pool *p, struct strmap *prev_owned)
{
	size_t i, j;

	for (i = 0; i < p->db->nr; i++) {
		struct tu_status *st = &p->status[i];
		char *rel = xstrdup(st->dbkey);
		char *stored = db_tu_key(p->fdb, rel), *key = NULL;
		char **inc = NULL, **keys, **files;
		size_t nr = 0, nk;
		struct clang_args args;

		if (st->skip == FLAGS_PARSE && stored) {
			char *file = path_relative(p->db->entries[i].file,
						   p->a->root);

			flags_translate(&p->db->entries[i], p->a->root, &args);
			nr = db_tu_includes(p->fdb, rel, &inc);
			key = tu_key(p, flags_hash(&args, p->a->root), file,
				     inc, nr);
			free(file);
			clang_args_free(&args);
			st->reused = !strcmp(key, stored) &&
				     !includes_unsaved(p, inc, nr);
		}
		nk = stored ? db_tu_header_funcs(p->fdb, rel, &keys, &files) :
			      0;
		for (j = 0; j < nk; j++) {
			/* Owned by a kept TU: claimed; else maybe orphaned. */
			if (st->reused)
				claims_take(&p->claims, keys[j], (int)i);
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
		st->parse = st->skip == FLAGS_PARSE && !st->reused;
		for (j = 0; j < nr; j++)
			free(inc[j]);
		free(inc);
		free(key);
		free(stored);
		free(rel);
	}
}

/*
 * A header function whose owner was re-parsed or removed, and that no
 * re-parsed TU claimed, would vanish from the graph: re-parse a kept TU
 * that includes its file; it re-extracts what it owned and the orphan.
 */
static void adopt_orphans(struct pool *p, struct strmap *prev_owned)
{
	size_t i, t;

	for (i = 0; i <= prev_owned->mask; i++) {
		const char *key = prev_owned->slots[i].key;
		const char *file;

		if (!key || strmap_get(&p->claims.set, key) >= 0)
			continue;
		file = p->ofiles[prev_owned->slots[i].value];
		for (t = 0; t < p->db->nr; t++) {
			struct tu_status *st = &p->status[t];
			char *rel, **inc;
			size_t n, j;
			bool has = false;

			if (!st->reused)
				continue;
			rel = xstrdup(st->dbkey);
			n = db_tu_includes(p->fdb, rel, &inc);
			for (j = 0; j < n; j++) {
				has |= !strcmp(inc[j], file);
				free(inc[j]);
			}
			free(inc);
			free(rel);
			if (!has)
				continue;
			st->reused = false;
			st->parse = true;
			p->work[p->nr_work++] = t;
			claims_take(&p->claims, key, (int)t);
			break;
		}
	}
}

/*
 * No compile database: link what the facts database holds (filled by
 * "trapcheck check" under make C=1, or by earlier runs) and report.
 */
/* The rules over the linked graph, and what the summary says of them. */
static void run_rules(struct analysis *a, const struct analysis_opts *o,
		      const struct root_sets *roots)
{
	struct rules_opts ro = { o->per_root, o->all_chains };
	struct rules_stats st = { 0 };

	rules_run(&a->graph, roots, &ro, &a->findings, &a->low, &st);
	a->summary.stopped = st.stopped;
	a->summary.low = a->low.nr;
}

static int analysis_from_db(struct analysis *a, const struct analysis_opts *o,
			    const struct root_sets *roots, char *err,
			    size_t errlen)
{
	struct db *fdb;
	char **tus;
	size_t n, i;
	int ret;

	ret = db_open(&fdb, o->db_path, err, errlen);
	if (ret)
		return ret;
	if (!db_root(fdb)) {
		snprintf(err, errlen, "%s: the database is empty", o->db_path);
		db_close(fdb);
		return -ENOENT;
	}
	a->root = xstrdup(db_root(fdb));
	graph_init(&a->graph);
	if (o->max_targets)
		a->graph.max_targets = o->max_targets;
	n = db_tus(fdb, &tus);
	a->summary.entries = n;
	for (i = 0; i < n; i++) {
		struct tu_facts f;

		if (!db_load(fdb, tus[i], &f)) {
			struct run_summary *s = &a->summary;

			if (!f.parse_error)
				s->tus++;
			if (f.parse_error || f.nr_errors) {
				struct tu_problem *pr = PUSH(s->problems,
							     s->nr_problems,
							     s->alloc_problems);

				pr->file = xstrdup(tus[i]);
				pr->nr_errors = f.nr_errors;
				pr->first_error = f.first_error ?
					xstrdup(f.first_error) : NULL;
				pr->parse_error = f.parse_error;
			}
			if (!f.parse_error)
				graph_merge(&a->graph, &f);
			tu_facts_free(&f);
		}
		free(tus[i]);
	}
	free(tus);
	db_close(fdb);
	graph_finish(&a->graph);
	caps_resolve(&a->graph);
	summarise_tables(&a->graph.caps, &a->summary);
	a->summary.inferred = a->graph.inferred_edges;
	a->summary.dispatch = &a->graph.dispatch;
	a->summary.pruned = a->graph.pruned;
	a->summary.nr_pruned = a->graph.nr_pruned;
	a->summary.max_targets = a->graph.max_targets;
	a->summary.functions = a->graph.nr_nodes;
	a->summary.edges = a->graph.nr_edges;
	a->summary.sinks = a->graph.nr_sinks;
	run_rules(a, o, roots);
	return 0;
}

int analysis_run(struct analysis *a, const struct analysis_opts *o,
		 const struct root_sets *roots, char *err, size_t errlen)
{
	struct compdb db;
	struct pool p;
	struct strmap prev_owned;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	const char **keep;
	size_t i, nr_keep = 0;
	int ret;

	memset(a, 0, sizeof(*a));
	if (!o->compdb)
		return analysis_from_db(a, o, roots, err, errlen);
	ret = compdb_load(&db, o->compdb, err, errlen);
	if (ret)
		return ret;
	a->root = xstrdup(db.root);
	graph_init(&a->graph);
	if (o->max_targets)
		a->graph.max_targets = o->max_targets;

	memset(&p, 0, sizeof(p));
	p.db = &db;
	p.opts = o;
	p.a = a;
	p.status = xcalloc(db.nr, sizeof(*p.status));
	p.cx_unsaved = xcalloc(o->nr_unsaved + 1, sizeof(*p.cx_unsaved));
	for (i = 0; i < o->nr_unsaved; i++) {
		p.cx_unsaved[i].Filename = o->unsaved[i].path;
		p.cx_unsaved[i].Contents = o->unsaved[i].text;
		p.cx_unsaved[i].Length = o->unsaved[i].len;
	}
	claims_init(&p.claims);
	flag_warnings_init(&p.warnings);
	pthread_mutex_init(&p.merge_lock, NULL);
	pthread_mutex_init(&p.take_lock, NULL);
	pthread_mutex_init(&p.db_lock, NULL);
	strmap_init(&prev_owned);

	if (o->db_path) {
		ret = db_open(&p.fdb, o->db_path, err, errlen);
		if (ret)
			goto out_free;
		/*
		 * Keys and paths are relative to the tree: the database of a
		 * tree that moved, or of the tree a copy was made from, is
		 * this tree's now (what differs is parsed again).
		 */
		if (!db_root(p.fdb) || strcmp(db_root(p.fdb), a->root))
			db_set_root(p.fdb, a->root);
	}
	for (i = 0; i < db.nr; i++) {
		struct clang_args args;
		struct tu_status *st = &p.status[i];

		st->skip = flags_translate(&db.entries[i], a->root, &args);
		clang_args_free(&args);
		if (st->skip == FLAGS_SKIP_COMPILER && db.entries[i].argc &&
		    flag_warn_once(&p.warnings, db.entries[i].argv[0]))
			diag_at(db.entries[i].file, "warning", "unknown "
				"compiler '%s': entry skipped",
				db.entries[i].argv[0]);
		st->parse = st->skip == FLAGS_PARSE;
		st->dbkey = path_relative(db.entries[i].file, a->root);
	}
	/* A file built twice (VHE and nVHE hyp code): one key per build. */
	for (i = 0; i < db.nr; i++) {
		size_t j, twice = 0;

		for (j = 0; j < db.nr; j++)
			twice += !strcmp(db.entries[i].file, db.entries[j].file);
		if (twice > 1 && p.status[i].skip == FLAGS_PARSE) {
			struct clang_args args;
			char *k;

			flags_translate(&db.entries[i], a->root, &args);
			k = xasprintf("%s@%016llx", p.status[i].dbkey,
				      (unsigned long long)flags_hash(&args,
								     a->root));
			clang_args_free(&args);
			free(p.status[i].dbkey);
			p.status[i].dbkey = k;
		}
	}
	if (p.fdb)
		plan_incremental(&p, &prev_owned);
	p.work = xcalloc(db.nr + 1, sizeof(*p.work));
	for (i = 0; i < db.nr; i++)
		if (p.status[i].parse)
			p.work[p.nr_work++] = i;
	a->summary.parsed = p.nr_work;

	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	run_workers(&p);
	if (p.fdb && !interrupted) {
		size_t first = p.nr_work;

		adopt_orphans(&p, &prev_owned);
		if (p.nr_work > first) {
			/* Parse just the adopted ones. */
			memmove(p.work, p.work + first,
				(p.nr_work - first) * sizeof(*p.work));
			p.nr_work -= first;
			a->summary.parsed += p.nr_work;
			run_workers(&p);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (interrupted) {
		snprintf(err, errlen, "interrupted: %zu TUs parsed%s",
			 (size_t)atomic_load(&p.done), p.fdb ?
			 " and stored in the database" : "");
		ret = -EINTR;
		goto out_free;
	}

	if (p.fdb) {
		/* The link: every TU's facts, stored or new, in db order. */
		keep = xcalloc(db.nr + 1, sizeof(*keep));
		for (i = 0; i < db.nr; i++) {
			struct tu_status *st = &p.status[i];
			char *rel;

			if (st->skip != FLAGS_PARSE)
				continue;
			rel = xstrdup(st->dbkey);
			/* Not read or crashed now: no stale facts either. */
			if (st->parse && (st->parse_error == TU_NOT_READ ||
					  st->parse_error == TU_CRASHED)) {
				keep[nr_keep++] = rel;
				continue;
			}
			/* Kept or just stored; with unsaved files, in memory. */
			if ((st->reused || !o->unsaved) &&
			    !db_load(p.fdb, rel, &st->facts)) {
				a->summary.from_db += st->reused;
				st->parse_error = st->facts.parse_error;
				st->nr_errors = st->facts.nr_errors;
				st->first_error = st->facts.first_error ?
					xstrdup(st->facts.first_error) : NULL;
			}
			if (!st->facts.parse_error)
				graph_merge(&a->graph, &st->facts);
			tu_facts_free(&st->facts);
			keep[nr_keep++] = rel;
		}
		if (!o->unsaved)
			a->summary.removed = db_prune(p.fdb, keep, nr_keep);
		for (i = 0; i < nr_keep; i++)
			free((char *)keep[i]);
		free(keep);
	}

	graph_finish(&a->graph);
	caps_resolve(&a->graph);
	summarise(&p);
	run_rules(a, o, roots);
	ret = 0;

out_free:
	if (ret) {
		/* Nothing half-made for the caller to free. */
		analysis_free(a);
		memset(a, 0, sizeof(*a));
	}
	for (i = 0; i < db.nr; i++) {
		free(p.status[i].key);
		free(p.status[i].dbkey);
		free(p.status[i].first_error);
		tu_facts_free(&p.status[i].facts);
	}
	strmap_free(&prev_owned);
	for (i = 0; i < p.nr_ofiles; i++)
		free(p.ofiles[i]);
	free(p.ofiles);
	db_close(p.fdb);
	pthread_mutex_destroy(&p.merge_lock);
	pthread_mutex_destroy(&p.take_lock);
	pthread_mutex_destroy(&p.db_lock);
	flag_warnings_free(&p.warnings);
	claims_free(&p.claims);
	free(p.cx_unsaved);
	free(p.work);
	free(p.status);
	compdb_free(&db);
	return ret;
}

void analysis_free(struct analysis *a)
{
	findings_free(&a->findings);
	findings_free(&a->low);
	run_summary_free(&a->summary);
	graph_free(&a->graph);
	free(a->root);
}

static void put_quoted(FILE *out, const char *s)
{
	if (*s && !strpbrk(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!")) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* "clang -fsyntax-only ARGS FILE", shell-quoted; NULL when skipped. */
static char *tu_command(const struct compdb_entry *e, const char *root)
{
	struct clang_args args;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int j;

	if (flags_translate(e, root, &args) != FLAGS_PARSE) {
		clang_args_free(&args);
		return NULL;
	}
	out = open_memstream(&buf, &len);
	if (!out) {
		clang_args_free(&args);
		return xstrdup("(out of memory)");
	}
	fputs("clang -fsyntax-only", out);
	for (j = 0; j < args.argc; j++) {
		fputc(' ', out);
		put_quoted(out, args.argv[j]);
	}
	fputc(' ', out);
	put_quoted(out, e->file);
	fclose(out);
	clang_args_free(&args);
	return buf;
}

int analysis_print_commands(const char *compdb, FILE *out, char *err,
			    size_t errlen)
{
	struct compdb db;
	size_t i;
	int ret;

	ret = compdb_load(&db, compdb, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < db.nr; i++) {
		char *cmd = tu_command(&db.entries[i], db.root);

		if (cmd)
			fprintf(out, "%s\n", cmd);
		free(cmd);
	}
	compdb_free(&db);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
