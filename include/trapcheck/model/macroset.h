/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The macros a TU depends on, stored with its facts (facts.def, table
 * "macro"): every macro its preprocessing record shows expanded or
 * tested (#ifdef, defined()) in its own file or in a header it parses.
 * The record lists only the outermost expansion: what those expand in
 * turn is found from the definitions (macrodefs.h). A patch that changes
 * only macro definitions of a header needs to parse again only the TUs
 * whose set holds one of the macros that may expand a changed one
 * (pipeline/analyze.c).
 *
 * A set is of 32-bit hashes of the names: two names of one hash make a
 * TU parsed again that need not be, never the other way. Encoded as
 * text: MACROSET_TAG, then the sorted hashes as differences, each in
 * groups of 5 bits, low first, a group that ends a number written from
 * 'A' and the others from '!'.
 */
#ifndef TRAPCHECK_MACROSET_H
#define TRAPCHECK_MACROSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MACROSET_TAG "m1:"

/* The hash of the name @name of @len bytes. */
uint32_t macroset_hash(const char *name, size_t len);

/* The text of the set of @nr hashes @h (sorted in place; repeats go). */
char *macroset_encode(uint32_t *h, size_t nr);

/*
 * Does the set @text hold one of the @nr sorted hashes @q? 1 or 0;
 * -EINVAL when @text is not a set this version wrote.
 */
int macroset_any(const char *text, const uint32_t *q, size_t nr);

/* Sort @nr hashes and drop repeats; the new count. */
size_t macroset_sort(uint32_t *h, size_t nr);

#endif /* TRAPCHECK_MACROSET_H */
