// SPDX-License-Identifier: GPL-2.0
/*
 * cocci-emit.c - the verified fixes as a position-pinned semantic patch.
 *
 * A fix replaces lines [first, last] of a file (struct fix_edit). The rule
 * for it removes the code of those lines and adds the new lines as they
 * are, inside a pattern for the function that holds the site, whose name
 * carries a position checked by a script:python constraint against the
 * file's path: the same code in another function or another file is left
 * alone. Two shapes are expressed:
 *
 *  - whole statements: the old lines hold complete statements (the fix of
 *    local-cap-check and trapping-idreg-read); minus all, plus all;
 *  - an if or while header: one line becomes one line (slow-entropy); the
 *    header is rewritten, its body is a statement metavariable.
 *
 * What spatch 1.1.1 needs (docs/coccinelle.md): a blank line at the end of
 * added code only comes out right when the statement after it is removed
 * and added back, so the region grows by that statement; two calls without
 * arguments on one line fail ("index ... already used"), so minus code
 * writes them f(...) and added code takes them from expression
 * metavariables bound in the minus code; lower-case names in the code are
 * declared as symbols and declared types as typedefs, so spatch does not
 * ask whether they are metavariables.
 *
 * Below, in that order: the code lines as spatch reads them, one fix
 * site made into a rule's code, and the semantic patch written.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapcheck/finding/edit.h"
#include "trapcheck/base/util.h"
#include "trapcheck/output/cocci-emit.h"

/* A growable list of strings. */
struct strs {
	char **v;
	size_t nr, alloc;
};

/* One zero-argument call bound to a metavariable: \(E \& f(...)\). */
struct zcall {
	char *name;		/* f */
	char *meta;		/* E_f */
};

/* What one fix becomes. */
struct site_rule {
	struct strs minus;	/* old code lines, f() written f(...) */
	struct strs find;	/* the same, "@tc_sink" after the sink */
	struct strs plus;	/* new lines as they are */
	struct strs symbols, typedefs;
	size_t nr_minus_symbols, nr_minus_typedefs;	/* the find rule's */
	bool casts;		/* a cast in the lines: disable drop_cast */
	struct zcall *z;
	size_t nr_z, alloc_z;
	bool header;		/* an if/while header: body S */
	bool is_if;
	bool have_q;
	unsigned int last;	/* last line of the region, grown */
};

/*
 * Code lines as spatch reads them.
 *
 * The rules of --emit-cocci are made of the lines a fix removes and adds;
 * what they may hold is read here: whether brackets balance, which words
 * are keywords, the calls without arguments (which spatch 1.1.1 needs
 * written otherwise), if and while headers, and the code line before a
 * region.
 */

static bool is_blank(const char *s)
{
	return !s[strspn(s, " \t")];
}

static void strs_push(struct strs *l, char *s)
{
	*PUSH(l->v, l->nr, l->alloc) = s;
}

static bool strs_has(const struct strs *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static void strs_free(struct strs *l)
{
	strv_free(l->v, l->nr);
	memset(l, 0, sizeof(*l));
}

/*
 * Code lines (comments dropped): parentheses, brackets and braces balance
 * and never close what is not open. *@last gets the last code character.
 */
static bool balanced(const struct strs *code, char *last)
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
static bool is_word(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && !strncmp(*words, s, n))
			return true;
	return false;
}

static bool is_keyword(const char *s, size_t n)
{
	return is_word(s, n, keywords);
}

/* The first code line, after its indentation, starts with word @kw. */
static bool starts_with_word(const char *code, const char *kw)
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
static char *map_zero_calls(const char *s, bool *in_comment,
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
static bool is_header(const char *code, bool *is_if)
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
static const char *find_call(const char *line, const char *name)
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
static char *code_before(const struct src_file *src, unsigned int first)
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

/*
 * One verified fix as the code of a rule.
 *
 * The lines a fix replaces must be whole statements, or one if or while
 * header that becomes one; when the added code ends with a blank line the
 * region grows by the statement after it. Minus code writes calls without
 * arguments f(...), added lines with two of them take them from
 * expression metavariables bound in the minus code, the find rule's code
 * carries a position after the sink, and the names spatch would ask
 * about are declared.
 */

/* How far the region may grow to take in the statement after it. */
#define MAX_NEXT_LINES 20

static void site_rule_free(struct site_rule *r)
{
	size_t i;

	strs_free(&r->minus);
	strs_free(&r->find);
	strs_free(&r->plus);
	strs_free(&r->symbols);
	strs_free(&r->typedefs);
	for (i = 0; i < r->nr_z; i++) {
		free(r->z[i].name);
		free(r->z[i].meta);
	}
	free(r->z);
}

static char *loosen_one(void *arg, const char *name, size_t n)
{
	(void)arg;
	return xasprintf("%.*s(...)", (int)n, name);
}

static char *count_one(void *arg, const char *name, size_t n)
{
	(*(size_t *)arg)++;
	(void)name;
	(void)n;
	return NULL;
}

static char *bind_one(void *arg, const char *name, size_t n)
{
	struct site_rule *r = arg;
	size_t i;

	for (i = 0; i < r->nr_z; i++)
		if (strlen(r->z[i].name) == n &&
		    !strncmp(r->z[i].name, name, n))
			return xstrdup(r->z[i].meta);
	return NULL;
}

/* The names of the zero-argument calls of an added line. */
static char *note_one(void *arg, const char *name, size_t n)
{
	struct strs *l = arg;
	char *s = xstrndup(name, n);

	if (strs_has(l, s))
		free(s);
	else
		strs_push(l, s);
	return NULL;
}

/*
 * In minus line @s (already loosened), bind the first "@name(...)" to
 * metavariable @meta: \(meta \& name(...)\). Returns a new string or NULL.
 */
static char *bind_in_minus(const char *s, const char *name, const char *meta)
{
	size_t n = strlen(name);
	const char *p = s;
	bool in_comment = false;
	char *m = line_mask(s, &in_comment), *out = NULL;

	while ((p = strstr(p, name))) {
		size_t at = (size_t)(p - s);

		if (m[at] == MASK_CODE && (!at || !ident_char(s[at - 1])) &&
		    !strncmp(p + n, "(...)", 5)) {
			out = xasprintf("%.*s\\(%s \\& %s(...)\\)%s",
					(int)at, s, meta, name, p + n + 5);
			break;
		}
		p += n;
	}
	free(m);
	return out;
}

static const char *const qualifiers[] = {
	"const", "static", "volatile", "register", "extern", "inline", NULL,
};
static const char *const tag_words[] = { "struct", "union", "enum", NULL };

/*
 * Is the word before @k a cast: "(" before it, ")" after it, then an
 * operand ("(u32)x", "(u64)read_sysreg_s(...)")?
 */
static bool is_cast(const char *code, const char *prev, size_t k)
{
	size_t after;

	if (!prev || *prev != '(' || code[k] != ')')
		return false;
	after = k + 1 + strspn(code + k + 1, " \t");
	return ident_start(code[after]) || code[after] == '(';
}

/*
 * Declarations for the names of @code: a type that starts a declaration
 * ("u64 x = ...") becomes a typedef, every other name with a lower-case
 * letter that is not called, not a field and not a keyword a symbol.
 */
static void collect_names(struct site_rule *r, const char *code,
			  bool *in_comment)
{
	char *m = line_mask(code, in_comment);
	size_t n = strlen(code), i = 0, z;
	bool first = true, tag = false;
	const char *prev = NULL;	/* previous token's last char */

	while (i < n) {
		size_t j, k;
		char *name;
		bool lower = false;

		if (m[i] != MASK_CODE || isspace((unsigned char)code[i])) {
			i++;
			continue;
		}
		if (!ident_start(code[i]) || (i && ident_char(code[i - 1]))) {
			prev = code + i;
			first = tag = false;
			i++;
			continue;
		}
		for (j = i; j < n && ident_char(code[j]); j++)
			lower |= islower((unsigned char)code[j]) != 0;
		k = j + strspn(code + j, " \t");
		name = xstrndup(code + i, j - i);
		for (z = 0; z < r->nr_z && strcmp(name, r->z[z].meta); z++)
			;
		if (is_keyword(name, j - i) || z < r->nr_z || tag ||
		    code[k] == '(' ||
		    (prev && (*prev == '.' || (*prev == '>' && prev > code &&
						prev[-1] == '-')))) {
			free(name);
		} else if (lower && is_cast(code, prev, k)) {
			/* "(u32)read_sysreg_s(...)": a cast to a typedef */
			r->casts = true;
			if (strs_has(&r->typedefs, name))
				free(name);
			else
				strs_push(&r->typedefs, name);
		} else if (first && ident_start(code[k]) && lower) {
			/* "u64 pfr0 = ...": a type that is not a keyword */
			if (strs_has(&r->typedefs, name))
				free(name);
			else
				strs_push(&r->typedefs, name);
		} else if (lower && !strs_has(&r->symbols, name)) {
			strs_push(&r->symbols, name);
		} else {
			free(name);
		}
		tag = is_word(code + i, j - i, tag_words);
		if (!is_word(code + i, j - i, qualifiers))
			first = false;
		prev = code + j - 1;
		i = j;
	}
	free(m);
}

/* Why no rule can be pinned to @site's function, or NULL. */
static char *check_site(const struct fix_site *site)
{
	const struct fix_edit *e = &site->e;
	const struct src_file *src = &site->src;
	const struct finding *f = site->f;

	if (!e->first || e->last < e->first || e->last > src->nr_lines)
		return xstrdup("the edit is outside the file");
	if (f->fn->file && strcmp(f->fn->file, f->site->file))
		return xasprintf("the site is in %s, the function %s() in %s",
				 f->site->file, f->fn->name, f->fn->file);
	if (!f->fn->line || f->fn->line > src->nr_lines ||
	    !find_call(src->lines[f->fn->line - 1], f->fn->name))
		return xasprintf("the definition of %s() does not spell its "
				 "name (a macro defines it)", f->fn->name);
	return NULL;
}

/*
 * A blank line ends the added code: the statement after the region is
 * taken in, removed and added back as it is (@old and @new get its
 * lines, @r->last grows by them). Returns why it cannot be, or NULL.
 */
static char *take_next_statement(const struct fix_site *site,
				 struct strs *old, struct strs *new,
				 struct site_rule *r)
{
	const struct fix_edit *e = &site->e;
	const struct src_file *src = &site->src;
	struct strs next = { 0 };
	bool ok = false, ic = false;
	char last;
	unsigned int i;
	size_t j;

	for (i = e->last + 1; i <= src->nr_lines &&
	     i <= e->last + MAX_NEXT_LINES; i++) {
		char *c = line_code(src->lines[i - 1], &ic);
		char c0 = c[strspn(c, " \t")];

		if (!next.nr && (!c0 || c0 == '}' || c0 == '#')) {
			free(c);
			break;
		}
		strs_push(&next, c);
		if (balanced(&next, &last) && (last == ';' || last == '}')) {
			ok = true;
			break;
		}
	}
	if (!ok) {
		strs_free(&next);
		return xstrdup("the fix ends with a blank line and no "
			       "statement follows it: spatch 1.1.1 prints "
			       "that blank line indented");
	}
	for (j = 0; j < next.nr; j++) {
		strs_push(old, xstrdup(src->lines[e->last + j]));
		strs_push(new, xstrdup(src->lines[e->last + j]));
	}
	r->last = e->last + (unsigned int)next.nr;
	strs_free(&next);
	return NULL;
}

/*
 * The code of the @old lines, comments and blank lines dropped, into
 * @code; *@nr_own: how many of them are the fix's own lines (not the
 * statement taken in after them). Returns why they cannot be a rule's.
 */
static char *old_code(const struct fix_edit *e, const struct strs *old,
		      struct strs *code, size_t *nr_own)
{
	bool in_comment = false;
	size_t j;

	for (j = 0; j < old->nr; j++) {
		char *c = line_code(old->v[j], &in_comment);

		if (c[strspn(c, " \t")] == '#') {
			free(c);
			return xstrdup("the lines hold a preprocessor "
				       "directive");
		}
		if (is_blank(c)) {
			free(c);
			continue;
		}
		strs_push(code, c);
		if (j <= e->last - e->first)
			*nr_own = code->nr;	/* not the next statement */
	}
	if (!code->nr)
		return xstrdup("the old lines hold no code");
	return NULL;
}

static bool has_comment(const struct strs *lines)
{
	bool in_comment = false, found = false;
	size_t j;

	for (j = 0; j < lines->nr; j++) {
		char *m = line_mask(lines->v[j], &in_comment);

		found |= strchr(m, MASK_COMMENT) != NULL;
		free(m);
	}
	return found;
}

/*
 * The old @code is one if/while header that @new writes again (then
 * @r->header), or whole statements that start one. Returns why not.
 */
static char *check_shape(const struct fix_site *site,
			 const struct strs *code, const struct strs *new,
			 struct site_rule *r)
{
	char last, *prev = code_before(&site->src, site->e.first);
	char *why = NULL;

	if (code->nr == 1 && new->nr == 1 && !has_comment(new) &&
	    is_header(code->v[0], &r->is_if)) {
		bool new_if;

		r->header = true;
		if (!is_header(new->v[0], &new_if) || new_if != r->is_if)
			why = xstrdup("the new line is not the same kind of "
				      "header");
	} else if (!balanced(code, &last) || (last != ';' && last != '}')) {
		why = xstrdup("the old lines are not whole statements");
	} else if (starts_with_word(code->v[0], "else") ||
		   starts_with_word(code->v[0], "case") ||
		   starts_with_word(code->v[0], "default")) {
		why = xstrdup("the old lines start inside a statement");
	} else if (prev && !strchr(";{}:", prev[strlen(prev) - 1])) {
		why = xasprintf("the old lines do not start a statement (the "
				"line before ends with '%c')",
				prev[strlen(prev) - 1]);
	}
	free(prev);
	return why;
}

/*
 * Added lines with two calls without arguments: each such call is bound
 * to an expression metavariable where the minus code makes it. Returns
 * why one cannot be, or NULL.
 */
static char *bind_zero_calls(struct site_rule *r, const struct strs *new)
{
	struct strs zs = { 0 };
	bool in_comment = false;
	char *why = NULL;
	size_t j, k;

	for (j = 0; j < new->nr; j++) {
		size_t nz = 0;
		bool ic = in_comment;

		free(map_zero_calls(new->v[j], &in_comment, count_one, &nz));
		if (nz > 1)
			free(map_zero_calls(new->v[j], &ic, note_one, &zs));
	}
	for (j = 0; j < zs.nr && !why; j++) {
		struct zcall *z = PUSH(r->z, r->nr_z, r->alloc_z);
		bool bound = false;

		z->name = xstrdup(zs.v[j]);
		z->meta = xasprintf("tc_E%zu", j);
		for (k = 0; k < r->minus.nr && !bound; k++) {
			char *b = bind_in_minus(r->minus.v[k], z->name,
						z->meta);

			if (b) {
				free(r->minus.v[k]);
				r->minus.v[k] = b;
				bound = true;
			}
		}
		if (!bound)
			why = xasprintf("an added line calls %s() and another "
					"function without arguments, and the "
					"old code does not call %s(): spatch "
					"1.1.1 cannot parse that line",
					z->name, z->name);
	}
	strs_free(&zs);
	return why;
}

/*
 * The find rule's code: the first @nr_own lines of @code, loosened, with
 * the report position after the first call of @sink.
 */
static void find_lines(struct site_rule *r, const struct strs *code,
		       size_t nr_own, const char *sink)
{
	bool in_comment = false;
	size_t j;

	for (j = 0; j < nr_own; j++) {
		char *l = map_zero_calls(code->v[j], &in_comment, loosen_one,
					 NULL);
		const char *p = r->have_q ? NULL : find_call(l, sink);

		if (p) {
			char *q = xasprintf("%.*s@tc_sink%s",
					    (int)(p - l + strlen(sink)), l,
					    p + strlen(sink));

			free(l);
			l = q;
			r->have_q = true;
		}
		strs_push(&r->find, l);
	}
}

/* Names spatch would ask about: the minus code's, then the plus's. */
static void declare_names(struct site_rule *r, const struct strs *code)
{
	bool in_comment = false;
	size_t j;

	for (j = 0; j < code->nr; j++)
		collect_names(r, code->v[j], &in_comment);
	r->nr_minus_symbols = r->symbols.nr;
	r->nr_minus_typedefs = r->typedefs.nr;
	in_comment = false;
	for (j = 0; j < r->plus.nr; j++)
		collect_names(r, r->plus.v[j], &in_comment);
}

/*
 * Turn @site into @r, or say why it cannot be: the old code must be whole
 * statements, or one if/while header that becomes one.
 */
static char *build_rule(const struct fix_site *site, struct site_rule *r)
{
	const struct fix_edit *e = &site->e;
	struct strs old = { 0 }, new = { 0 }, code = { 0 };
	bool in_comment;
	char *why;
	unsigned int i;
	size_t j, nr_own = 0;

	memset(r, 0, sizeof(*r));
	why = check_site(site);
	if (why)
		return why;
	r->last = e->last;
	for (i = e->first; i <= e->last; i++)
		strs_push(&old, xstrdup(site->src.lines[i - 1]));
	for (j = 0; j < e->nr_lines; j++)
		strs_push(&new, xstrdup(e->lines[j]));
	if (new.nr && is_blank(new.v[new.nr - 1]))
		why = take_next_statement(site, &old, &new, r);
	if (!why)
		why = old_code(e, &old, &code, &nr_own);
	if (!why)
		why = check_shape(site, &code, &new, r);
	if (why)
		goto out_free;

	/* Minus code: f() written f(...). */
	in_comment = false;
	for (j = 0; j < code.nr; j++)
		strs_push(&r->minus, map_zero_calls(code.v[j], &in_comment,
						    loosen_one, NULL));
	why = bind_zero_calls(r, &new);
	if (why)
		goto out_free;
	in_comment = false;
	for (j = 0; j < new.nr; j++)
		strs_push(&r->plus, r->nr_z ? map_zero_calls(new.v[j],
							     &in_comment,
							     bind_one, r) :
					      xstrdup(new.v[j]));
	find_lines(r, &code, nr_own, finding_sink(site->f));
	declare_names(r, &code);
out_free:
	strs_free(&old);
	strs_free(&new);
	strs_free(&code);
	return why;
}

#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

/*
 * @s as a Python string literal; "Options:" and "Requires:" (which
 * scripts/coccicheck greps the whole file for) with the colon escaped.
 */
static void put_py_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!strncmp(s, "Options:", 8) || !strncmp(s, "Requires:", 9)) {
			size_t w = strcspn(s, ":");

			fprintf(out, "%.*s\\x3a", (int)w, s);
			s += w;
		} else if (c == '\\' || c == '"')
			fprintf(out, "\\%c", c);
		else if (c == '\'')
			fputs("\\x27", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/*
 * @s for a comment line: one line, and never the "Options:" or
 * "Requires:" that scripts/coccicheck greps the whole file for.
 */
static char *comment_safe(const char *s)
{
	char *t = xmalloc(2 * strlen(s) + 1), *q = t;

	for (; *s; s++) {
		if (!strncmp(s, "Options:", 8) || !strncmp(s, "Requires:", 9)) {
			size_t w = strcspn(s, ":");

			memcpy(q, s, w);
			q += w;
			memcpy(q, " -", 2);
			q += 2;
			s += w;
			continue;
		}
		*q++ = *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s;
	}
	*q = '\0';
	return t;
}

/*
 * Words of @text on comment lines of at most 80 columns: the first starts
 * with @lead, the others with @cont.
 */
static void put_wrapped(FILE *out, const char *lead, const char *cont,
			const char *text)
{
	char *safe = comment_safe(text);

	text_wrap(out, lead, cont, 80, safe);
	free(safe);
}

static void put_decls(FILE *out, const struct site_rule *r, bool find)
{
	size_t i, nt = find ? r->nr_minus_typedefs : r->typedefs.nr;
	size_t ns = find ? r->nr_minus_symbols : r->symbols.nr;

	if (r->header)
		fputs(r->is_if ? "statement tc_S1, tc_S2;\n" :
		      "statement tc_S1;\n", out);
	for (i = 0; i < nt; i++)
		fprintf(out, "typedef %s;\n", r->typedefs.v[i]);
	for (i = 0; i < ns; i++)
		fprintf(out, "%s%s%s", i ? ", " : "symbol ", r->symbols.v[i],
			i + 1 == ns ? ";\n" : "");
}

/* The body of the rule: minus and plus (@find: the context form). */
static void put_body(FILE *out, const struct site_rule *r, bool find)
{
	const struct strs *m = find ? &r->find : &r->minus;
	size_t i, alt, nr_alt = r->header && r->is_if ? 2 : 1;

	if (nr_alt > 1)
		fputs("(\n", out);
	for (alt = 0; alt < nr_alt; alt++) {
		if (alt)
			fputs("|\n", out);
		for (i = 0; i < m->nr; i++)
			fprintf(out, "%c%s\n", find ? '*' : '-', m->v[i]);
		for (i = 0; !find && i < r->plus.nr; i++)
			fprintf(out, "+%s\n", r->plus.v[i]);
		if (r->header)
			fputs(alt || !r->is_if ? "\ttc_S1\n" :
			      "\ttc_S1 else tc_S2\n",
			      out);
	}
	if (nr_alt > 1)
		fputs(")\n", out);
}

static void put_rule(FILE *out, unsigned int n, const struct fix_site *site,
		     const struct site_rule *r)
{
	const struct finding *f = site->f;
	const char *iso;
	char *msg, *chain;
	size_t i;

	/* One line, whatever its length: "// fixN: <file>:<line>:<col>". */
	msg = xasprintf("fix%u: %s:%u:%u in %s() [%s]", n, FINDING_AT(f),
			f->fn->name, f->rule);
	chain = comment_safe(msg);
	fprintf(out, "// %s\n", chain);
	free(chain);
	free(msg);
	msg = xstrdup(f->message ? f->message : "");
	put_wrapped(out, "//   ", "//   ", msg);
	if (f->root) {
		chain = finding_chain_text(&f->chains[0], false);
		msg = (free(msg), xasprintf("%s: %s", f->root, chain));
		put_wrapped(out, "//   ", "//   ", msg);
		free(chain);
	}
	free(msg);

	/*
	 * The drop_cast isomorphism would match "(u32)x" as "x" and warn
	 * that the cast's type is no pure metavariable: the lines are
	 * exact, so it is off where they hold a cast.
	 */
	iso = r->casts ? " disable drop_cast" : "";
	fprintf(out, "@fix%u depends on patch%s@\n"
		"position tc_fn : script:python() { trapcheck_in(tc_fn, ",
		n, iso);
	put_py_string(out, f->site->file);
	fputs(") };\ntype tc_T;\n", out);
	for (i = 0; i < r->nr_z; i++)
		fprintf(out, "%s%s%s", i ? ", " : "expression ", r->z[i].meta,
			i + 1 == r->nr_z ? ";\n" : "");
	put_decls(out, r, false);
	fprintf(out, "@@\n\ntc_T %s@tc_fn(...)\n{\n<...\n", f->fn->name);
	put_body(out, r, false);
	fputs("...>\n}\n\n", out);

	fprintf(out, "@find%u depends on !patch%s@\n"
		"position tc_fn : script:python() { trapcheck_in(tc_fn, ",
		n, iso);
	put_py_string(out, f->site->file);
	fputs(") };\nposition tc_sink;\ntype tc_T;\n", out);
	put_decls(out, r, true);
	fprintf(out, "@@\n\ntc_T %s@tc_fn(...)\n{\n<...\n", f->fn->name);
	put_body(out, r, true);
	fputs("...>\n}\n\n", out);

	msg = xasprintf("WARNING: %s [%s]", f->message ? f->message : "",
			f->rule);
	one_line(msg);
	fprintf(out, "@script:python depends on report@\n"
		"p << find%u.%s;\n@@\n\ncoccilib.report.print_report(p[0], ",
		n, r->have_q ? "tc_sink" : "tc_fn");
	put_py_string(out, msg);
	fprintf(out, ")\n\n@script:python depends on org@\n"
		"p << find%u.%s;\n@@\n\ncoccilib.org.print_todo(p[0], ",
		n, r->have_q ? "tc_sink" : "tc_fn");
	put_py_string(out, msg);
	fputs(")\n\n", out);
	free(msg);
}

static bool is_header_file(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && !strcmp(path + n - 2, ".h");
}

static int year_of(time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	return tm.tm_year + 1900;
}

static void put_header(FILE *out, const struct fix_sites *sites, char **why,
		       const struct cocci_opts *o)
{
	bool headers = false;
	size_t i, n = 0;
	const char *base = NULL;
	struct strs names = { 0 };
	char *t;

	for (i = 0; i < sites->nr; i++) {
		if (why[i])
			continue;
		n++;
		headers |= is_header_file(sites->v[i].f->site->file);
		if (!strs_has(&names, sites->v[i].f->fn->name))
			strs_push(&names, xstrdup(sites->v[i].f->fn->name));
	}
	if (o->tree) {
		base = strrchr(o->tree, '/');
		base = base && base[1] ? base + 1 : o->tree;
	}
	fputs("// SPDX-License-Identifier: GPL-2.0-only\n", out);
	put_wrapped(out, "/// ", "/// ", "Avoid the trapping ID register "
		    "reads, local-CPU capability checks and slow entropy "
		    "instructions that trapcheck found on hot paths, with the "
		    "fixes it verified:");
	for (i = 0; i < sites->nr; i++)
		if (!why[i] && sites->v[i].e.subject)
			put_wrapped(out, "/// - ", "///   ",
				    sites->v[i].e.subject);
	if (!n)
		fputs("/// (none)\n", out);
	fputs("///\n", out);
	t = xasprintf("Generated by trapcheck %s --emit-cocci%s%s. One rule "
		      "per fix site, pinned to its function and its file (a "
		      "script:python constraint on the position of the "
		      "function name): the same code elsewhere is not changed. "
		      "Patch mode makes the change trapcheck --fix makes; "
		      "report, context and org modes point at the sinks. "
		      "Regenerate it after the tree changes rather than edit "
		      "it.", TRAPCHECK_VERSION,
		      base ? " from the analysis of " : "", base ? base : "");
	put_wrapped(out, "//# ", "//# ", t);
	free(t);
	for (i = 0; i < sites->nr; i++) {
		const struct finding *f = sites->v[i].f;

		if (!why[i])
			continue;
		t = xasprintf("Left out: %s:%u:%u in %s(): %s", f->site->file,
			      f->site->line, f->site->col, f->fn->name, why[i]);
		put_wrapped(out, "//# ", "//#   ", t);
		free(t);
	}
	fputs("//\n// Confidence: High\n", out);
	fprintf(out, "// Copyright: (C) %d The trapcheck authors.\n",
		year_of(o->date));
	fprintf(out, "// Options: --no-includes%s\n",
		headers ? " --include-headers" : "");
	fputs("// Requires: 1.1.1\n// Keywords:", out);
	for (i = 0; i < names.nr; i++)
		fprintf(out, "%s %s", i ? "," : "", names.v[i]);
	fputs("\n\nvirtual patch\nvirtual context\nvirtual org\n"
	      "virtual report\n\n", out);
	fputs("@initialize:python@\n@@\nimport os.path\n\n"
	      "def trapcheck_in(p, rel):\n"
	      "\tf = os.path.normpath(p[0].file)\n"
	      "\treturn f == rel or f.endswith(\"/\" + rel)\n\n", out);
	strs_free(&names);
}

/* Two rules must not rewrite overlapping lines of one file. */
static char *overlap(const struct fix_sites *sites, struct site_rule *rules,
		     char **why, size_t k)
{
	const struct fix_site *s = &sites->v[k];
	size_t i;

	for (i = 0; i < k; i++) {
		const struct fix_site *t = &sites->v[i];

		if (why[i] || strcmp(s->f->site->file, t->f->site->file))
			continue;
		if (s->e.first <= rules[i].last && t->e.first <= rules[k].last)
			return xasprintf("its lines overlap the fix of %s:%u",
					 t->f->site->file, t->f->site->line);
	}
	return NULL;
}

int cocci_emit(const char *path, const struct fix_sites *sites,
	       const struct cocci_opts *o, char *err, size_t errlen)
{
	struct site_rule *rules = xcalloc(sites->nr + 1, sizeof(*rules));
	char **why = xcalloc(sites->nr + 1, sizeof(*why));
	char *buf = NULL;
	size_t len = 0, i;
	unsigned int n = 0;
	struct out_file of;
	FILE *out;
	int ret;

	for (i = 0; i < sites->nr; i++) {
		why[i] = sites->v[i].beyond_site ?
			 xstrdup("its fix edits more than this site (other "
				 "lines or files), which a rule pinned to the "
				 "site does not: apply trapcheck --fix's "
				 "patch") :
			 build_rule(&sites->v[i], &rules[i]);
		if (!why[i])
			why[i] = overlap(sites, rules, why, i);
	}
	out = open_memstream(&buf, &len);
	put_header(out, sites, why, o);
	for (i = 0; i < sites->nr; i++)
		if (!why[i])
			put_rule(out, ++n, &sites->v[i], &rules[i]);
	/* spatch fails on a semantic patch with no code ("No rules apply"). */
	if (!n)
		fputs("// Nothing to fix: a rule that matches nothing, so that "
		      "spatch runs.\n@nothing@\n@@\n\n"
		      "- trapcheck_found_nothing_to_fix();\n", out);
	fclose(out);
	while (len > 1 && buf[len - 1] == '\n' && buf[len - 2] == '\n')
		buf[--len] = '\0';

	ret = out_open(&of, path);
	if (!ret) {
		fwrite(buf, 1, len, of.f);
		ret = out_close(&of);
	}
	if (ret) {
		snprintf(err, errlen, "%s: cannot write: %s", path,
			 strerror(-ret));
		goto out_free;
	}
	for (i = 0; i < sites->nr; i++) {
		struct finding_note *n;

		if (!why[i] || !sites->list)
			continue;
		n = finding_note(sites->list, sites->v[i].f);
		free(n->fix_note);
		n->fix_note = xasprintf("fix not in %s: %s", path, why[i]);
	}
	ret = (int)n;
out_free:
	for (i = 0; i < sites->nr; i++) {
		site_rule_free(&rules[i]);
		free(why[i]);
	}
	free(rules);
	free(why);
	free(buf);
	return ret;
}
