// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-query.c - trapcheck callers|callees FN, path FROM TO, why FILE:LINE:
 * questions to the call graph (-p TREE or --db FILE).
 */
#include <errno.h>
#include <string.h>

#include "prog.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/output/query.h"
#include "trapcheck/base/util.h"

static int query(struct prog *p, struct analysis *a)
{
	const char *cmd = p->cmd;
	char **w = p->words;
	int r;

	if (!strcmp(cmd, "callers"))
		r = query_callers(stdout, &a->graph, w[0]);
	else if (!strcmp(cmd, "callees"))
		r = query_callees(stdout, &a->graph, w[0]);
	else if (!strcmp(cmd, "path"))
		r = query_path(stdout, &a->graph, w[0], w[1]);
	else
		r = query_why(stdout, &a->graph, &p->roots, w[0]);
	if (r == -ENOENT) {
		diag_error("%s: no function '%s' in the call graph", cmd,
			   query_known(&a->graph, w[0]) ? w[1] : w[0]);
		return TC_EXIT_USAGE;
	}
	if (r < 0) {
		diag_error("%s: bad argument", cmd);
		return TC_EXIT_USAGE;
	}
	if (r)
		diag_info("%s: nothing found", cmd);
	return r ? TC_EXIT_FINDINGS : TC_EXIT_CLEAN;
}

int cmd_query(struct prog *p)
{
	return prog_analysed(p, query);
}
