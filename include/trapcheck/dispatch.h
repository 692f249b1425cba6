/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registration-aware dispatch (checker/dispatch.def): a call through a
 * member that registration fills (notifier_block.notifier_call) reaches
 * the callbacks registered on the list head the dispatch call is made on,
 * not every function ever stored in that member.
 */
#ifndef TRAPCHECK_DISPATCH_H
#define TRAPCHECK_DISPATCH_H

#include <stdbool.h>

struct graph;

/* Is "struct.member" filled by registration? */
bool dispatch_member(const char *member);
/* Is "struct.member" a member of a control block (CTL_MEMBER)? */
bool ctl_member(const char *member);

/*
 * Find the register and dispatch functions (the table's and their
 * wrappers), the objects registered on each list head and the callbacks
 * stored in them, and add an inferred edge from each dispatch call on a
 * known head to each callback registered there (via: the head's name).
 * Counts what it resolved in g->dispatch. Called by graph_finish().
 */
void dispatch_resolve(struct graph *g);

/* "var:cpu_pm_notifier.chain@kernel/cpu_pm.c" -> "cpu_pm_notifier.chain" */
char *dispatch_head_name(const char *id);

#endif /* TRAPCHECK_DISPATCH_H */
