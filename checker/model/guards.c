// SPDX-License-Identifier: GPL-2.0
/*
 * guards.c - normalise branch conditions into atoms.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/base/util.h"

static const struct guard_def guard_table[] = {
#define BOOT GUARD_BOOT
#define NOT_PREEMPTIBLE GUARD_NOT_PREEMPTIBLE
#define CAPS_UNFINALIZED GUARD_CAPS_UNFINALIZED
#define PERIODIC GUARD_PERIODIC
#define ARGUMENT GUARD_ARGUMENT
#define GUARD(a, k) { a, k },
#include "phases.def"
#undef GUARD
#undef BOOT
#undef NOT_PREEMPTIBLE
#undef CAPS_UNFINALIZED
#undef PERIODIC
#undef ARGUMENT
};

const char *const guard_region_atom[REGION_KINDS] = {
	"<irqs masked>", "<preemption disabled>", "<spinlock held>",
};

static bool is_word(const char *t)
{
	return isalnum((unsigned char)t[0]) || t[0] == '_';
}

char *guard_join(const char *const *toks, size_t n)
{
	size_t i, len = 1;
	char *s, *p;

	for (i = 0; i < n; i++)
		len += strlen(toks[i]) + 1;
	s = p = xmalloc(len);
	for (i = 0; i < n; i++) {
		if (i && is_word(toks[i - 1]) && is_word(toks[i]))
			*p++ = ' ';
		p = stpcpy(p, toks[i]);
	}
	*p = '\0';
	return s;
}

/* Index of the token closing the bracket opened at @i, or @n. */
static size_t closing(const char *const *toks, size_t n, size_t i)
{
	int depth = 0;

	for (; i < n; i++) {
		if (!strcmp(toks[i], "(") || !strcmp(toks[i], "["))
			depth++;
		else if ((!strcmp(toks[i], ")") || !strcmp(toks[i], "]")) &&
			 !--depth)
			return i;
	}
	return n;
}

/* Strip likely(X), unlikely(X), (X) and !!(X) that span everything. */
static void strip(const char *const **toks, size_t *n)
{
	for (;;) {
		const char *const *t = *toks;
		size_t k = *n;

		if (k >= 4 && (!strcmp(t[0], "likely") ||
			       !strcmp(t[0], "unlikely")) &&
		    !strcmp(t[1], "(") && closing(t, k, 1) == k - 1) {
			*toks = t + 2;
			*n = k - 3;
		} else if (k >= 2 && !strcmp(t[0], "(") &&
			   closing(t, k, 0) == k - 1) {
			*toks = t + 1;
			*n = k - 2;
		} else if (k >= 3 && !strcmp(t[0], "!") &&
			   !strcmp(t[1], "!")) {
			*toks = t + 2;
			*n = k - 2;
		} else if (k >= 6 && !strcmp(t[0], "__builtin_expect") &&
			   !strcmp(t[1], "(") && closing(t, k, 1) == k - 1) {
			/* likely() as the compiler sees it: (X, 1) */
			size_t comma;

			if (!guard_split(t + 2, k - 3, ",", &comma, 1))
				return;
			*toks = t + 2;
			*n = comma;
		} else {
			return;
		}
	}
}

size_t guard_split(const char *const *toks, size_t n, const char *op,
		   size_t *at, size_t max)
{
	size_t i, nr = 0;
	int depth = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(toks[i], "(") || !strcmp(toks[i], "["))
			depth++;
		else if (!strcmp(toks[i], ")") || !strcmp(toks[i], "]"))
			depth--;
		else if (!depth && !strcmp(toks[i], op) && nr < max)
			at[nr++] = i;
	}
	return nr;
}

static void append(char **out, char *atom)
{
	char *s;

	if (!*atom) {
		free(atom);
		return;
	}
	s = *out ? xasprintf("%s && %s", *out, atom) : atom;
	if (*out) {
		free(*out);
		free(atom);
	}
	*out = s;
}

/* A single operand: "x", "f(...)", "!f(...)", "(...)", "a->b". */
static bool is_primary(const char *const *toks, size_t n)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < n; i++) {
		const char *t = toks[i];

		if (!strcmp(t, "(") || !strcmp(t, "["))
			depth++;
		else if (!strcmp(t, ")") || !strcmp(t, "]"))
			depth--;
		else if (!depth && !is_word(t) && strcmp(t, ".") &&
			 strcmp(t, "->") &&
			 !(i == 0 && (!strcmp(t, "!") || !strcmp(t, "&"))))
			return false;
	}
	return true;
}

static char *negate(const char *const *toks, size_t n)
{
	char *s, *r;

	strip(&toks, &n);
	if (n && !strcmp(toks[0], "!") && is_primary(toks + 1, n - 1)) {
		toks++;
		n--;
		strip(&toks, &n);
		return guard_join(toks, n);
	}
	s = guard_join(toks, n);
	r = is_primary(toks, n) ? xasprintf("!%s", s) :
				  xasprintf("!(%s)", s);
	free(s);
	return r;
}

/*
 * Is the condition @toks wrapped whole in likely() (1), unlikely() (-1),
 * or neither (0)? Outer parentheses do not count; __builtin_expect(X, 1)
 * and (X, 0) are what the compiler sees of them.
 */
static int expectation(const char *const *t, size_t k)
{
	while (k >= 2 && !strcmp(t[0], "(") && closing(t, k, 0) == k - 1) {
		t++;
		k -= 2;
	}
	if (k >= 4 && !strcmp(t[1], "(") && closing(t, k, 1) == k - 1) {
		if (!strcmp(t[0], "likely"))
			return 1;
		if (!strcmp(t[0], "unlikely"))
			return -1;
		if (k >= 6 && !strcmp(t[0], "__builtin_expect") &&
		    !strcmp(t[k - 2], "0") && !strcmp(t[k - 3], ","))
			return -1;
		if (k >= 6 && !strcmp(t[0], "__builtin_expect") &&
		    !strcmp(t[k - 2], "1") && !strcmp(t[k - 3], ","))
			return 1;
	}
	return 0;
}

static size_t atoms_of(const char *const *toks, size_t n, bool negated,
		       char **out)
{
	size_t at[64], nr, i, start = 0, added = 0;
	const char *op = negated ? "||" : "&&";

	strip(&toks, &n);
	if (!n)
		return 0;
	nr = guard_split(toks, n, op, at, ARRAY_SIZE(at));
	if (!nr) {
		append(out, negated ? negate(toks, n) : guard_join(toks, n));
		return 1;
	}
	/* a && b true: a, b; a || b false: !a, !b. */
	for (i = 0; i <= nr; i++) {
		size_t end = i < nr ? at[i] : n;

		added += atoms_of(toks + start, end - start, negated, out);
		start = end + 1;
	}
	return added;
}

size_t guard_atoms(const char *const *toks, size_t n, bool negated,
		   char **out)
{
	int e = expectation(toks, n);
	size_t added = atoms_of(toks, n, negated, out);
	char *text;

	/*
	 * The side the code marks unlikely: the atoms, then the condition
	 * as written, "<rare: unlikely(x)>" or "<rare: !likely(src)>".
	 */
	if (added && ((e < 0 && !negated) || (e > 0 && negated))) {
		text = guard_join(toks, n);
		append(out, xasprintf("<rare: %s%s>", negated ? "!" : "", text));
		free(text);
		added++;
	}
	return added;
}

/* Where in @guards an atom of @t of kind @kind starts, and its length. */
static const char *find_in(const struct guard_def *t, size_t nr,
			   const char *guards, enum guard_kind kind,
			   size_t *len)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *p = guards;
		size_t n = strlen(t[i].atom);
		/* An atom ending in '(', ',' or ' ' is a prefix. */
		bool prefix = n && strchr("(, ", t[i].atom[n - 1]);

		if (t[i].kind != kind)
			continue;
		while ((p = strstr(p, t[i].atom))) {
			bool start = p == guards ||
				     (p - guards >= 4 &&
				      !strncmp(p - 4, " && ", 4));
			bool end = prefix || !p[n] ||
				   !strncmp(p + n, " && ", 4);

			if (start && end) {
				const char *e = strstr(p, " && ");

				*len = e ? (size_t)(e - p) : strlen(p);
				return p;
			}
			p += n;
		}
	}
	return NULL;
}

/* Where an atom of kind @kind starts: the generic table's, the arch's. */
static const char *find_atom(const char *guards, enum guard_kind kind,
			     size_t *len)
{
	const struct arch *a = arch_current();
	const char *p;

	if (!guards)
		return NULL;
	p = find_in(guard_table, ARRAY_SIZE(guard_table), guards, kind, len);
	return p ? p : find_in(a->guards, a->nr_guards, guards, kind, len);
}

bool guards_have(const char *guards, enum guard_kind kind)
{
	size_t len;

	return find_atom(guards, kind, &len) != NULL;
}

char *guards_find(const char *guards, enum guard_kind kind)
{
	size_t len;
	const char *p = find_atom(guards, kind, &len);

	return p ? xstrndup(p, len) : NULL;
}

/* C punctuators, longest first within each length. */
static const char *const puncts[] = {
	"<<=", ">>=", "...",
	"&&", "||", "==", "!=", "<=", ">=", "->", "++", "--", "<<", ">>",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
};

char **guard_tokens(const char *s, size_t *n)
{
	char **v = NULL;
	size_t nr = 0, alloc = 0, len, i;

	while (*s) {
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		len = 0;
		if (isdigit((unsigned char)*s)) {
			/* 0x1f, 1.5e-3, 10UL */
			while (isalnum((unsigned char)s[len]) ||
			       s[len] == '_' || s[len] == '.' ||
			       (len && s[len] && strchr("+-", s[len]) &&
				strchr("eEpP", s[len - 1])))
				len++;
		} else if (is_word(s)) {
			while (is_word(s + len))
				len++;
		} else if (*s == '"' || *s == '\'') {
			for (len = 1; s[len] && s[len] != *s; len++)
				if (s[len] == '\\' && s[len + 1])
					len++;
			if (s[len])
				len++;
		} else {
			for (i = 0; i < ARRAY_SIZE(puncts) && !len; i++)
				if (!strncmp(s, puncts[i], strlen(puncts[i])))
					len = strlen(puncts[i]);
			if (!len)
				len = 1;
		}
		*PUSH(v, nr, alloc) = xstrndup(s, len);
		s += len;
	}
	*n = nr;
	return v;
}

bool guards_boot(const char *guards)
{
	return guards_have(guards, GUARD_BOOT);
}

bool guards_periodic(const char *guards)
{
	return guards_have(guards, GUARD_PERIODIC);
}

bool guards_never(const char *guards)
{
	return guards && strstr(guards, "<never: ");
}
