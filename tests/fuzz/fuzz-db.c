// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-db.c - the input is a facts database file (db.h), as a damaged
 * disk or another program could leave it: opened read only as trapcheck
 * report opens it, every TU's facts loaded and merged into a graph, as
 * the link does, and the rules that need no root set run over it. It must
 * be refused with a one-line error, or give facts the graph and the rules
 * can take (every index in range, every site with a file): never a crash.
 */
#include "fuzz.h"

#include "trapcheck/store/db.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256], err[1024], **tus = NULL;
	struct graph g;
	struct db *db;
	size_t n = 0, i;
	int ret;

	if (!fuzz_temp(path, sizeof(path), "db", ".db", data, size))
		return 0;
	memset(err, 0x5a, sizeof(err));
	ret = db_open(&db, path, DB_READ, err, sizeof(err));
	fuzz_check_err(err, sizeof(err), ret);
	if (ret)
		goto out_unlink;
	graph_init(&g);
	n = db_tus(db, &tus);
	for (i = 0; i < n; i++) {
		struct tu_facts f;

		if (!db_load(db, tus[i], &f)) {
			if (!f.parse_error)
				graph_merge(&g, &f);
			facts_free(&f);
		}
	}
	ret = db_error(db, err, sizeof(err));
	fuzz_check_err(err, sizeof(err), ret);
	if (!ret) {
		struct findings fs = { 0 };
		struct root_sets none = { 0 };

		/* What one TU can show, as trapcheck check prints it. */
		graph_finish(&g);
		rules_run(&g, &none, NULL, &fs, NULL, NULL);
		findings_free(&fs);
	}
	strv_free(tus, n);
	graph_free(&g);
	db_close(db);
out_unlink:
	unlink(path);
	return 0;
}
