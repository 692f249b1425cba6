/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The merged call graph as bytes: what a run keeps in its facts database
 * as the stored link (checker/pipeline/analyze.c), so that a run in which
 * no TU changed reads one graph instead of every TU's facts.
 *
 * The graph is taken as graph_merge() leaves it, before graph_finish()
 * (which resolves, prunes, infers and sorts anew from it, with the
 * options of its own run). The format is private to one build of
 * trapcheck: a magic word and a checksum of what follows, every string
 * of the graph's pool once, then the records with their strings as
 * indices into that list; integers in host order. The decoder checks the
 * checksum and every count, index and string, so damaged bytes are
 * refused, never trusted.
 */
#ifndef TRAPCHECK_GRAPHIO_H
#define TRAPCHECK_GRAPHIO_H

#include <stddef.h>
#include <stdint.h>

#include "trapcheck/graph/graph.h"
#include "trapcheck/base/util.h"

/*
 * What a stored graph depends on besides the facts it was merged from:
 * the format and this build's sink table (records hold its indices).
 */
uint64_t graphio_hash(void);
/* Append merged (not finished) graph @g to @out. */
void graphio_encode(const struct graph *g, struct bytes *out);
/*
 * Fill @g, which graph_init() made empty, from @len bytes at @buf.
 * Returns 0, or -EINVAL (and @g empty again, max_targets kept) when the
 * bytes are not one whole graph.
 */
int graphio_decode(const void *buf, size_t len, struct graph *g);

#endif /* TRAPCHECK_GRAPHIO_H */
