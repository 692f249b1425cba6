// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-scan.c - the default mode: analyse the tree (or, as `trapcheck
 * report --db FILE...`, link what the facts databases hold) and report
 * the findings; with --shard, analyse one share of the tree into the
 * database and report nothing (a chain may cross shards: only the
 * joined databases have the whole graph).
 */
#include "prog.h"
#include "trapcheck/base/diag.h"

static int shard_stored(struct prog *p, struct analysis *a)
{
	const struct tu_stats *s = &a->tus;

	if (!p->quiet)
		diag_status("shard %u/%u: %zu of %zu compile-database entries "
			    "(%zu TUs analysed, %zu skipped), facts in %s; "
			    "trapcheck report --db A --db B ... joins the "
			    "shards", p->ao.shard_k, p->ao.shard_n,
			    s->entries, s->shard_of, s->tus, s->skipped,
			    p->ao.db_path);
	return prog_status(p, a) == TC_EXIT_INCOMPLETE ? TC_EXIT_INCOMPLETE :
							TC_EXIT_CLEAN;
}

/* Joined databases that overlap: said, since one copy was dropped. */
static int scan_report(struct prog *p, struct analysis *a)
{
	if (a->tus.duplicates)
		diag_warning("%zu TUs are in more than one database: the "
			     "facts of the first that holds each were used",
			     a->tus.duplicates);
	return prog_report(p, a);
}

int cmd_scan(struct prog *p)
{
	if (p->ao.shard_n)
		return prog_analysed(p, shard_stored);
	return prog_analysed(p, scan_report);
}
