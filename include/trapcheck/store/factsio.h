/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TU's facts as bytes: how a parser process hands what it extracted to
 * the analysis (checker/input/procpool.c). The format is private to one build
 * of trapcheck (both ends are the same binary): a magic word, then every
 * field of struct tu_facts in order; integers in host order, strings as a
 * length (~0 for NULL) and their bytes. The decoder checks every length,
 * count and index against what is left and what the facts hold, so a
 * truncated or corrupt message is refused, never trusted.
 */
#ifndef TRAPCHECK_FACTSIO_H
#define TRAPCHECK_FACTSIO_H

#include <stddef.h>
#include <stdint.h>

#include "trapcheck/model/facts.h"
#include "trapcheck/base/util.h"

/* Append @f, and the hash of the flags it was parsed with, to @out. */
void factsio_encode(const struct tu_facts *f, uint64_t flags_hash,
		  struct bytes *out);
/*
 * Fill @f and @flags_hash from @len bytes at @buf. Returns 0, or -EINVAL
 * (and @f empty) when the bytes are not one whole message.
 */
int factsio_decode(const void *buf, size_t len, struct tu_facts *f,
		 uint64_t *flags_hash);

#endif /* TRAPCHECK_FACTSIO_H */
