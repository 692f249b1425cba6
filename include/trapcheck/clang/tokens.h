/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tokens of a source range of a TU, spelled, with the file offset of
 * each (its expansion location): what extraction matches conditions and
 * macro bodies against, and the table reader initialisers (tables.h).
 */
#ifndef TRAPCHECK_TOKENS_H
#define TRAPCHECK_TOKENS_H

#include <stdbool.h>

#include <clang-c/Index.h>

struct tokens {
	char **s;		/* the spellings, then NULL */
	unsigned int *off;	/* the file offset of each, or NULL */
	unsigned int n;
};

/* The tokens of @r; their offsets too when @offsets. */
void tokens_get(struct tokens *k, CXTranslationUnit tu, CXSourceRange r,
		bool offsets);
/* Free what tokens_get() made; @k is empty again. */
void tokens_free(struct tokens *k);

#endif /* TRAPCHECK_TOKENS_H */
