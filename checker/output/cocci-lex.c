// SPDX-License-Identifier: GPL-2.0
/*
 * cocci-lex.c - code lines as spatch reads them (cocci-emit.c).
 *
 * The rules of --emit-cocci are made of the lines a fix removes and adds;
 * what they may hold is read here: whether brackets balance, which words
 * are keywords, the calls without arguments (which spatch 1.1.1 needs
 * written otherwise), if and while headers, and the code line before a
 * region.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/finding/edit.h"
#include "trapcheck/base/util.h"

#include "cocci-internal.h"

bool is_blank(const char *s)
{
	return !s[strspn(s, " \t")];
}

void strs_push(struct strs *l, char *s)
{
	*PUSH(l->v, l->nr, l->alloc) = s;
}

bool strs_has(const struct strs *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

void strs_free(struct strs *l)
{
	strv_free(l->v, l->nr);
	memset(l, 0, sizeof(*l));
}

/*
 * Code lines (comments dropped): parentheses, brackets and braces balance
 * and never close what is not open. *@last gets the last code character.
 */
bool balanced(const struct strs *code, char *last)
{
	static const char brackets[] = "([{)]}";
	int depth[3] = { 0, 0, 0 };
	size_t i, j;
	bool in_comment = false;

	*last = '\0';
	for (i = 0; i < code->nr; i++) {
		const char *s = code->v[i];
		char *m = line_mask(s, &in_comment);

		for (j = 0; s[j]; j++) {
			const char *p = NULL;

			if (m[j] == MASK_CODE)
				p = strchr(brackets, s[j]);
			if (!isspace((unsigned char)s[j]))
				*last = s[j];
			if (!p || !*p)
				continue;
			if (p - brackets < 3) {
				depth[p - brackets]++;
			} else if (--depth[p - brackets - 3] < 0) {
				free(m);
				return false;
			}
		}
		free(m);
	}
	return !depth[0] && !depth[1] && !depth[2];
}

static const char *const keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if",
	"inline", "int", "long", "register", "restrict", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "typedef", "typeof",
	"union", "unsigned", "void", "volatile", "while", "bool", "_Bool",
	NULL,
};

/* @s, @n characters long, is one of @words (NULL ends them). */
bool is_word(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && !strncmp(*words, s, n))
			return true;
	return false;
}

bool is_keyword(const char *s, size_t n)
{
	return is_word(s, n, keywords);
}

/* The first code line, after its indentation, starts with word @kw. */
bool starts_with_word(const char *code, const char *kw)
{
	size_t n = strlen(kw);

	code += strspn(code, " \t");
	return !strncmp(code, kw, n) && !ident_char(code[n]);
}

/*
 * Rewrite the code of @s: every call without arguments f() (in code, not
 * in strings) is passed to @fn, which returns the replacement text (or
 * NULL: keep it). Returns a new string.
 */
char *map_zero_calls(const char *s, bool *in_comment,
		     char *(*fn)(void *arg, const char *name, size_t n),
		     void *arg)
{
	char *m = line_mask(s, in_comment);
	size_t n = strlen(s), i = 0, len = 0, cap = 0;
	char *out = NULL;

	while (i < n) {
		size_t j = i, k;
		char *rep;

		if (m[i] != MASK_CODE || !ident_start(s[i]) ||
		    (i && ident_char(s[i - 1]))) {
			GROW(out, cap, len + 2);
			out[len++] = s[i++];
			continue;
		}
		while (j < n && ident_char(s[j]))
			j++;
		k = j + strspn(s + j, " \t");
		rep = NULL;
		if (s[k] == '(' && m[k] == MASK_CODE) {
			k++;
			k += strspn(s + k, " \t");
			if (s[k] == ')' && !is_keyword(s + i, j - i))
				rep = fn(arg, s + i, j - i);
		}
		if (rep) {
			size_t rn = strlen(rep);

			GROW(out, cap, len + rn + 1);
			memcpy(out + len, rep, rn);
			len += rn;
			free(rep);
			i = k + 1;
		} else {
			GROW(out, cap, len + (j - i) + 1);
			memcpy(out + len, s + i, j - i);
			len += j - i;
			i = j;
		}
	}
	GROW(out, cap, len + 1);
	out[len] = '\0';
	free(m);
	return out;
}

/* "if (x)" or "while (x)": the parentheses close at the end of the line. */
bool is_header(const char *code, bool *is_if)
{
	const char *p = code + strspn(code, " \t");
	struct strs one = { 0 };
	char last;
	bool ok;

	*is_if = starts_with_word(p, "if");
	if (!*is_if && !starts_with_word(p, "while"))
		return false;
	p += *is_if ? 2 : 5;
	p += strspn(p, " \t");
	if (*p != '(')
		return false;
	strs_push(&one, xstrdup(p));
	ok = balanced(&one, &last) && last == ')';
	strs_free(&one);
	return ok;
}

/* Where @line calls (or declares) @name: "name(", nothing glued before. */
const char *find_call(const char *line, const char *name)
{
	size_t n = strlen(name);
	const char *p = line;

	while ((p = strstr(p, name))) {
		const char *after = p + n + strspn(p + n, " \t");

		if ((p == line || !ident_char(p[-1])) && *after == '(')
			return p;
		p += n;
	}
	return NULL;
}

/* The code line before line @first (1-based), comments dropped. */
char *code_before(const struct src_file *src, unsigned int first)
{
	unsigned int i;
	bool in_comment = false;
	char *prev = NULL;

	/* Block comments: scan from the top for the state. */
	for (i = 1; i < first && i <= src->nr_lines; i++) {
		char *c = line_code(src->lines[i - 1], &in_comment);

		if (is_blank(c) || c[strspn(c, " \t")] == '#') {
			free(c);
			continue;
		}
		free(prev);
		prev = c;
	}
	return prev;
}
