// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-scan.c - the default mode: analyse the tree (or, as `trapcheck
 * report --db FILE`, link what the facts database holds) and report the
 * findings.
 */
#include "prog.h"

int cmd_scan(struct prog *p)
{
	return prog_analysed(p, prog_report);
}
