// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-diff.c - --diff PATCH: what a patch adds to the tree's hot paths or
 * removes from their guards, found by the rules themselves on the
 * patched sources (patchlint.h), reported like any finding.
 */
#include <errno.h>

#include "prog.h"
#include "trapcheck/pipeline/patchlint.h"
#include "trapcheck/base/util.h"

int cmd_diff(struct prog *p)
{
	struct analysis a, b;
	char err[1024];
	int ret = prog_analyse(p, &a);

	if (ret)
		return ret;
	if (p->diff_range)
		ret = patchlint_range(p->diff_range, &a, &p->ao, &p->roots,
				      &b, err, sizeof(err));
	else
		ret = patchlint_run(p->diff, &a, &p->ao, &p->roots, &b, err,
				    sizeof(err));
	analysis_free(&a);
	if (ret)
		return prog_fail(err, ret == -EINTR ? TC_EXIT_INTERRUPTED :
						      TC_EXIT_USAGE);
	ret = prog_select(p, &b);
	if (!ret)
		ret = prog_report(p, &b);
	analysis_free(&b);
	return ret;
}
