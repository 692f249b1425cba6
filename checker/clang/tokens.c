// SPDX-License-Identifier: GPL-2.0
/*
 * tokens.c - the tokens of a source range, spelled, with their offsets
 * (tokens.h).
 */
#include <stdlib.h>

#include "trapcheck/clang/tokens.h"
#include "trapcheck/base/util.h"

static unsigned int token_offset(CXTranslationUnit tu, CXToken t)
{
	unsigned int off;

	clang_getExpansionLocation(clang_getTokenLocation(tu, t), NULL, NULL,
				   NULL, &off);
	return off;
}

void tokens_get(struct tokens *k, CXTranslationUnit tu, CXSourceRange r,
		bool offsets)
{
	CXToken *t = NULL;
	unsigned int i;

	clang_tokenize(tu, r, &t, &k->n);
	k->s = xcalloc(k->n + 1, sizeof(*k->s));
	k->off = offsets ? xcalloc(k->n + 1, sizeof(*k->off)) : NULL;
	for (i = 0; i < k->n; i++) {
		CXString s = clang_getTokenSpelling(tu, t[i]);

		k->s[i] = xstrdup(clang_getCString(s));
		clang_disposeString(s);
		if (offsets)
			k->off[i] = token_offset(tu, t[i]);
	}
	if (t)
		clang_disposeTokens(tu, t, k->n);
}

void tokens_free(struct tokens *k)
{
	strv_free(k->s, k->n);
	free(k->off);
	k->s = NULL;
	k->off = NULL;
	k->n = 0;
}
