/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Roots from registrations: a root set's "register: FUNC N" and "member:
 * STRUCT.MEMBER" lines (roots.h) matched against what the tree passes and
 * stores (the graph's assignments, facts.def TU_ASSIGN_FIELDS): the
 * interrupt handler given to request_threaded_irq(), the poll function
 * given to netif_napi_add_weight(), the ->irq_eoi of an irq_chip. Each
 * becomes a root of its set, found by its node (not its name: a static
 * function of the same name elsewhere is not one), with the place it was
 * registered.
 */
#ifndef TRAPCHECK_REGROOTS_H
#define TRAPCHECK_REGROOTS_H

#include <stdbool.h>

#include "trapcheck/graph/graph.h"
#include "trapcheck/input/roots.h"

/*
 * Fill @g->regroots from the registration lines of @rs (replacing what
 * was there): one entry per set and function, the first registration in
 * file and line order; a function the graph does not define, or a cold
 * one (__init), is none.
 */
void regroots_find(struct graph *g, const struct root_sets *rs);
/*
 * Per node of @g: a root of set @set by registration? A new array, or
 * NULL when the set has none.
 */
bool *regroots_of(const struct graph *g, const char *set);

#endif /* TRAPCHECK_REGROOTS_H */
