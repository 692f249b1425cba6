// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-scan.c - the default mode: analyse the tree (or, as `trapcheck
 * report --db FILE`, link what the facts database holds) and report the
 * findings.
 */
#include "prog.h"

int cmd_scan(struct prog *p)
{
	struct analysis a;
	int ret = prog_analyse(p, &a);

	if (ret)
		return ret;
	ret = prog_report(p, &a);
	analysis_free(&a);
	return ret;
}
