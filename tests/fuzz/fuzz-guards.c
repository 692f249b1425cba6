// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-guards.c - branch conditions: the input split into tokens (at
 * blanks, and around brackets and "!"), through guard_atoms() true and
 * false, guard_join(), and guards_have() on the atoms and on the raw
 * input.
 */
#include <ctype.h>

#include "fuzz.h"

#include "trapcheck/model/guards.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool single(char c)
{
	return c == '(' || c == ')' || c == '[' || c == ']' || c == '!' ||
	       c == '&' || c == ',';
}

/* Tokens roughly as libclang spells them: "!", "(", "&&", words. */
static size_t tokenize(char *s, char ***toks)
{
	size_t nr = 0, alloc = 0;
	char **v = NULL;

	while (*s) {
		char *start;

		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		start = s;
		if (s[0] == '&' && s[1] == '&')
			s += 2;
		else if (s[0] == '|' && s[1] == '|')
			s += 2;
		else if (single(*s))
			s++;
		else
			while (*s && !isspace((unsigned char)*s) &&
			       !single(*s) && !(s[0] == '|' && s[1] == '|'))
				s++;
		*PUSH(v, nr, alloc) = xstrndup(start, (size_t)(s - start));
	}
	*toks = v;
	return nr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), **toks, *out, *j;
	size_t n, i, added;
	int neg;

	n = tokenize(s, &toks);
	for (neg = 0; neg < 2; neg++) {
		out = NULL;
		added = guard_atoms((const char *const *)toks, n, neg, &out);
		/* At most one atom per token. */
		FUZZ_ASSERT(added <= n && (!out || added));
		for (i = GUARD_NONE; i <= GUARD_CAPS_UNFINALIZED; i++)
			guards_have(out, (enum guard_kind)i);
		guards_boot(out);
		free(out);
	}
	j = guard_join((const char *const *)toks, n);
	FUZZ_ASSERT(strlen(j) <= 2 * size + 1);
	free(j);
	for (i = GUARD_NONE; i <= GUARD_CAPS_UNFINALIZED; i++)
		guards_have(s, (enum guard_kind)i);
	guards_have(NULL, GUARD_BOOT);
	for (i = 0; i < n; i++)
		free(toks[i]);
	free(toks);
	free(s);
	return 0;
}
