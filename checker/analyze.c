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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "trapcheck/analyze.h"
#include "trapcheck/compdb.h"
#include "trapcheck/extract.h"
#include "trapcheck/flags.h"
#include "trapcheck/rules.h"

struct tu_status {
	enum flags_skip skip;
	int parse_error;
	unsigned int nr_errors;
	char *first_error;
};

struct pool {
	const struct compdb *db;
	const struct analysis_opts *opts;
	struct analysis *a;
	struct tu_status *status;
	struct claims claims;
	struct flag_warnings warnings;
	pthread_mutex_t merge_lock;
	atomic_size_t next;
	atomic_size_t done;
};

static void progress(struct pool *p, const char *file)
{
	size_t done = atomic_fetch_add(&p->done, 1) + 1;

	if (!p->opts->progress)
		return;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, p->db->nr, file);
	if (done == p->db->nr)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static void one_tu(struct pool *p, CXIndex idx, size_t i)
{
	const struct compdb_entry *e = &p->db->entries[i];
	struct tu_status *st = &p->status[i];
	struct extract_opts eo = {
		.root = p->a->root,
		.claims = &p->claims,
		.warnings = &p->warnings,
		.unsaved = p->opts->unsaved,
		.nr_unsaved = p->opts->nr_unsaved,
	};
	struct clang_args args;
	struct tu_facts facts;

	st->skip = flags_translate(e, p->a->root, &args);
	if (st->skip == FLAGS_SKIP_COMPILER && e->argc &&
	    flag_warn_once(&p->warnings, e->argv[0]))
		fprintf(stderr, "%s: warning: unknown compiler '%s': entry "
			"skipped\n", e->file, e->argv[0]);
	if (st->skip != FLAGS_PARSE)
		goto out_progress;

	extract_tu(idx, e->file, &args, &eo, &facts);
	st->parse_error = facts.parse_error;
	st->nr_errors = facts.nr_errors;
	st->first_error = facts.first_error;
	facts.first_error = NULL;
	if (!facts.parse_error) {
		pthread_mutex_lock(&p->merge_lock);
		graph_merge(&p->a->graph, &facts);
		pthread_mutex_unlock(&p->merge_lock);
	}
	tu_facts_free(&facts);
	clang_args_free(&args);
out_progress:
	progress(p, e->file);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	CXIndex idx = clang_createIndex(0, 0);
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->db->nr)
		one_tu(p, idx, i);
	clang_disposeIndex(idx);
	return NULL;
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
			continue;
		}
		pr = PUSH(s->problems, s->nr_problems, s->alloc_problems);
		pr->file = path_relative(p->db->entries[i].file, p->a->root);
		pr->nr_errors = st->nr_errors;
		pr->first_error = st->first_error;
		pr->parse_error = st->parse_error;
	}
	summarise_tables(&p->a->graph.caps, s);
	s->functions = p->a->graph.nr_nodes;
	s->edges = p->a->graph.nr_edges;
	s->sinks = p->a->graph.nr_sinks;
}

int analysis_run(struct analysis *a, const struct analysis_opts *o,
		 const struct root_sets *roots, char *err, size_t errlen)
{
	struct compdb db;
	struct pool p;
	pthread_t *threads;
	int i, jobs, ret;

	memset(a, 0, sizeof(*a));
	ret = compdb_load(&db, o->compdb, err, errlen);
	if (ret)
		return ret;
	a->root = xstrdup(db.root);
	graph_init(&a->graph);

	memset(&p, 0, sizeof(p));
	p.db = &db;
	p.opts = o;
	p.a = a;
	p.status = xcalloc(db.nr, sizeof(*p.status));
	claims_init(&p.claims);
	flag_warnings_init(&p.warnings);
	pthread_mutex_init(&p.merge_lock, NULL);
	atomic_init(&p.next, 0);
	atomic_init(&p.done, 0);

	jobs = o->jobs > 0 ? o->jobs : 1;
	if ((size_t)jobs > db.nr)
		jobs = (int)db.nr;
	threads = xcalloc(jobs, sizeof(*threads));
	for (i = 1; i < jobs; i++)
		if (pthread_create(&threads[i], NULL, worker, &p)) {
			jobs = i;	/* fewer threads, same result */
			break;
		}
	worker(&p);
	for (i = 1; i < jobs; i++)
		pthread_join(threads[i], NULL);
	free(threads);

	graph_finish(&a->graph);
	caps_resolve(&a->graph);
	summarise(&p);
	rules_run(&a->graph, roots, &a->findings);

	pthread_mutex_destroy(&p.merge_lock);
	flag_warnings_free(&p.warnings);
	claims_free(&p.claims);
	free(p.status);
	compdb_free(&db);
	return 0;
}

void analysis_free(struct analysis *a)
{
	findings_free(&a->findings);
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

int analysis_print_commands(const char *compdb, FILE *out, char *err,
			    size_t errlen)
{
	struct compdb db;
	size_t i;
	int j, ret;

	ret = compdb_load(&db, compdb, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < db.nr; i++) {
		struct clang_args args;

		if (flags_translate(&db.entries[i], db.root, &args) !=
		    FLAGS_PARSE) {
			clang_args_free(&args);
			continue;
		}
		fputs("clang -fsyntax-only", out);
		for (j = 0; j < args.argc; j++) {
			fputc(' ', out);
			put_quoted(out, args.argv[j]);
		}
		fputc(' ', out);
		put_quoted(out, db.entries[i].file);
		fputc('\n', out);
		clang_args_free(&args);
	}
	compdb_free(&db);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
