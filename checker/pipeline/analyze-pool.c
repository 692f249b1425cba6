// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-pool.c - the parse of a run's TUs (analyze.c plans which).
 *
 * Each TU is parsed in a parser process (procpool.h): a crash or a hang
 * costs that TU only, and the facts come back encoded (factsio.h). With
 * --no-isolate, threads parse instead, each with its own CXIndex
 * (libclang is thread-safe across indexes). Whichever parsed it, a TU's
 * facts are taken here one at a time: stored in the facts database, or
 * merged into the graph under one lock. SIGINT and SIGTERM stop the
 * parse; what was stored is kept.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/clang/extract.h"
#include "trapcheck/store/factsio.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/input/procpool.h"

#include "analyze-internal.h"

static volatile sig_atomic_t interrupted;
/* Stop handing out TUs: a signal, or the database failed (take_tu()). */
static volatile sig_atomic_t halt;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
	halt = 1;
}

bool analysis_interrupted(void)
{
	return interrupted;
}

void analyze_catch_signals(struct sigaction old[2])
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
}

void analyze_restore_signals(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
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
	/* The file last: a narrow terminal cuts it, not the counts. */
	diag_progress("[%zu/%zu] ETA %ldm%02lds %s", done, p->nr_work,
		      eta / 60, eta % 60, file);
	if (done == p->nr_work)
		diag_progress(NULL);
}

/* The facts of entry @i that say why it has none (@error is taken). */
static void no_facts(struct pool *p, size_t i, int parse_error, char *error,
		     struct tu_facts *facts)
{
	memset(facts, 0, sizeof(*facts));
	facts->file = path_relative(p->db->entries[i].file, p->a->root);
	facts->parse_error = parse_error;
	facts->first_error = error;
}

/*
 * A file the command makes the parser read before the TU (-include,
 * -imacros) that is no regular file (/dev/zero, a FIFO, /dev/stdin)
 * would grow the parser's memory or hang it: why, or NULL.
 */
static char *forced_include_bad(const struct clang_args *a)
{
	struct stat sb;
	const char *path;
	int i;

	for (i = 0; i < a->argc; i++) {
		if (!strcmp(a->argv[i], "-include") ||
		    !strcmp(a->argv[i], "-imacros"))
			path = i + 1 < a->argc ? a->argv[++i] : NULL;
		else if (!strncmp(a->argv[i], "-include", 8))
			path = a->argv[i] + 8;
		else if (!strncmp(a->argv[i], "-imacros", 8))
			path = a->argv[i] + 8;
		else
			continue;
		if (!path || stat(path, &sb) || S_ISREG(sb.st_mode))
			continue;	/* a missing one: clang says so */
		return xasprintf("%s: %s, not a regular file (-include)",
				 path, S_ISFIFO(sb.st_mode) ? "a FIFO" :
				 S_ISDIR(sb.st_mode) ? "a directory" :
				 "a device or socket");
	}
	return NULL;
}

/* Parse entry @i into @facts: in a parser process, or in a thread. */
static void parse_tu(struct pool *p, CXIndex idx, struct body_skip *skip,
		     size_t i, struct tu_facts *facts, uint64_t *fhash)
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
		.skip = skip,
	};
	struct clang_args args;
	struct stat sb;
	char *why;

	/* Not a readable regular file: say so, never hang on a FIFO. */
	if (stat(e->file, &sb) || !S_ISREG(sb.st_mode) ||
	    access(e->file, R_OK)) {
		int er = errno;

		no_facts(p, i, TU_NOT_READ,
			 xstrdup(stat(e->file, &sb) ? strerror(er) :
				 !S_ISREG(sb.st_mode) ?
				 "not a regular file" : strerror(er)),
			 facts);
		*fhash = 0;
		return;
	}
	flags_translate(e, p->a->root, &args);
	/* The key's flags as translated: a retry may drop rejected ones. */
	*fhash = analyze_flags_hash(&args, p->a->root);
	why = forced_include_bad(&args);
	if (why)
		no_facts(p, i, TU_NOT_READ, why, facts);
	else if (args.assembly)
		extract_asm(e, &args, &eo, facts);
	else
		extract_tu(idx, e->file, &args, &eo, facts);
	flags_args_free(&args);
}

/* The facts of entry @i, parsed: store or merge them. Takes @facts. */
static void take_tu(struct pool *p, size_t i, struct tu_facts *facts,
		    uint64_t fhash)
{
	struct tu_status *st = &p->status[i];
	size_t k;

	for (k = 0; k < facts->nr_warnings; k++)
		if (flags_warn_once(&p->warnings, facts->warnings[k].flag))
			diag_line(facts->warnings[k].text);
	st->parse_error = facts->parse_error;
	st->nr_errors = facts->nr_errors;
	free(st->first_error);
	st->first_error = facts->first_error ? xstrdup(facts->first_error) :
					       NULL;
	if (facts->parse_error == TU_NOT_READ ||
	    facts->parse_error == TU_CRASHED) {
		/* Not stored: the next run tries again. */
		facts_free(facts);
		goto out_progress;
	}
	/* What a parser process claimed, the link must know is claimed. */
	for (k = 0; k < facts->nr_funcs; k++)
		if (facts->funcs[k].file &&
		    strcmp(facts->funcs[k].file, facts->file))
			claims_take(&p->claims, facts->funcs[k].key, (int)i);
	if (p->fdb && p->store) {
		/* Stored now (one transaction), read back at the link. */
		char *key = analyze_tu_key(p, fhash, facts->file,
					   facts->includes,
					   facts->nr_includes);

		pthread_mutex_lock(&p->db_lock);
		/* A failed write ends the run: nothing after it is parsed. */
		if (db_store(p->fdb, st->dbkey, key, facts))
			halt = 1;
		pthread_mutex_unlock(&p->db_lock);
		free(st->key);
		st->key = key;
		facts_free(facts);
	} else if (p->fdb) {
		/* Unsaved contents, or a read-only database: in memory. */
		st->facts = *facts;
		memset(facts, 0, sizeof(*facts));
	} else {
		if (!facts->parse_error) {
			pthread_mutex_lock(&p->merge_lock);
			graph_merge(&p->a->graph, facts);
			pthread_mutex_unlock(&p->merge_lock);
		}
		facts_free(facts);
	}
out_progress:
	progress(p, p->db->entries[i].file);
}

/* What a parser blanks of the headers it has seen; NULL: nothing. */
static struct body_skip *new_skip(const struct pool *p)
{
	if (p->opts->every_body)
		return NULL;
	return body_skip_new(p->cx_unsaved, p->opts->nr_unsaved);
}

/* A parser's counters of blanked bodies, when asked (a test hook). */
static void say_skip(const struct pool *p, const struct body_skip *s)
{
	struct body_skip_stats st;
	char *line;

	if (!s || !p->opts->bodyskip_stats)
		return;
	body_skip_stats(s, &st);
	line = xasprintf("bodyskip: %lu TUs blanked, %lu parsed again, "
			 "%lu bodies in %lu headers", st.tus, st.redone,
			 st.bodies, st.files);
	diag_line(line);
	free(line);
}

/* In-process (--no-isolate): threads, each with its own index. */
static void *worker(void *arg)
{
	struct pool *p = arg;
	CXIndex idx = clang_createIndex(0, 0);
	struct body_skip *skip = new_skip(p);
	size_t i;

	while (!halt &&
	       (i = atomic_fetch_add(&p->next, 1)) < p->nr_work) {
		struct tu_facts facts;
		uint64_t fhash;

		parse_tu(p, idx, skip, p->work[i], &facts, &fhash);
		pthread_mutex_lock(&p->take_lock);
		take_tu(p, p->work[i], &facts, fhash);
		pthread_mutex_unlock(&p->take_lock);
	}
	clang_disposeIndex(idx);
	say_skip(p, skip);
	body_skip_free(skip);
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

	if (flags_translate(e, root, &args) != FLAGS_PARSE || args.assembly) {
		flags_args_free(&args);
		return NULL;
	}
	out = open_memstream(&buf, &len);
	if (!out) {
		flags_args_free(&args);
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
	flags_args_free(&args);
	return buf;
}

/* The parser processes' side: one index per process. */
static CXIndex proc_index;
static struct body_skip *proc_skip;

static void proc_start(void *ctx)
{
	proc_index = clang_createIndex(0, 0);
	proc_skip = new_skip(ctx);
}

static void proc_stop(void *ctx)
{
	(void)ctx;
	clang_disposeIndex(proc_index);
	say_skip(ctx, proc_skip);
	body_skip_free(proc_skip);
	proc_skip = NULL;
}

static void proc_work(void *ctx, size_t i, struct bytes *out)
{
	struct pool *p = ctx;
	struct tu_facts facts;
	uint64_t fhash;

	parse_tu(p, proc_index, proc_skip, i, &facts, &fhash);
	factsio_encode(&facts, fhash, out);
	facts_free(&facts);
}

static void proc_done(void *ctx, size_t i, const void *msg, size_t len)
{
	struct pool *p = ctx;
	struct tu_facts facts;
	uint64_t fhash;

	if (factsio_decode(msg, len, &facts, &fhash))
		no_facts(p, i, TU_CRASHED,
			 xstrdup("the parser's result did not decode"),
			 &facts);
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
	no_facts(p, i, TU_CRASHED, xasprintf("%s; reproduce: cd %s && %s", why,
					    p->a->root, cmd), &facts);
	free(cmd);
	take_tu(p, i, &facts, 0);
}

void analyze_workers(struct pool *p)
{
	struct procpool_opts po = {
		.jobs = p->opts->jobs,
		.timeout = p->opts->tu_timeout,
		.memory_mib = p->opts->tu_memory_mib,
		.stop = &halt,
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
	halt = interrupted;
	if (p->opts->no_isolate)
		run_threads(p);
	else if (procpool_run(p->work, p->nr_work, &po, &ops) && !halt)
		diag_warning("parser processes failed; some TUs were not "
			     "analysed");
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
		char *cmd = tu_command(&db.entries[i], db.srctree);

		if (cmd)
			fprintf(out, "%s\n", cmd);
		free(cmd);
	}
	compdb_free(&db);
	if (fflush(out) || ferror(out)) {
		snprintf(err, errlen, "<stdout>: cannot write: %s",
			 strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}
