// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-paths.c - path_normalize(), path_join() and path_relative() on
 * two strings (the input split at its first newline), with the
 * properties the rest of trapcheck relies on.
 */
#include "fuzz.h"

#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *a, const char *b,
		 const char *got)
{
	fprintf(stderr, "fuzz-check: %s: '%s' '%s' -> '%s'\n", what, a, b,
		got);
	abort();
}

/* Normalised: no "//", no "." part, ".." only at the head, not empty. */
static void check_normal(const char *in, const char *p)
{
	const char *q = p;
	bool dotdot_ok = true;

	if (!*p)
		fail("empty", in, "", p);
	if (!strcmp(p, ".") || !strcmp(p, "/"))
		return;
	if (strstr(p, "//"))
		fail("'//' left", in, "", p);
	if (p[strlen(p) - 1] == '/')
		fail("trailing '/'", in, "", p);
	if (*q == '/')
		q++;
	while (*q) {
		size_t n = strcspn(q, "/");

		if (n == 1 && q[0] == '.')
			fail("'.' left", in, "", p);
		if (n == 2 && q[0] == '.' && q[1] == '.') {
			if (!dotdot_ok || *p == '/')
				fail("'..' not folded", in, "", p);
		} else {
			dotdot_ok = false;
		}
		q += n;
		if (*q == '/')
			q++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *a = s, *b, *nl;
	char *n1, *n2, *j, *r, *nb;

	nl = strchr(s, '\n');
	b = nl ? nl + 1 : (char *)"";
	if (nl)
		*nl = '\0';

	n1 = path_normalize(a);
	check_normal(a, n1);
	n2 = path_normalize(n1);
	if (strcmp(n1, n2))
		fail("not idempotent", a, n1, n2);
	if ((*a == '/') != (*n1 == '/'))
		fail("absolute changed", a, "", n1);

	j = path_join(a, b);
	check_normal(b, j);
	if (*b == '/') {
		nb = path_normalize(b);
		if (strcmp(j, nb))
			fail("join with an absolute path", a, b, j);
		free(nb);
	}

	/* Any bytes: no crash. Normalised paths: base + "/" + result. */
	r = path_relative(a, b);
	free(r);
	nb = path_normalize(b);
	r = path_relative(n1, nb);
	if (strcmp(r, n1)) {
		char *back = xasprintf("%s/%s", nb, r);
		char *nback = path_normalize(back);

		if (!*r || *r == '/' || strcmp(nback, n1))
			fail("relative", n1, nb, r);
		free(back);
		free(nback);
	}
	free(nb);
	free(r);
	free(j);
	free(n1);
	free(n2);
	free(s);
	return 0;
}
