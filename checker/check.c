// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - "trapcheck check": one TU under kbuild's CHECK protocol.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/analyze.h"
#include "trapcheck/compdb.h"
#include "trapcheck/db.h"
#include "trapcheck/emit.h"
#include "trapcheck/extract.h"
#include "trapcheck/factsio.h"
#include "trapcheck/flags.h"
#include "trapcheck/procpool.h"
#include "trapcheck/rules.h"

/*
 * kbuild's CHECKFLAGS name the architecture the way sparse needs it
 * (arch/<arch>/Makefile: CHECKFLAGS += -D__aarch64__); the target triple
 * follows from it.
 */
static const struct {
	const char *define, *target;
} check_targets[] = {
	{ "-D__aarch64__", "aarch64-linux-gnu" },
	{ "-D__x86_64__", "x86_64-linux-gnu" },
	{ "-D__arm__", "arm-linux-gnueabi" },
	{ "-D__riscv", "riscv64-linux-gnu" },
	{ "-D__powerpc64__", "powerpc64le-linux-gnu" },
	{ "-D__s390x__", "s390x-linux-gnu" },
};

/* Functions other TUs already stored the bodies of: not extracted again. */
static void preclaim(struct db *fdb, struct claims *c, const char *self)
{
	char **tus, **keys, **files;
	size_t n = db_tus(fdb, &tus), i, j, k;

	for (i = 0; i < n; i++) {
		if (strcmp(tus[i], self)) {
			k = db_tu_header_funcs(fdb, tus[i], &keys, &files);
			for (j = 0; j < k; j++) {
				claims_take(c, keys[j], -1);
				free(keys[j]);
				free(files[j]);
			}
			if (k) {
				free(keys);
				free(files);
			}
		}
		free(tus[i]);
	}
	free(tus);
}

/* The one TU, parsed in a worker process (procpool.h). */
struct check_job {
	CXIndex idx;
	const struct compdb_entry *e;
	struct clang_args *args;
	const struct extract_opts *eo;
	struct tu_facts *facts;
	char *why;
};

static void check_start(void *ctx)
{
	struct check_job *j = ctx;

	j->idx = clang_createIndex(0, 0);
}

static void check_stop(void *ctx)
{
	struct check_job *j = ctx;

	clang_disposeIndex(j->idx);
}

static void check_work(void *ctx, size_t item, struct bytes *out)
{
	struct check_job *j = ctx;
	struct tu_facts f;

	extract_tu(j->idx, j->e->file, j->args, j->eo, &f);
	facts_encode(&f, 0, out);
	tu_facts_free(&f);
}

static void check_done(void *ctx, size_t item, const void *msg, size_t len)
{
	struct check_job *j = ctx;
	uint64_t h;

	if (facts_decode(msg, len, j->facts, &h))
		j->why = xstrdup("the parser's result did not decode");
}

static void check_failed(void *ctx, size_t item, const char *why)
{
	struct check_job *j = ctx;

	j->why = xstrdup(why);
}

/*
 * Parse @e into @facts. False, with why in @why, when the parser crashed
 * or ran past TRAPCHECK_TU_TIMEOUT seconds (default 300).
 */
static bool isolated_parse(const struct compdb_entry *e,
			   struct clang_args *args,
			   const struct extract_opts *eo,
			   struct tu_facts *facts, char **why)
{
	const char *t = getenv("TRAPCHECK_TU_TIMEOUT");
	struct check_job j = {
		.e = e, .args = args, .eo = eo, .facts = facts,
	};
	struct procpool_ops ops = {
		.ctx = &j,
		.start = check_start,
		.work = check_work,
		.done = check_done,
		.failed = check_failed,
		.stop = check_stop,
	};
	struct procpool_opts po = {
		.jobs = 1,
		.timeout = t ? (unsigned int)strtoul(t, NULL, 10) : 300,
	};
	size_t item = 0;

	memset(facts, 0, sizeof(*facts));
	if (procpool_run(&item, 1, &po, &ops) && !j.why)
		j.why = xstrdup("no parser process");
	if (j.why) {
		tu_facts_free(facts);
		*why = j.why;
		return false;
	}
	return true;
}

int check_main(int argc, char **argv)
{
	const char *dbpath = getenv("TRAPCHECK_DB"), *file = NULL;
	const char *target = NULL;
	struct compdb_entry e = { 0 };
	struct extract_opts eo = { 0 };
	struct flag_warnings warn;
	struct claims claims;
	struct clang_args args;
	struct tu_facts facts;
	struct findings fs = { 0 };
	struct root_sets none = { 0 };
	struct graph g;
	struct db *fdb;
	char cwd[4096], err[1024], *rel;
	bool fail = false, quiet = false;
	char *why = NULL;
	int i, ret = 0;
	size_t k;

	e.argv = xcalloc(argc + 2, sizeof(*e.argv));
	e.argv[e.argc++] = NULL;	/* the compiler, once known */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t n = strlen(a);

		if (!strncmp(a, "--db=", 5))
			dbpath = a + 5;
		else if (!strcmp(a, "--fail"))
			fail = true;
		else if (!strcmp(a, "-q"))
			quiet = true;
		else if (a[0] != '-' && n > 2 && !strcmp(a + n - 2, ".c"))
			file = a;
		else
			e.argv[e.argc++] = xstrdup(a);
		for (k = 0; k < ARRAY_SIZE(check_targets); k++)
			if (!strcmp(a, check_targets[k].define))
				target = check_targets[k].target;
	}
	if (!dbpath || !file || !getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "trapcheck check: usage: trapcheck check "
			"--db=FILE [--fail] [-q] <gcc flags> file.c (or set "
			"TRAPCHECK_DB)\n");
		compdb_free_argv(e.argv + 1, e.argc - 1);
		free(e.argv);
		return TC_EXIT_USAGE;
	}
	e.argv[0] = target ? xasprintf("%s-gcc", target) : xstrdup("gcc");
	e.argv[e.argc++] = xstrdup(file);
	e.directory = path_normalize(cwd);
	e.file = path_join(e.directory, file);

	if (db_open(&fdb, dbpath, err, sizeof(err))) {
		fprintf(stderr, "trapcheck: error: %s\n", err);
		ret = TC_EXIT_USAGE;
		goto out_free_entry;
	}
	if (!db_root(fdb))
		db_set_root(fdb, e.directory);
	if (flags_translate(&e, db_root(fdb), &args) != FLAGS_PARSE) {
		clang_args_free(&args);
		goto out_close;		/* not a kernel C file: nothing to do */
	}
	rel = path_relative(e.file, db_root(fdb));
	claims_init(&claims);
	preclaim(fdb, &claims, rel);
	flag_warnings_init(&warn);
	eo.root = db_root(fdb);
	eo.claims = &claims;
	eo.owner = 0;
	eo.warnings = &warn;
	if (!isolated_parse(&e, &args, &eo, &facts, &why)) {
		/* A crash of ours must not break the kernel build. */
		fprintf(stderr, "%s: warning: trapcheck: not analysed: %s\n",
			rel, why);
		free(why);
		ret = fail ? TC_EXIT_OUTPUT : 0;
		goto out_free_facts;
	}
	if (facts.first_error && !quiet)
		fprintf(stderr, "%s: note: parsed with %u error%s, first: %s\n",
			rel, facts.nr_errors, facts.nr_errors == 1 ? "" : "s",
			facts.first_error);
	{
		/* The key of a compile database run would differ: check
		 * mode's facts are kept until a run with -p replaces them. */
		char *key = xasprintf("check:%s", rel);

		if (db_store(fdb, rel, key, &facts)) {
			fprintf(stderr, "trapcheck: error: %s: cannot store the "
				"facts of %s\n", dbpath, rel);
			ret = TC_EXIT_OUTPUT;
		}
		free(key);
	}
	/* What one TU can tell: the rules that need no root set. */
	graph_init(&g);
	graph_merge(&g, &facts);
	graph_finish(&g);
	rules_run(&g, &none, NULL, &fs, NULL, NULL);
	emit_text(stdout, &fs, &(struct emit_opts){ 0 });
	if (fail && fs.nr && !ret)
		ret = TC_EXIT_FINDINGS;
	findings_free(&fs);
	graph_free(&g);
out_free_facts:
	tu_facts_free(&facts);
	flag_warnings_free(&warn);
	claims_free(&claims);
	clang_args_free(&args);
	free(rel);
out_close:
	db_close(fdb);
out_free_entry:
	compdb_free_argv(e.argv, e.argc);
	free(e.directory);
	free(e.file);
	return ret;
}
