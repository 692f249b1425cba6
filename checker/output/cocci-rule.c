// SPDX-License-Identifier: GPL-2.0
/*
 * cocci-rule.c - one verified fix as the code of a rule (cocci-emit.c).
 *
 * The lines a fix replaces must be whole statements, or one if or while
 * header that becomes one; when the added code ends with a blank line the
 * region grows by the statement after it. Minus code writes calls without
 * arguments f(...), added lines with two of them take them from
 * expression metavariables bound in the minus code, the find rule's code
 * carries a position after the sink, and the names spatch would ask
 * about are declared.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/finding/edit.h"
#include "trapcheck/base/util.h"

#include "cocci-internal.h"

/* How far the region may grow to take in the statement after it. */
#define MAX_NEXT_LINES 20

void site_rule_free(struct site_rule *r)
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
	if (f->func_file && strcmp(f->func_file, f->file))
		return xasprintf("the site is in %s, the function %s() in %s",
				 f->file, f->function, f->func_file);
	if (!f->func_line || f->func_line > src->nr_lines ||
	    !find_call(src->lines[f->func_line - 1], f->function))
		return xasprintf("the definition of %s() does not spell its "
				 "name (a macro defines it)", f->function);
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
char *build_rule(const struct fix_site *site, struct site_rule *r)
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
	find_lines(r, &code, nr_own, site->f->sink);
	declare_names(r, &code);
out_free:
	strs_free(&old);
	strs_free(&new);
	strs_free(&code);
	return why;
}
