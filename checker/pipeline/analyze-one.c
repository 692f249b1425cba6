// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-one.c - one TU parsed in a worker process, for the CHECK
 * protocol (analyze.h: analysis_parse_one()): a crash or a hang of the
 * parser costs that TU, never kbuild's run.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/clang/extract.h"
#include "trapcheck/store/factsio.h"
#include "trapcheck/input/procpool.h"

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
	factsio_encode(&f, 0, out);
	facts_free(&f);
}

static void check_done(void *ctx, size_t item, const void *msg, size_t len)
{
	struct check_job *j = ctx;
	uint64_t h;

	if (factsio_decode(msg, len, j->facts, &h))
		j->why = xstrdup("the parser's result did not decode");
}

static void check_failed(void *ctx, size_t item, const char *why)
{
	struct check_job *j = ctx;

	j->why = xstrdup(why);
}

int analysis_parse_one(const struct compdb_entry *e,
		       struct clang_args *args, const struct one_tu *o,
		       struct tu_facts *facts, char **why)
{
	struct extract_opts eo = {
		.root = o->root, .claims = o->claims, .owner = 0,
		.warnings = o->warnings, .fault = o->fault,
	};
	struct check_job j = {
		.e = e, .args = args, .eo = &eo, .facts = facts,
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
		.timeout = o->timeout,
	};
	size_t item = 0;

	memset(facts, 0, sizeof(*facts));
	if (procpool_run(&item, 1, &po, &ops) && !j.why)
		j.why = xstrdup("no parser process");
	if (j.why) {
		facts_free(facts);
		*why = j.why;
		return -1;
	}
	return 0;
}

