// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-diff.c - --diff PATCH: what a patch adds to the tree's hot paths or
 * removes from their guards, found by the rules themselves on the
 * patched sources (patchlint.h), reported like any finding.
 */
#include "prog.h"
#include "trapcheck/diag.h"
#include "trapcheck/patchlint.h"
#include "trapcheck/util.h"

int cmd_diff(struct prog *p)
{
	struct analysis a;
	struct findings pf = { 0 };
	char err[1024];
	int ret = prog_analyse(p, &a);

	if (ret)
		return ret;
	if (patchlint_run(p->diff, &a.graph, &p->roots, &pf, err,
			  sizeof(err))) {
		diag_error("%s", err);
		findings_free(&pf);
		analysis_free(&a);
		return TC_EXIT_USAGE;
	}
	/* The patch's findings replace the tree's. */
	findings_free(&a.findings);
	a.findings = pf;
	ret = prog_report(p, &a);
	analysis_free(&a);
	return ret;
}
