// SPDX-License-Identifier: GPL-2.0
/*
 * extract-args.c - the values calls pass: a constant (a literal, an enum
 * constant, true, false, NULL) or the caller's own parameter passed on,
 * and the parameters of a function, marked when its body changes them.
 * The graph carries them along chains (graph/args.h) to test argument
 * conditions: "if (!src)", "switch (reg) { case CSSELR_EL1: ... }".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/base/util.h"

#include "extract-internal.h"

/* @c without the parentheses and casts around it. */
static CXCursor bare(CXCursor c)
{
	unsigned int depth;

	for (depth = 0; depth < 16; depth++) {
		enum CXCursorKind k = clang_getCursorKind(c);
		struct kids kids = { .n = 0 };

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
		    k != CXCursor_CStyleCastExpr)
			break;
		clang_visitChildren(c, collect_kid, &kids);
		/* A cast's first child may be its type. */
		if (!kids.n || kids.n > ARRAY_SIZE(kids.c))
			break;
		c = kids.c[kids.n - 1];
	}
	return c;
}

bool const_value(CXCursor c, long long *value, char **name)
{
	CXCursor b = bare(c);
	enum CXCursorKind k = clang_getCursorKind(b);
	CXEvalResult r;
	bool ok = false;

	*name = NULL;
	if (k == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(b);

		if (clang_getCursorKind(d) != CXCursor_EnumConstantDecl)
			return false;
		*value = clang_getEnumConstantDeclValue(d);
		*name = cursor_name(d);
		return true;
	}
	if (k != CXCursor_IntegerLiteral && k != CXCursor_CharacterLiteral)
		return false;
	r = clang_Cursor_Evaluate(b);
	if (r && clang_EvalResult_getKind(r) == CXEval_Int) {
		*value = clang_EvalResult_getAsLongLong(r);
		ok = true;
	}
	if (r)
		clang_EvalResult_dispose(r);
	return ok;
}

/* Which parameter of the function being walked @c names, or -1. */
static int param_index(struct walk *w, CXCursor c)
{
	CXCursor b = bare(c), d;
	int i, n;

	if (clang_getCursorKind(b) != CXCursor_DeclRefExpr)
		return -1;
	d = clang_getCursorReferenced(b);
	if (clang_getCursorKind(d) != CXCursor_ParmDecl)
		return -1;
	n = clang_Cursor_getNumArguments(w->cur_fn);
	for (i = 0; i < n; i++)
		if (clang_equalCursors(clang_Cursor_getArgument(w->cur_fn, i),
				       d))
			return i;
	return -1;
}

char *call_consts(struct walk *w, CXCursor call)
{
	int i, n = clang_Cursor_getNumArguments(call);
	char *out = NULL;

	for (i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(call, i);
		char *name, *item = NULL, *more;
		long long v;
		int p = param_index(w, a);

		if (p >= 0)
			item = xasprintf("%d=$%d", i, p);
		else if (const_value(a, &v, &name))
			item = xasprintf("%d=#%lld%s%s", i, v, name ? ":" : "",
					 name ? name : "");
		else
			continue;
		if (p < 0)
			free(name);
		more = xasprintf("%s%s%s", out ? out : "", out ? ";" : "",
				 item);
		free(out);
		free(item);
		out = more;
	}
	return out;
}

static bool is_one_of(const char *t, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(t, *set))
			return true;
	return false;
}

/*
 * Does the body (the function's tokens) change parameter @p: assign it,
 * step it, take its address? By tokens, so a local of the same name, or
 * "a & p", counts too: the parameter is then not followed.
 */
static bool changed(const struct tokens *t, const char *p)
{
	static const char *const after[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
		">>=", "++", "--", NULL
	};
	static const char *const before[] = { "&", "++", "--", NULL };
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (strcmp(t->s[i], p))
			continue;
		if (i + 1 < t->n && is_one_of(t->s[i + 1], after))
			return true;
		if (i && is_one_of(t->s[i - 1], before))
			return true;
	}
	return false;
}

char *func_params(struct walk *w, CXCursor fn)
{
	int i, n = clang_Cursor_getNumArguments(fn);
	char *out = NULL;

	for (i = 0; i < n; i++) {
		char *name = cursor_name(clang_Cursor_getArgument(fn, i));
		char *more;

		more = xasprintf("%s%s%s%s", out ? out : "", i ? "," : "",
				 name[0] && changed(&w->ftok, name) ? "~" : "",
				 name);
		free(out);
		free(name);
		out = more;
	}
	return out;
}
