/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registration-aware dispatch (checker/model/dispatch.def): a call through a
 * member that registration fills (notifier_block.notifier_call) reaches
 * the callbacks registered on the list head the dispatch call is made on,
 * not every function ever stored in that member. The tables here; their
 * resolution over the graph is graph_dispatch() (graph.h).
 */
#ifndef TRAPCHECK_DISPATCH_H
#define TRAPCHECK_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Is "struct.member" filled by registration? */
bool dispatch_member(const char *member);
/* Is "struct.member" a member of a control block (CTL_MEMBER)? */
bool dispatch_ctl_member(const char *member);
/* The length of its struct's name when it is one, else 0. */
size_t dispatch_ctl_struct_len(const char *member);
/* A register function of the table: the arguments naming head and block. */
bool dispatch_reg_fn(const char *name, int *head, int *block);
/* A dispatch function of the table: the argument naming the head. */
bool dispatch_fn(const char *name, int *head);

/* "var:cpu_pm_notifier.chain@kernel/cpu_pm.c" -> "cpu_pm_notifier.chain" */
char *dispatch_head_name(const char *id);

#endif /* TRAPCHECK_DISPATCH_H */
