// SPDX-License-Identifier: GPL-2.0
/*
 * extract-body.c - the walk of one function body (extract-internal.h),
 * and of a global's initialiser.
 *
 * Calls are recorded where the walk meets them (direct calls and the
 * sinks among them; calls through members too); branches and early exits
 * open guarded regions and loops are noted; when the body is done, every
 * site of it gets the guards and loop counts of the regions around it.
 * Whether the function is cold is read from its tokens here too.
 *
 * Below, in order: locations, names and keys of cursors; the constants
 * calls pass; conditions as atoms, guarded regions and loops; regions
 * between the calls that mask interrupts, disable preemption or take a
 * lock; function pointers in struct members; the statements.
 */
#include <clang-c/Index.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/clang/extract.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/clang/tokens.h"
#include "trapcheck/base/util.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/model/dispatch.h"
#include "trapcheck/clang/tables.h"
#include "trapcheck/model/sinks.h"

#include "extract-internal.h"

/*
 * Files relative to the tree, expansion locations, function keys, cursor
 * names, children and offsets.
 */

static size_t ptr_hash(const void *p)
{
	return (size_t)hash_mix((uint64_t)(uintptr_t)p, 0);
}

/* @f's slot, made with its path relative to the tree when new. */
static struct file_slot *file_slot(struct walk *w, CXFile f)
{
	size_t i;
	CXString name;
	char *norm;

	if (!w->files) {
		w->files_mask = 255;
		w->files = xcalloc(w->files_mask + 1, sizeof(*w->files));
	}
	for (i = ptr_hash(f) & w->files_mask; w->files[i].file;
	     i = (i + 1) & w->files_mask)
		if (w->files[i].file == f)
			return &w->files[i];

	name = clang_getFileName(f);
	norm = path_normalize(clang_getCString(name) ?
			      clang_getCString(name) : "<unknown>");
	clang_disposeString(name);
	w->files[i].file = f;
	w->files[i].rel = path_relative(norm, w->opts->root);
	free(norm);
	if (++w->files_used * 2 > w->files_mask) {
		struct file_slot *old = w->files;
		size_t n = w->files_mask + 1, j, at = 0;

		w->files_mask = n * 2 - 1;
		w->files = xcalloc(n * 2, sizeof(*w->files));
		for (j = 0; j < n; j++) {
			size_t k;

			if (!old[j].file)
				continue;
			for (k = ptr_hash(old[j].file) & w->files_mask;
			     w->files[k].file; k = (k + 1) & w->files_mask)
				;
			w->files[k] = old[j];
			if (j == i)
				at = k;
		}
		free(old);
		return &w->files[at];
	}
	return &w->files[i];
}

const char *extract_file_path(struct walk *w, CXFile f, bool real)
{
	struct file_slot *s;
	CXString name;

	if (!f)
		return real ? NULL : "<built-in>";
	s = file_slot(w, f);
	if (!real || s->real_done)
		return real ? s->real : s->rel;
	name = clang_File_tryGetRealPathName(f);
	if (!clang_getCString(name) || !*clang_getCString(name)) {
		clang_disposeString(name);
		name = clang_getFileName(f);
	}
	s->real = clang_getCString(name) ?
		  realpath(clang_getCString(name), NULL) : NULL;
	clang_disposeString(name);
	s->real_done = true;
	return s->real;
}

const char *extract_loc(struct walk *w, CXSourceLocation loc,
			  unsigned int *line, unsigned int *col,
			  unsigned int *offset, CXFile *filep)
{
	CXFile f;

	clang_getExpansionLocation(loc, &f, line, col, offset);
	if (filep)
		*filep = f;
	return extract_file_path(w, f, false);
}

/* Spelling of the first token of the argument list of a sink. */
char *extract_first_arg(CXTranslationUnit tu, CXSourceRange range,
		      bool skip_name, bool literal)
{
	CXToken *toks = NULL;
	unsigned int n = 0, i = 0;
	char *arg = NULL;

	clang_tokenize(tu, range, &toks, &n);
	if (skip_name) {
		/* name ( arg ... */
		i = 2;
	}
	if (i < n && (clang_getTokenKind(toks[i]) == CXToken_Identifier ||
		      (literal &&
		       clang_getTokenKind(toks[i]) == CXToken_Literal))) {
		CXString s = clang_getTokenSpelling(tu, toks[i]);

		arg = xstrdup(clang_getCString(s));
		clang_disposeString(s);
	}
	if (toks)
		clang_disposeTokens(tu, toks, n);
	return arg;
}

/*
 * The key of a function: its USR, and for internal linkage the file that
 * defines it too, so two "static int check(void)" in files of the same
 * base name stay two nodes while a header's static inline stays one.
 */
char *extract_func_key(struct walk *w, CXCursor decl, const char **file,
	       unsigned int *line, bool *is_static)
{
	CXCursor def = clang_getCursorDefinition(decl);
	CXCursor c = clang_Cursor_isNull(def) ?
		     clang_getCanonicalCursor(decl) : def;
	CXString usr = clang_getCursorUSR(c);
	const char *u = clang_getCString(usr);
	char *key;
	unsigned int col;

	*file = extract_loc(w, clang_getCursorLocation(c), line, &col,
			      NULL, NULL);
	*is_static = clang_getCursorLinkage(c) == CXLinkage_Internal;
	if (*is_static)
		key = xasprintf("%s@%s", u ? u : "", *file);
	else
		key = xstrdup(u ? u : "");
	clang_disposeString(usr);
	return key;
}

char *extract_cursor_name(CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	char *name = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return name;
}

static enum CXChildVisitResult collect_kid(CXCursor c, CXCursor p,
					   CXClientData d)
{
	struct kids *k = d;

	(void)p;
	if (k->n < ARRAY_SIZE(k->c))
		k->c[k->n] = c;
	k->n++;
	return CXChildVisit_Continue;
}

static unsigned int offset_of(CXSourceLocation loc)
{
	unsigned int off;

	clang_getExpansionLocation(loc, NULL, NULL, NULL, &off);
	return off;
}

static void extent_offsets(CXCursor c, unsigned int *from, unsigned int *to)
{
	CXSourceRange r = clang_getCursorExtent(c);

	*from = offset_of(clang_getRangeStart(r));
	*to = offset_of(clang_getRangeEnd(r));
	if (*to <= *from)
		*to = *from + 1;
}

/* The file and expansion offset where @c starts. */
static unsigned int start_of(CXCursor c, CXFile *file)
{
	CXSourceLocation at = clang_getRangeStart(clang_getCursorExtent(c));
	unsigned int off;

	clang_getExpansionLocation(at, file, NULL, NULL, &off);
	return off;
}

/*
 * The values calls pass: a constant (a literal, an enum constant, true,
 * false, NULL) or the caller's own parameter passed on, and the
 * parameters of a function, marked when its body changes them. The graph
 * carries them along chains (graph/args.h) to test argument conditions:
 * "if (!src)", "switch (reg) { case CSSELR_EL1: ... }".
 */

static const char *binary_op(struct walk *w, CXCursor op, CXCursor lhs,
			     CXCursor rhs);

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

static bool const_value(CXCursor c, long long *value, char **name)
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
		*name = extract_cursor_name(d);
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

static char *call_consts(struct walk *w, CXCursor call)
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

static char *func_params(struct walk *w, CXCursor fn)
{
	int i, n = clang_Cursor_getNumArguments(fn);
	char *out = NULL;

	for (i = 0; i < n; i++) {
		CXCursor arg = clang_Cursor_getArgument(fn, i);
		char *name = extract_cursor_name(arg);
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

/*
 * The guarded regions of a function body.
 *
 * A region is a stretch of file offsets that runs only when a condition
 * holds: a branch of an if, a conditional or a logical operator, the rest
 * of a block after an early exit (code between the calls that mask
 * interrupts, disable preemption or take a lock is below).
 * Conditions are atoms (guards.h); an `if` written in a macro body is
 * read from the macro's definition with this expansion's arguments.
 * Loops and their constant trip counts are regions too.
 */

/* Tokens of the current function within [from, to). */
static void token_span(struct walk *w, unsigned int from, unsigned int to,
		unsigned int *first, unsigned int *end)
{
	unsigned int i = 0, j;

	while (i < w->ftok.n && w->ftok.off[i] < from)
		i++;
	j = i;
	while (j < w->ftok.n && w->ftok.off[j] < to)
		j++;
	/* A macro call ends the range at its name: take its arguments. */
	if (j > i && j < w->ftok.n && !strcmp(w->ftok.s[j], "(")) {
		int depth = 0;

		for (; j < w->ftok.n; j++) {
			if (!strcmp(w->ftok.s[j], "("))
				depth++;
			else if (!strcmp(w->ftok.s[j], ")") && !--depth)
				break;
		}
		if (j < w->ftok.n)
			j++;
	}
	*first = i;
	*end = j;
}

/* A region whose condition is already atoms (taken; may be NULL). */
static void add_atoms_region(struct walk *w, unsigned int from,
		      unsigned int to, char *atoms)
{
	struct region *r;

	if (!atoms)
		return;
	r = PUSH(w->regions, w->nr_regions, w->alloc_regions);
	r->from = from;
	r->to = to;
	r->atoms = atoms;
}

/*
 * The parameter a switch is on, through implicit casts and parentheses
 * ("switch (reg)"), as a new string; NULL when it is anything else.
 */
static char *switch_param(CXCursor c)
{
	struct kids k = { .n = 0 };

	switch (clang_getCursorKind(c)) {
	case CXCursor_DeclRefExpr: {
		CXCursor d = clang_getCursorReferenced(c);

		return clang_getCursorKind(d) == CXCursor_ParmDecl ?
		       extract_cursor_name(d) : NULL;
	}
	case CXCursor_UnexposedExpr:
	case CXCursor_ParenExpr:
		clang_visitChildren(c, collect_kid, &k);
		return k.n == 1 ? switch_param(k.c[0]) : NULL;
	default:
		return NULL;
	}
}

struct labels {
	CXCursor c[SWITCH_LABELS_MAX];
	unsigned int n;
};

static enum CXChildVisitResult collect_label(CXCursor c, CXCursor p,
					     CXClientData d)
{
	struct labels *l = d;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)p;
	if ((k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt) &&
	    l->n < SWITCH_LABELS_MAX)
		l->c[l->n++] = c;
	return CXChildVisit_Continue;
}

/*
 * "switch (reg) { case CSSELR_EL1: ...; case SCTLR_EL1: ... }" on a
 * parameter: what a case runs, up to the next label, runs only for that
 * value of the argument. The atom says so, with the value when it is a
 * constant: "<argument reg is CSSELR_EL1 (12)>" (guards.h,
 * GUARD_ARGUMENT); graph/args.h follows the constants calls pass to it.
 * A label that falls into another gives no atom.
 */
static void add_switch_regions(struct walk *w, CXCursor cond, CXCursor body)
{
	char *param = switch_param(cond);
	struct labels l = { .n = 0 };
	unsigned int bf, bt, i;

	if (!param)
		return;
	extent_offsets(body, &bf, &bt);
	clang_visitChildren(body, collect_label, &l);
	for (i = 0; i < l.n; i++) {
		struct kids k = { .n = 0 };
		unsigned int from, to, vf, vt, a, b;
		char *value, *atom, *name = NULL;
		long long v;

		if (clang_getCursorKind(l.c[i]) != CXCursor_CaseStmt)
			continue;
		clang_visitChildren(l.c[i], collect_kid, &k);
		if (k.n != 2 ||
		    clang_getCursorKind(k.c[1]) == CXCursor_CaseStmt ||
		    clang_getCursorKind(k.c[1]) == CXCursor_DefaultStmt)
			continue;
		extent_offsets(l.c[i], &from, &to);
		if (i + 1 < l.n)
			extent_offsets(l.c[i + 1], &to, &vt);
		else
			to = bt;
		extent_offsets(k.c[0], &vf, &vt);
		token_span(w, vf, vt, &a, &b);
		if (b <= a)
			continue;
		value = guard_join((const char *const *)w->ftok.s + a, b - a);
		/* Its value, when known, for the constants calls pass. */
		if (const_value(k.c[0], &v, &name))
			atom = xasprintf("<argument %s is %s (%lld)>", param,
					 value, v);
		else
			atom = xasprintf("<argument %s is %s>", param, value);
		add_atoms_region(w, from, to, atom);
		free(name);
		free(value);
	}
	free(param);
}

/* @c's value when clang folds it to an integer: 1 (non-zero) or 0; else -1. */
static int fold(CXCursor c)
{
	CXEvalResult ev = clang_Cursor_Evaluate(c);
	int v = -1;

	if (!ev)
		return -1;
	if (clang_EvalResult_getKind(ev) == CXEval_Int)
		v = clang_EvalResult_isUnsignedInt(ev) ?
		    clang_EvalResult_getAsUnsigned(ev) != 0 :
		    clang_EvalResult_getAsLongLong(ev) != 0;
	clang_EvalResult_dispose(ev);
	return v;
}

struct bcp {
	struct walk *w;
	bool unknown;
};

static enum CXChildVisitResult find_bcp(CXCursor c, CXCursor p,
					CXClientData d);

/*
 * Does @c ask __builtin_constant_p() of something clang does not fold,
 * where it is evaluated (not in the arm of a ?: or the right of && or ||
 * that a constant rules out)? clang's front end answers 0 there, GCC may
 * answer 1 once it has inlined.
 */
static bool bcp_unknown(struct bcp *b, CXCursor c)
{
	enum CXCursorKind kind = clang_getCursorKind(c);
	struct kids k = { .n = 0 };
	struct bcp inner = { b->w, false };
	int v;

	if (kind == CXCursor_CallExpr) {
		CXString s = clang_getCursorSpelling(c);
		bool is = !strcmp(clang_getCString(s), "__builtin_constant_p");

		clang_disposeString(s);
		if (is)
			return clang_Cursor_getNumArguments(c) != 1 ||
			       fold(clang_Cursor_getArgument(c, 0)) < 0;
	}
	if (kind == CXCursor_ConditionalOperator) {
		clang_visitChildren(c, collect_kid, &k);
		if (k.n == 3 && (v = fold(k.c[0])) >= 0)
			return bcp_unknown(b, k.c[0]) ||
			       bcp_unknown(b, v ? k.c[1] : k.c[2]);
	} else if (kind == CXCursor_BinaryOperator) {
		const char *op = "";

		clang_visitChildren(c, collect_kid, &k);
		if (k.n == 2)
			op = binary_op(b->w, c, k.c[0], k.c[1]);
		v = !strcmp(op, "&&") || !strcmp(op, "||") ? fold(k.c[0]) : -1;
		/* 0 && x, 1 || x: x is not evaluated. */
		if (v >= 0 && v == !strcmp(op, "||"))
			return bcp_unknown(b, k.c[0]);
	}
	clang_visitChildren(c, find_bcp, &inner);
	return inner.unknown;
}

static enum CXChildVisitResult find_bcp(CXCursor c, CXCursor p,
					CXClientData d)
{
	struct bcp *b = d;

	(void)p;
	b->unknown = bcp_unknown(b, c);
	return b->unknown ? CXChildVisit_Break : CXChildVisit_Continue;
}

static int cond_constant(struct walk *w, CXCursor cond)
{
	struct bcp b = { w, false };
	int v = fold(cond);

	return v < 0 || bcp_unknown(&b, cond) ? -1 : v;
}

static char *never_atom(struct walk *w, CXCursor cond, bool negated)
{
	unsigned int cf, ct, i, j;
	char *text, *atom;
	int v = cond_constant(w, cond);

	if (v < 0 || v == !negated)
		return NULL;
	extent_offsets(cond, &cf, &ct);
	token_span(w, cf, ct, &i, &j);
	if (j > i + GUARD_TOKENS_MAX || j <= i)
		return xstrdup("<never: a constant condition>");
	text = guard_join((const char *const *)w->ftok.s + i, j - i);
	atom = xasprintf("<never: %s%s%s>", negated ? "!(" : "", text,
			 negated ? ")" : "");
	free(text);
	return atom;
}

/* @body runs only when @cond is true (or false, @negated). */
static void add_region(struct walk *w, unsigned int from, unsigned int to,
		CXCursor cond, bool negated)
{
	unsigned int cf, ct, i, j;
	char *atoms = never_atom(w, cond, negated);

	if (atoms) {
		add_atoms_region(w, from, to, atoms);
		return;
	}
	extent_offsets(cond, &cf, &ct);
	token_span(w, cf, ct, &i, &j);
	if (j > i + GUARD_TOKENS_MAX) {
		/* Generated code: a condition is known to be there, no more. */
		atoms = xasprintf("<a condition of %u tokens>", j - i);
	} else if (j <= i ||
		   !guard_atoms((const char *const *)w->ftok.s + i, j - i,
				negated, &atoms) || !atoms) {
		return;
	}
	add_atoms_region(w, from, to, atoms);
}

static void add_cursor_region(struct walk *w, CXCursor body, CXCursor cond,
		       bool negated)
{
	unsigned int from, to;

	extent_offsets(body, &from, &to);
	add_region(w, from, to, cond, negated);
}

#define LOOP_MAX 1024

struct loop_bound {
	unsigned int n;
	bool found;
};

/* "i < N" / "i <= N" with N constant: the trip count. */
static enum CXChildVisitResult find_bound(CXCursor c, CXCursor p,
					  CXClientData d);

static void add_loop(struct walk *w, CXCursor loop)
{
	struct loop_bound b = { 1, false };
	struct loop_region *r;
	unsigned int from, to;

	/* do { ... } while (0): one pass, not a loop (macro bodies). */
	if (clang_getCursorKind(loop) == CXCursor_DoStmt) {
		struct kids k = { .n = 0 };
		CXEvalResult ev;
		bool once = false;

		clang_visitChildren(loop, collect_kid, &k);
		ev = k.n == 2 ? clang_Cursor_Evaluate(k.c[1]) : NULL;
		if (ev) {
			once = clang_EvalResult_getKind(ev) == CXEval_Int &&
			       !clang_EvalResult_getAsLongLong(ev);
			clang_EvalResult_dispose(ev);
		}
		if (once)
			return;
	}
	if (clang_getCursorKind(loop) == CXCursor_ForStmt)
		clang_visitChildren(loop, find_bound, w);
	if (w->bound_found) {
		b.n = w->bound;
		b.found = true;
	}
	w->bound_found = false;
	extent_offsets(loop, &from, &to);
	r = PUSH(w->loops, w->nr_loops, w->alloc_loops);
	r->from = from;
	r->to = to;
	r->factor = b.n ? (b.n > LOOP_MAX ? LOOP_MAX : b.n) : 1;
	r->known = b.found;
}

static enum CXChildVisitResult find_bound(CXCursor c, CXCursor p,
					  CXClientData d)
{
	struct walk *w = d;
	struct kids k = { .n = 0 };
	const char *op;
	CXEvalResult ev;

	(void)p;
	if (w->bound_found || clang_getCursorKind(c) != CXCursor_BinaryOperator)
		return CXChildVisit_Continue;
	clang_visitChildren(c, collect_kid, &k);
	if (k.n != 2)
		return CXChildVisit_Continue;
	op = binary_op(w, c, k.c[0], k.c[1]);
	if (strcmp(op, "<") && strcmp(op, "<="))
		return CXChildVisit_Continue;
	ev = clang_Cursor_Evaluate(k.c[1]);
	if (ev) {
		if (clang_EvalResult_getKind(ev) == CXEval_Int) {
			long long n = clang_EvalResult_getAsLongLong(ev);

			if (n > 0) {
				w->bound = (unsigned int)(n > LOOP_MAX ?
							  LOOP_MAX : n) +
					   !strcmp(op, "<=");
				w->bound_found = true;
			}
		}
		clang_EvalResult_dispose(ev);
	}
	return CXChildVisit_Continue;
}

/*
 * The product of the constant trip counts of the loops around @off, and
 * in *@guess how many loops around it have no constant bound.
 */
unsigned int extract_loop_at(const struct loop_region *l, size_t nr,
		     unsigned int off, unsigned int *guess)
{
	unsigned long long f = 1;
	size_t i;

	*guess = 0;
	for (i = 0; i < nr; i++) {
		if (off < l[i].from || off >= l[i].to)
			continue;
		if (l[i].known)
			f *= l[i].factor;
		else
			(*guess)++;
	}
	return f > 1000000 ? 1000000 : (unsigned int)f;
}

/* The index of the bracket closing the one at @i, or @n. */
static unsigned int close_of(char **t, unsigned int n, unsigned int i)
{
	int depth = 0;

	for (; i < n; i++) {
		if (!strcmp(t[i], "(") || !strcmp(t[i], "[") ||
		    !strcmp(t[i], "{"))
			depth++;
		else if ((!strcmp(t[i], ")") || !strcmp(t[i], "]") ||
			  !strcmp(t[i], "}")) && !--depth)
			return i;
	}
	return n;
}

/*
 * Which `if` of its macro's body an IfStmt is: the ifs of one expansion
 * are walked in the order the body spells them.
 */
static unsigned int macro_if_nth(struct walk *w, unsigned int off, bool peek)
{
	unsigned int n = w->mif_off == off ? w->mif_n + 1 : 1;

	if (!peek) {
		w->mif_off = off;
		w->mif_n = n;
	}
	return n;
}

/* A macro's parameters (and an expansion's arguments) read, at most. */
#define MACRO_PARAMS_MAX	32

/*
 * The arguments of the expansion @x of a function-like macro, "NAME ( a ,
 * b )": argument k is x->s[args[k] + 1 .. args[k + 1]). Returns how many
 * there are (0: @x has no argument list), at most MACRO_PARAMS_MAX + 1.
 */
static size_t macro_args(const struct tokens *x,
			 size_t args[MACRO_PARAMS_MAX + 2])
{
	size_t nargs = 1, k;

	if (x->n <= 1 || strcmp(x->s[1], "("))
		return 0;
	args[0] = 1;
	if (x->n > 3)
		nargs += guard_split((const char *const *)x->s + 2, x->n - 3,
				     ",", args + 1, MACRO_PARAMS_MAX);
	for (k = 1; k < nargs; k++)
		args[k] += 2;
	args[nargs] = x->n - 1;
	return nargs;
}

/*
 * The condition of an `if` written in a macro body, as the compiler sees
 * it: the @nth `if` of the body of the macro expanded at @off, with the
 * macro's parameters replaced by the arguments of this expansion, as
 * atoms. libclang 14 maps every token of an expansion to the macro's name
 * (and prints no expression), so the body comes from the macro's
 * definition and the arguments from the expansion. NULL when it cannot
 * be found: then no guard, never a wrong one.
 */
static char *macro_if_atoms(struct walk *w, CXFile file, unsigned int off,
		     unsigned int nth, bool negated)
{
	CXSourceLocation at = clang_getLocationForOffset(w->tu, file, off);
	CXCursor m = clang_getCursor(w->tu, at);
	CXCursor def;
	struct tokens d, x;
	char **cond = NULL, *atoms = NULL;
	unsigned int i, body = 1, seen = 0;
	unsigned int params[MACRO_PARAMS_MAX], nparams = 0;
	size_t args[MACRO_PARAMS_MAX + 2], nargs = 0;
	size_t nc = 0, alloc = 0;

	if (clang_getCursorKind(m) != CXCursor_MacroExpansion)
		return NULL;
	def = clang_getCursorReferenced(m);
	if (clang_getCursorKind(def) != CXCursor_MacroDefinition)
		return NULL;
	tokens_get(&d, w->tu, clang_getCursorExtent(def), false);
	tokens_get(&x, w->tu, clang_getCursorExtent(m), false);
	if (clang_Cursor_isMacroFunctionLike(def) && d.n > 1) {
		for (i = 2; i < d.n && strcmp(d.s[i], ")"); i++)
			if (strcmp(d.s[i], ",") && nparams < MACRO_PARAMS_MAX)
				params[nparams++] = i;
		body = i + 1;
		nargs = macro_args(&x, args);
	}
	for (i = body; i + 1 < d.n; i++) {
		unsigned int end, j, p;
		size_t a;

		if (strcmp(d.s[i], "if") || strcmp(d.s[i + 1], "(") ||
		    ++seen != nth)
			continue;
		end = close_of(d.s, d.n, i + 1);
		for (j = i + 2; j < end; j++) {
			for (p = 0; p < nparams &&
			     strcmp(d.s[j], d.s[params[p]]); p++)
				;
			if (p == nparams || p >= nargs) {
				*PUSH(cond, nc, alloc) = d.s[j];
				continue;
			}
			for (a = args[p] + 1; a < args[p + 1]; a++)
				*PUSH(cond, nc, alloc) = x.s[a];
		}
		break;
	}
	if (nc > GUARD_TOKENS_MAX)
		atoms = xasprintf("<a condition of %zu tokens>", nc);
	else if (nc)
		guard_atoms((const char *const *)cond, nc, negated, &atoms);
	free(cond);
	tokens_free(&d);
	tokens_free(&x);
	return atoms;
}

/*
 * Does @body not start after @cond? Then both are written inside one
 * macro body: their expansion offsets are the macro's, the same for the
 * condition, the branch taken and the branch not taken.
 */
static bool in_macro_body(CXCursor cond, CXCursor body)
{
	unsigned int cf, ct, bf, bt;

	extent_offsets(cond, &cf, &ct);
	extent_offsets(body, &bf, &bt);
	return bf <= cf;
}

/* The guards that hold at @off: every region holding it, outer first. */
char *extract_guards_at(const struct region *r, size_t nr, unsigned int off)
{
	size_t i, j, len = 0;
	char *g, *p;

	/*
	 * In one pass, each distinct condition once: macro-expanded code
	 * puts many regions on one site (percpu ops: dozens), and joining
	 * them pairwise was 6% of a cold run.
	 */
	for (i = 0; i < nr; i++)
		if (off >= r[i].from && off < r[i].to)
			len += strlen(r[i].atoms) + 4;
	if (!len)
		return NULL;
	g = p = xmalloc(len + 1);
	for (i = 0; i < nr; i++) {
		bool seen = false;

		if (off < r[i].from || off >= r[i].to)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = off >= r[j].from && off < r[j].to &&
			       !strcmp(r[j].atoms, r[i].atoms);
		if (seen)
			continue;
		if (p != g)
			p = stpcpy(p, " && ");
		p = stpcpy(p, r[i].atoms);
	}
	return g;
}

static int region_order(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to < y->to) - (x->to > y->to);
}

/* The conditions of the enclosing macro-body branches, joined. */
static char *macro_guards(const struct walk *w)
{
	char *g = NULL, *more;
	size_t i;

	for (i = 0; i < w->nr_mguards; i++) {
		more = xasprintf("%s%s%s", g ? g : "", g ? " && " : "",
				 w->mguards[i]);
		free(g);
		g = more;
	}
	return g;
}

/* The operator between the two operands of a binary operator. */
static const char *binary_op(struct walk *w, CXCursor op, CXCursor lhs,
		      CXCursor rhs)
{
	static const char *const ops[] = {
		"&&", "||", "<=", ">=", "==", "!=", "=", "<", ">",
	};
	unsigned int lf, lt, rf, rt, i;
	CXPrintingPolicy pol;
	CXString whole, left;
	const char *found = "";
	size_t n;

	extent_offsets(lhs, &lf, &lt);
	extent_offsets(rhs, &rf, &rt);
	for (i = 0; i < w->ftok.n; i++)
		if (w->ftok.off[i] >= lt && w->ftok.off[i] < rf)
			return w->ftok.s[i];
	if (!in_macro_body(lhs, rhs))
		return "";
	/* Inside a macro body: clang prints "lhs OP rhs". */
	pol = clang_getCursorPrintingPolicy(op);
	whole = clang_getCursorPrettyPrinted(op, pol);
	left = clang_getCursorPrettyPrinted(lhs, pol);
	n = strlen(clang_getCString(left));
	if (!strncmp(clang_getCString(whole), clang_getCString(left), n)) {
		const char *p = clang_getCString(whole) + n;

		while (*p == ' ')
			p++;
		for (i = 0; i < ARRAY_SIZE(ops) && !*found; i++)
			if (!strncmp(p, ops[i], strlen(ops[i])) &&
			    p[strlen(ops[i])] == ' ')
				found = ops[i];
	}
	clang_disposeString(left);
	clang_disposeString(whole);
	clang_PrintingPolicy_dispose(pol);
	return found;
}

/*
 * The regions of a function body between the calls (or macros) that mask
 * interrupts, disable preemption or take a lock (checker/model/regions.def),
 * in statement order; they become guards with the region's atom (above).
 */

/* Opening and closing calls of regions (checker/model/regions.def). */

static const struct {
	const char *name;
	enum region_kind kind;
	bool open, prefix;
} region_table[] = {
#define IRQ REGION_IRQ
#define PREEMPT REGION_PREEMPT
#define LOCK REGION_LOCK
#define OPEN true
#define CLOSE false
#define REGION(n, k, a, p) { n, k, a, p },
#include "model/regions.def"
#undef IRQ
#undef PREEMPT
#undef LOCK
#undef OPEN
#undef CLOSE
};

static const char *const unmask_args[] = {
#define UNMASK(arg) arg,
#include "model/regions.def"
};

static const struct {
	const char *name;
	enum region_kind kind;
	bool open;
} region_macros[] = {
#define PREEMPT REGION_PREEMPT
#define OPEN true
#define CLOSE false
#define REGION_MACRO(n, k, a) { n, k, a },
#include "model/regions.def"
#undef PREEMPT
#undef OPEN
#undef CLOSE
};

/* An open or a close of a region, at a file offset of the function. */
struct region_event {
	unsigned int off;
	int kind;
	bool open;
};

static int region_call(const struct tu_call *c, bool *open)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(region_table); i++) {
		const char *n = region_table[i].name;
		bool hit = region_table[i].prefix ?
			   !strncmp(c->callee_name, n, strlen(n)) :
			   !strcmp(c->callee_name, n) ||
			   (c->via && !strcmp(c->via, n));

		if (hit) {
			*open = region_table[i].open;
			return region_table[i].kind;
		}
	}
	return -1;
}

static void push_region(struct walk *w, unsigned int from, unsigned int to,
			enum region_kind kind)
{
	add_atoms_region(w, from, to > from ? to : from + 1,
			 xstrdup(guard_region_atom[kind]));
}

static int event_order(const void *a, const void *b)
{
	const struct region_event *x = a, *y = b;

	if (x->off != y->off)
		return (x->off > y->off) - (x->off < y->off);
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return (int)y->open - (int)x->open;
}

/*
 * Is token @i of the function an expansion of a REGION_MACRO() macro?
 * A name followed by "(" where the preprocessor expanded a macro: the
 * cursor there is the expansion, not a line #if'd out (whose tokens
 * libclang still returns).
 */
static int region_macro(struct walk *w, unsigned int i, bool *open)
{
	const char *s = w->ftok.s[i];
	CXSourceLocation loc;
	CXCursor at;
	size_t k;

	if (i + 1 >= w->ftok.n || strcmp(w->ftok.s[i + 1], "("))
		return -1;
	for (k = 0; k < ARRAY_SIZE(region_macros); k++)
		if (!strcmp(s, region_macros[k].name))
			break;
	if (k == ARRAY_SIZE(region_macros))
		return -1;
	loc = clang_getLocationForOffset(w->tu, w->ftok_file, w->ftok.off[i]);
	at = clang_getCursor(w->tu, loc);
	if (clang_getCursorKind(at) != CXCursor_MacroExpansion)
		return -1;
	*open = region_macros[k].open;
	return region_macros[k].kind;
}

/*
 * The opens and closes of the body, in source order: the calls of
 * REGION() from @first on and the expansions of REGION_MACRO(); a macro
 * and the call it expands to are one event.
 */
static struct region_event *region_events(struct walk *w, size_t first,
					  size_t *nr)
{
	struct region_event *ev = NULL;
	size_t n = 0, alloc = 0, calls, i;
	unsigned int t;
	bool open;
	int k;

	for (i = first; i < w->out->nr_calls; i++) {
		k = region_call(&w->out->calls[i], &open);
		if (k >= 0)
			*PUSH(ev, n, alloc) = (struct region_event){
				w->out->calls[i].off, k, open };
	}
	calls = n;
	for (t = 0; w->ftok_file && t < w->ftok.n; t++) {
		k = region_macro(w, t, &open);
		if (k < 0)
			continue;
		for (i = 0; i < calls; i++)
			if (ev[i].off == w->ftok.off[t] && ev[i].kind == k &&
			    ev[i].open == open)
				break;
		if (i == calls)
			*PUSH(ev, n, alloc) = (struct region_event){
				w->ftok.off[t], k, open };
	}
	sort_n(ev, n, sizeof(*ev), event_order);
	*nr = n;
	return ev;
}

/*
 * Does the close at @off unmask whatever the caller had: no argument
 * (local_irq_enable()) or one of UNMASK() in regions.def
 * (local_daif_restore(DAIF_PROCCTX))? Then the function was entered
 * masked, and so were its callers up to the call (graph-regions.c).
 * local_irq_restore(flags) gives back what a local_irq_save() took, in
 * this function or its caller, and says nothing of how the function was
 * entered (6.12's ___slab_alloc() would make every kmalloc() caller
 * masked); local_daif_restore(DAIF_ERRCTX) keeps interrupts masked.
 */
static bool unmasks_all(struct walk *w, unsigned int off)
{
	unsigned int i, j;

	/* The call's name and its parenthesised arguments. */
	token_span(w, off, off + 1, &i, &j);
	if (j - i == 3)
		return true;
	return j - i == 4 && str_in(w->ftok.s[i + 2], unmask_args,
				    ARRAY_SIZE(unmask_args));
}

/*
 * The regions where this function cannot be preempted, in source order
 * (checker/model/regions.def): from an opening call to its closing one; from
 * the body's start to a close that nothing opened (entered so); from an
 * open nothing closed to the body's end.
 */
static void add_mask_regions(struct walk *w, CXCursor fn, size_t first)
{
	unsigned int from, to, open_at[REGION_KINDS];
	unsigned int depth[REGION_KINDS] = { 0 };
	struct tu_func *fn_facts = &w->out->funcs[w->cur_func];
	struct region_event *ev;
	unsigned int seen_before;
	size_t n, i;
	int k;

	ev = region_events(w, first, &n);
	if (!n) {
		free(ev);
		return;
	}
	extent_offsets(fn, &from, &to);
	for (i = 0; i < n; i++) {
		k = ev[i].kind;
		seen_before = fn_facts->region_seen;
		fn_facts->region_seen |= 1U << k;
		if (ev[i].open) {
			if (!depth[k]++)
				open_at[k] = ev[i].off;
		} else if (depth[k]) {
			if (!--depth[k])
				push_region(w, open_at[k], ev[i].off, k);
		} else {
			push_region(w, from, ev[i].off, k);
			/*
			 * Entered so, for the callers too, when this close
			 * is the function's first region call and unmasks
			 * whatever was there: not a local_irq_enable() that
			 * ends a spin_lock_irq() (6.12's
			 * __folio_migrate_mapping()).
			 */
			if (!seen_before && unmasks_all(w, ev[i].off))
				fn_facts->region_in |= 1U << k;
		}
	}
	for (k = 0; k < REGION_KINDS; k++) {
		if (depth[k]) {
			push_region(w, open_at[k], to, k);
			fn_facts->region_out |= 1U << k;
		}
	}
	free(ev);
}

/*
 * Function pointers in struct members.
 *
 * Functions stored in a member (".member = fn" in an initialiser of an
 * ops table or a notifier block, or "x->member = fn") and calls through a
 * member are recorded for the link to resolve (graph.c, dispatch.c); the
 * arguments of a registration type (checker/model/dispatch.def) are recorded by
 * what they name. The definitions of the tables the architecture reads
 * (tables.h) are handed to it from here as well.
 */

/* "struct.member" of a FieldDecl: the key of calls through it. */
static char *member_id(CXCursor field)
{
	CXCursor parent = clang_getCursorSemanticParent(field);
	CXString p = clang_getCursorSpelling(parent);
	CXString m = clang_getCursorSpelling(field);
	const char *ps = clang_getCString(p);
	char *id = xasprintf("%s.%s", ps && *ps ? ps : "(anonymous)",
			     clang_getCString(m));

	clang_disposeString(p);
	clang_disposeString(m);
	return id;
}

/* Registration types and control blocks of checker/dispatch.def. */
static const char *const reg_types[] = {
#define REG_TYPE(s) s,
#define CTL_MEMBER(s, m) s,
#include "model/dispatch.def"
};

/* Is @t a pointer to (or a) struct of a registration type? */
static bool reg_type(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	CXString s;
	bool hit;

	if (c.kind == CXType_Pointer)
		c = clang_getCanonicalType(clang_getPointeeType(c));
	if (c.kind != CXType_Record)
		return false;
	s = clang_getCursorSpelling(clang_getTypeDeclaration(c));
	hit = str_in(clang_getCString(s), reg_types, ARRAY_SIZE(reg_types));
	clang_disposeString(s);
	return hit;
}

/* The expression under implicit casts, parentheses, casts and '&'. */
static CXCursor strip_expr(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);
		struct kids kids = { .n = 0 };

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
		    k != CXCursor_CStyleCastExpr &&
		    k != CXCursor_UnaryOperator)
			return c;
		clang_visitChildren(c, collect_kid, &kids);
		if (!kids.n)
			return c;
		/* (type)x: the type reference comes first. */
		c = kids.c[kids.n > ARRAY_SIZE(kids.c) ?
			   ARRAY_SIZE(kids.c) - 1 : kids.n - 1];
	}
}

/* "local:NAME@FILE:LINE": a variable of a function body (@ref). */
static char *local_object(struct walk *w, CXCursor ref)
{
	unsigned int line, col;
	const char *f = extract_loc(w, clang_getCursorLocation(ref), &line,
				      &col, NULL, NULL);
	char *name = extract_cursor_name(ref), *id;

	id = xasprintf("local:%s@%s:%u", name, f, line);
	free(name);
	return id;
}

/*
 * What an argument or an object names, as a string (NULL: nothing that
 * can be named): "var:NAME[.member...][@FILE]" for a global variable (the
 * file when it is static) or a member of one, "local:NAME@FILE:LINE" for
 * a variable of a function body, "STRUCT.member" for a member of any
 * other object, "$N" for the current function's parameter N.
 */
static char *object_id(struct walk *w, CXCursor e)
{
	CXCursor c = strip_expr(e), ref = clang_getCursorReferenced(c);
	enum CXCursorKind k = clang_getCursorKind(c);
	char *id = NULL;

	if (k == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_ParmDecl) {
		int i, n = clang_Cursor_getNumArguments(w->cur_fn);

		for (i = 0; i < n; i++)
			if (clang_equalCursors(ref, clang_Cursor_getArgument(
						       w->cur_fn, i)))
				return xasprintf("$%d", i);
		return NULL;
	}
	if (k == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_VarDecl &&
	    clang_getCursorKind(clang_getCursorSemanticParent(ref)) ==
	    CXCursor_TranslationUnit) {
		char *name = extract_cursor_name(ref);

		if (clang_getCursorLinkage(ref) == CXLinkage_Internal) {
			unsigned int line, col;
			const char *f = extract_loc(w,
				clang_getCursorLocation(ref), &line, &col,
				NULL, NULL);

			id = xasprintf("var:%s@%s", name, f);
		} else {
			id = xasprintf("var:%s", name);
		}
		free(name);
		return id;
	}
	/* A struct of the body, not a pointer that may point anywhere. */
	if (k == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_VarDecl &&
	    clang_getCanonicalType(clang_getCursorType(ref)).kind ==
	    CXType_Record)
		return local_object(w, ref);
	if (k == CXCursor_MemberRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_FieldDecl) {
		struct kids kids = { .n = 0 };
		char *base = NULL, *field = extract_cursor_name(ref);

		clang_visitChildren(c, collect_kid, &kids);
		if (kids.n == 1)
			base = object_id(w, kids.c[0]);
		if (base && !strncmp(base, "var:", 4)) {
			char *at = strchr(base, '@');

			/* var:x@f + .m = var:x.m@f */
			id = at ? xasprintf("%.*s.%s%s", (int)(at - base), base,
					    field, at) :
				  xasprintf("%s.%s", base, field);
		} else {
			id = member_id(ref);
		}
		free(base);
		free(field);
	}
	return id;
}

/* "i=id;..." for the arguments of registration types, or NULL. */
static char *call_args(struct walk *w, CXCursor call)
{
	int i, n = clang_Cursor_getNumArguments(call);
	char *out = NULL;

	for (i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(call, i);
		char *id, *more;

		if (!reg_type(clang_getCursorType(a)))
			continue;
		id = object_id(w, a);
		if (!id)
			id = xstrdup("?");
		more = xasprintf("%s%s%d=%s", out ? out : "", out ? ";" : "",
				 i, id);
		free(out);
		free(id);
		out = more;
	}
	return out;
}

struct fn_ref {
	CXCursor fn;
	bool found, call;
};

static enum CXChildVisitResult find_fn_ref(CXCursor c, CXCursor p,
					   CXClientData d)
{
	struct fn_ref *r = d;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)p;
	if (k == CXCursor_CallExpr) {
		r->call = true;
		return CXChildVisit_Break;
	}
	if (k == CXCursor_DeclRefExpr && !r->found) {
		CXCursor ref = clang_getCursorReferenced(c);

		if (clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
			r->fn = ref;
			r->found = true;
		}
	}
	return CXChildVisit_Recurse;
}

/* The function @value names (foo, &foo, (cast)foo), not a call's result. */
static bool function_value(CXCursor value, CXCursor *fn)
{
	struct fn_ref r = { .found = false };

	if (clang_getCursorKind(value) == CXCursor_DeclRefExpr) {
		CXCursor ref = clang_getCursorReferenced(value);

		if (clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
			*fn = ref;
			return true;
		}
	}
	clang_visitChildren(value, find_fn_ref, &r);
	*fn = r.fn;
	return r.found && !r.call;
}

/* @fn stored in @member (taken) of @object, at @site. */
static void record_assign(struct walk *w, char *member, CXCursor fn,
			  const char *object, CXCursor site)
{
	struct tu_assign *a = PUSH(w->out->assigns, w->out->nr_assigns,
				   w->out->alloc_assigns);
	const char *file;
	unsigned int col;
	bool is_static;

	a->object = object ? xstrdup(object) : NULL;
	a->from_member = NULL;
	a->member = member;
	a->fn_key = extract_func_key(w, fn, &file, &a->fn_line, &is_static);
	a->fn_name = extract_cursor_name(fn);
	a->fn_file = xstrdup(file);
	a->file = xstrdup(extract_loc(w, clang_getCursorLocation(site),
					&a->line, &col, NULL, NULL));
}

/* Is @t a pointer to a function? */
static bool function_pointer(CXType t)
{
	CXType c = clang_getCanonicalType(t);

	if (c.kind != CXType_Pointer)
		return false;
	c = clang_getCanonicalType(clang_getPointeeType(c));
	return c.kind == CXType_FunctionProto ||
	       c.kind == CXType_FunctionNoProto;
}

/*
 * Each function passed to @call (to @callee) as argument N, recorded as
 * stored in "callee()#N": what registers a handler, a poll function or a
 * timer callback (roots.h "register:" lines pick theirs at the link).
 */
static void record_fn_args(struct walk *w, CXCursor call, const char *callee)
{
	int i, n = clang_Cursor_getNumArguments(call);
	CXCursor fn;

	for (i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(call, i);

		if (function_pointer(clang_getCursorType(a)) &&
		    function_value(a, &fn))
			record_assign(w, xasprintf("%s()#%d", callee, i), fn,
				      NULL, call);
	}
}

/* Static calls (model/staticcall.def). */
static const char *const sc_prefixes[] = {
#define SC_PREFIX(p) p,
#include "model/staticcall.def"
};

static const char *const sc_key_members[] = {
#define SC_KEY_MEMBER(s, m) s "." m,
#include "model/staticcall.def"
};

static const struct sc_set {
	const char *fn;
	int name_arg, func_arg;
} sc_sets[] = {
#define SC_SET(f, n, v) { f, n, v },
#include "model/staticcall.def"
};

/* The NAME of a key's or a trampoline's symbol, or NULL. */
static const char *sc_symbol(const char *sym)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(sc_prefixes); i++) {
		n = strlen(sc_prefixes[i]);
		if (!strncmp(sym, sc_prefixes[i], n) && sym[n])
			return sym + n;
	}
	return NULL;
}

static enum CXChildVisitResult find_sc(CXCursor c, CXCursor p,
				       CXClientData d)
{
	char **name = d;

	(void)p;
	if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
		CXCursor ref = clang_getCursorReferenced(c);
		enum CXCursorKind k = clang_getCursorKind(ref);
		char *sym;
		const char *n;

		if (k != CXCursor_VarDecl && k != CXCursor_FunctionDecl)
			return CXChildVisit_Recurse;
		sym = extract_cursor_name(ref);
		n = sc_symbol(sym);
		if (n)
			*name = xasprintf("static_call(%s)", n);
		free(sym);
		if (n)
			return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

/*
 * "static_call(NAME)" when the expression @e names a static call's key
 * or trampoline (the callee of static_call(NAME)(args), the first
 * argument of __static_call_update()), or NULL.
 */
static char *static_call_of(CXCursor e)
{
	char *name = NULL;

	if (find_sc(e, e, &name) == CXChildVisit_Recurse)
		clang_visitChildren(e, find_sc, &name);
	return name;
}

/* A call through static_call(NAME): resolved like a member's. */
static void record_static_call(struct walk *w, CXCursor call, char *member)
{
	struct tu_icall *ic = PUSH(w->out->icalls, w->out->nr_icalls,
				   w->out->alloc_icalls);
	CXSourceLocation loc = clang_getCursorLocation(call);

	ic->caller = w->cur_func;
	ic->member = member;
	ic->object = NULL;
	ic->consts = call_consts(w, call);
	ic->file = xstrdup(extract_loc(w, loc, &ic->line, &ic->col,
					 &ic->off, NULL));
	ic->guards = macro_guards(w);
	ic->loop = 1;
	ic->loop_guess = 0;
}

/*
 * "static_call(NAME)" for DEFINE_STATIC_CALL()'s initialiser of the key
 * __SCK__NAME (@member of @object "var:__SCK__NAME"), or NULL.
 */
static char *static_call_key(const char *member, const char *object)
{
	const char *n;
	size_t len;

	if (!object || strncmp(object, "var:", 4) ||
	    !str_in(member, sc_key_members, ARRAY_SIZE(sc_key_members)))
		return NULL;
	n = sc_symbol(object + 4);
	if (!n)
		return NULL;
	len = strcspn(n, "@.");
	if (n[len] == '.')
		return NULL;
	return xasprintf("static_call(%.*s)", (int)len, n);
}

struct sc_value {
	struct walk *w;
	const char *member;
	CXCursor site;
};

/*
 * What a static call is set to: each function named (not called) and
 * each function-pointer member read in the value ("kvm_x86_ops.run",
 * "(void *)kvm_x86_ops.func ? : (void *)__static_call_return0").
 */
static enum CXChildVisitResult visit_sc_value(CXCursor c, CXCursor p,
					      CXClientData d)
{
	struct sc_value *v = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXCursor ref = clang_getCursorReferenced(c);

	(void)p;
	if (k == CXCursor_CallExpr)
		return CXChildVisit_Continue;
	if (k == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
		record_assign(v->w, xstrdup(v->member), ref, NULL, v->site);
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_MemberRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_FieldDecl &&
	    function_pointer(clang_getCursorType(ref))) {
		struct tu_assign *a = PUSH(v->w->out->assigns,
					   v->w->out->nr_assigns,
					   v->w->out->alloc_assigns);
		unsigned int col;

		memset(a, 0, sizeof(*a));
		a->member = xstrdup(v->member);
		a->from_member = member_id(ref);
		a->fn_key = xstrdup("");
		a->fn_name = xstrdup("");
		a->file = xstrdup(extract_loc(v->w,
				clang_getCursorLocation(v->site), &a->line,
				&col, NULL, NULL));
		return CXChildVisit_Continue;
	}
	return CXChildVisit_Recurse;
}

/* Visitor: the last expression under a variable: its initialiser. */
static enum CXChildVisitResult last_kid(CXCursor c, CXCursor p,
					CXClientData d)
{
	(void)p;
	if (clang_isExpression(clang_getCursorKind(c)))
		*(CXCursor *)d = c;
	return CXChildVisit_Continue;
}

/*
 * static_call_update(NAME, f): "typeof(...) __F = (f);
 * __static_call_update(&__SCK__NAME, ..., __F)": what static_call(NAME)
 * may call from now on (staticcall.def SC_SET).
 */
static void record_sc_set(struct walk *w, CXCursor call, const char *callee)
{
	int n = clang_Cursor_getNumArguments(call);
	struct sc_value v = { .w = w, .site = call };
	CXCursor value, ref;
	char *name;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sc_sets); i++)
		if (!strcmp(callee, sc_sets[i].fn))
			break;
	if (i == ARRAY_SIZE(sc_sets) || sc_sets[i].name_arg >= n ||
	    sc_sets[i].func_arg >= n)
		return;
	name = static_call_of(clang_Cursor_getArgument(call,
						       sc_sets[i].name_arg));
	if (!name)
		return;
	value = strip_expr(clang_Cursor_getArgument(call,
						    sc_sets[i].func_arg));
	ref = clang_getCursorReferenced(value);
	/* The macro's local copy: its initialiser. */
	if (clang_getCursorKind(value) == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_VarDecl) {
		value = clang_getNullCursor();
		clang_visitChildren(ref, last_kid, &value);
	}
	v.member = name;
	if (!clang_Cursor_isNull(value) &&
	    visit_sc_value(value, value, &v) == CXChildVisit_Recurse)
		clang_visitChildren(value, visit_sc_value, &v);
	free(name);
}

/* Designated initialisers ".member = function", at any depth. */
static enum CXChildVisitResult visit_init_list(CXCursor c, CXCursor p,
					CXClientData d)
{
	struct walk *w = d;
	struct kids k = { .n = 0 };

	(void)p;
	if (clang_getCursorKind(c) == CXCursor_InitListExpr) {
		clang_visitChildren(c, visit_init_list, w);
		return CXChildVisit_Continue;
	}
	clang_visitChildren(c, collect_kid, &k);
	if (k.n >= 2 && k.n <= 4 &&
	    clang_getCursorKind(k.c[0]) == CXCursor_MemberRef) {
		CXCursor field = clang_getCursorReferenced(k.c[0]), fn;
		CXCursor value = k.c[k.n - 1];

		if (clang_getCursorKind(value) == CXCursor_InitListExpr) {
			/* .member = { ... }: the object is that member. */
			char *outer = w->init_obj;
			char *name = extract_cursor_name(field);
			char *at = outer ? strchr(outer, '@') : NULL;

			w->init_obj = !outer ? NULL : at ?
				xasprintf("%.*s.%s%s", (int)(at - outer), outer,
					  name, at) :
				xasprintf("%s.%s", outer, name);
			clang_visitChildren(value, visit_init_list, w);
			free(w->init_obj);
			free(name);
			w->init_obj = outer;
		} else if (clang_getCursorKind(field) == CXCursor_FieldDecl &&
			 function_value(value, &fn)) {
			char *member = member_id(field);
			char *sc = static_call_key(member, w->init_obj);

			if (sc) {
				free(member);
				member = sc;
			}
			record_assign(w, member, fn, w->init_obj, c);
		}
	}
	return CXChildVisit_Continue;
}

/* @lhs = @rhs: "ops->member = function" is recorded. */
static void record_store(struct walk *w, CXCursor lhs, CXCursor rhs)
{
	CXCursor field = clang_getCursorReferenced(lhs), fn;
	struct kids base = { .n = 0 };
	char *obj = NULL;

	if (clang_getCursorKind(lhs) != CXCursor_MemberRefExpr ||
	    clang_getCursorKind(field) != CXCursor_FieldDecl ||
	    !function_value(rhs, &fn))
		return;
	/* x.nb.notifier_call = f: the object x.nb */
	clang_visitChildren(lhs, collect_kid, &base);
	if (base.n == 1)
		obj = object_id(w, base.c[0]);
	record_assign(w, member_id(field), fn, obj, lhs);
	free(obj);
}

/*
 * The object of a call through a control block's member (dispatch.def
 * CTL_MEMBER), or NULL: "rwc->rmap_one(...)" on the parameter rwc.
 */
static char *icall_object(struct walk *w, CXCursor call, const char *member)
{
	struct kids callee = { .n = 0 }, base = { .n = 0 };
	CXCursor c;

	if (!dispatch_ctl_member(member))
		return NULL;
	clang_visitChildren(call, collect_kid, &callee);
	if (!callee.n)
		return NULL;
	c = strip_expr(callee.c[0]);
	if (clang_getCursorKind(c) != CXCursor_MemberRefExpr)
		return NULL;
	clang_visitChildren(c, collect_kid, &base);
	return base.n == 1 ? object_id(w, base.c[0]) : NULL;
}

static void record_icall(struct walk *w, CXCursor call, CXCursor field)
{
	struct tu_icall *ic = PUSH(w->out->icalls, w->out->nr_icalls,
				   w->out->alloc_icalls);
	CXSourceLocation loc = clang_getCursorLocation(call);

	ic->caller = w->cur_func;
	ic->member = member_id(field);
	ic->object = icall_object(w, call, ic->member);
	ic->consts = NULL;
	ic->file = xstrdup(extract_loc(w, loc, &ic->line, &ic->col,
					 &ic->off, NULL));
	ic->guards = macro_guards(w);
	ic->loop = 1;
	ic->loop_guess = 0;
}

static const char *table_loc_file(void *ctx, CXFile f)
{
	return extract_file_path(ctx, f, false);
}

/*
 * A table the architecture reads from the tree (tables.h): its entries,
 * or (TABLE_NAMES) the variable's name; and the function pointers in any
 * global's initialiser.
 */
void extract_var(struct walk *w, CXCursor c)
{
	const struct arch_table *t;
	char *name;

	if (clang_Cursor_getStorageClass(c) != CX_SC_Extern) {
		name = extract_cursor_name(c);
		t = tables_find(name);
		if (t && t->how == TABLE_NAMES) {
			struct table_row_in r = {
				.kind = t->kind, .table = name, .key = name,
			};

			facts_add_row(w->out, &r);
		}
		free(name);
	}
	if (!clang_isCursorDefinition(c))
		return;
	name = extract_cursor_name(c);
	/* Function pointers in initialisers: ops tables, notifier blocks. */
	if (clang_getCursorKind(clang_getCursorSemanticParent(c)) ==
	    CXCursor_TranslationUnit) {
		unsigned int line, col;
		const char *f = extract_loc(w, clang_getCursorLocation(c),
					      &line, &col, NULL, NULL);

		w->init_obj = clang_getCursorLinkage(c) == CXLinkage_Internal ?
			      xasprintf("var:%s@%s", name, f) :
			      xasprintf("var:%s", name);
	}
	clang_visitChildren(c, visit_init_list, w);
	free(w->init_obj);
	w->init_obj = NULL;
	t = tables_find(name);
	if (t && t->how == TABLE_ENTRIES)
		tables_read(w->tu, c, t, name, w->out, table_loc_file, w);
	else
		tables_read_devices(c, w->out, table_loc_file, w);
	free(name);
}

/* "VM_ENTRY_LOAD_IA32_RTIT_CTL": capitals, digits and an underscore. */
static bool bit_name(const char *s)
{
	bool under = false;

	if (*s < 'A' || *s > 'Z')
		return false;
	for (; *s; s++) {
		if (*s == '_')
			under = true;
		else if ((*s < 'A' || *s > 'Z') && (*s < '0' || *s > '9'))
			return false;
	}
	return under;
}

/*
 * The bit names in the definition of the macro expanded at @loc: an
 * offer function's mask of the bits it passes on (KVM_SUPPORTED_ARCH_CAP
 * in kvm_get_arch_capabilities(), arch/x86/kvm/x86.c). One level: a
 * macro named in a definition is not an expansion libclang records.
 */
static void record_macro_bits(struct walk *w, CXSourceLocation loc,
			      struct table_row_in *r)
{
	CXCursor c = clang_getCursor(w->tu, loc), def;
	CXToken *toks;
	unsigned int n, i, at, start;

	if (clang_getCursorKind(c) != CXCursor_MacroExpansion)
		return;
	/* The expansion of this token, not one whose argument it is. */
	clang_getSpellingLocation(loc, NULL, NULL, NULL, &at);
	clang_getSpellingLocation(clang_getRangeStart(
			clang_getCursorExtent(c)), NULL, NULL, NULL, &start);
	if (at != start)
		return;
	def = clang_getCursorReferenced(c);
	if (clang_getCursorKind(def) != CXCursor_MacroDefinition)
		return;
	clang_tokenize(w->tu, clang_getCursorExtent(def), &toks, &n);
	/* Token 0 is the macro's own name. */
	for (i = 1; i < n; i++) {
		CXString s;

		if (clang_getTokenKind(toks[i]) != CXToken_Identifier)
			continue;
		s = clang_getTokenSpelling(w->tu, toks[i]);
		if (bit_name(clang_getCString(s))) {
			const char *key = r->key;

			r->key = clang_getCString(s);
			facts_add_row(w->out, r);
			r->key = key;
		}
		clang_disposeString(s);
	}
	clang_disposeTokens(w->tu, toks, n);
}

/*
 * In a function that offers a guest CPU bits (outer.def CPU_OFFER),
 * token @i as the bit it names when it is the one argument of an
 * OFFER_SPELL macro ("F(PDCM)": X86_FEATURE_PDCM, a new string); NULL
 * otherwise.
 */
static char *spelled_bit(const struct tokens *k, size_t i)
{
	const struct arch *a = arch_current();
	size_t j;

	if (i < 2 || i + 1 >= k->n || strcmp(k->s[i - 1], "(") ||
	    strcmp(k->s[i + 1], ")"))
		return NULL;
	for (j = 0; j < a->nr_offer_spells; j++) {
		const struct arch_offer_spell *sp = &a->offer_spells[j];

		if (sp->prefix && !strcmp(k->s[i - 2], sp->macro))
			return xasprintf("%s%s", sp->prefix, k->s[i]);
	}
	return NULL;
}

/*
 * If token @i opens a call of an OFFER_CLEAR function
 * ("kvm_cpu_cap_clear("), the index of its closing parenthesis: the bits
 * between are taken away, not offered; of an OFFER_TEST function
 * ("boot_cpu_has("), the same with *@test set: they are only tested.
 * Else @i.
 */
static size_t clear_call_end(const struct tokens *k, size_t i, bool *test)
{
	const struct arch *a = arch_current();
	size_t j, depth = 0;

	*test = false;
	if (i + 1 >= k->n || strcmp(k->s[i + 1], "("))
		return i;
	for (j = 0; j < a->nr_offer_spells; j++)
		if (!a->offer_spells[j].prefix &&
		    !strcmp(k->s[i], a->offer_spells[j].macro))
			break;
	if (j == a->nr_offer_spells)
		return i;
	*test = a->offer_spells[j].test;
	for (j = i + 1; j < k->n; j++) {
		if (!strcmp(k->s[j], "("))
			depth++;
		else if (!strcmp(k->s[j], ")") && !--depth)
			return j;
	}
	return k->n - 1;
}

/*
 * Is file offset @off in a range of @file the preprocessor skipped (an
 * #if branch not taken)? @sr: clang_getSkippedRanges()'s list, or NULL.
 */
static bool in_skipped(const CXSourceRangeList *sr, unsigned int off)
{
	unsigned int from, to, i;

	for (i = 0; sr && i < sr->count; i++) {
		clang_getSpellingLocation(clang_getRangeStart(sr->ranges[i]),
					  NULL, NULL, NULL, &from);
		clang_getSpellingLocation(clang_getRangeEnd(sr->ranges[i]),
					  NULL, NULL, NULL, &to);
		if (off >= from && off < to)
			return true;
	}
	return false;
}

/*
 * A capability probe or an offer function of the architecture's
 * outer.def: the bit names its body's tokens hold ("FUNC NAME"), an
 * offer function's also those of the macros it expands. Of a
 * function that sets trap bits for a guest (TRAP_SET lines) or offers a
 * guest CPU bits (CPU_OFFER lines), each name also with the guards that
 * hold where it is written (v1) and its place; of the latter, a bit
 * spelled as OFFER_SPELL says, and those an OFFER_CLEAR call takes away
 * flagged, with their column (num); none an OFFER_TEST call tests, none
 * the preprocessor skipped.
 * After the walk: the regions are known.
 */
static void record_outer_bits(struct walk *w, const char *fn)
{
	const struct arch *a = arch_current();
	struct tu_facts *o = w->out;
	struct table_row_in r = { .kind = ROW_BODY_WORD, .table = fn };
	bool want = false, offer = false, setter = false, cpu = false;
	bool tested = false;
	CXSourceRangeList *skipped = NULL;
	CXSourceLocation loc;
	char *guards, *spelled;
	size_t i, clear_end = 0;

	for (i = 0; i < a->nr_outers && !want; i++)
		want = !strcmp(fn, a->outers[i].probe);
	for (i = 0; i < a->nr_outers; i++) {
		if (fnmatch(a->outers[i].offer, fn, 0))
			continue;
		offer = true;
		setter |= a->outers[i].clear;
	}
	for (i = 0; i < a->nr_trap_sets && !setter; i++)
		setter = !fnmatch(a->trap_sets[i].setter, fn, 0);
	for (i = 0; i < a->nr_cpu_offers && !cpu; i++)
		cpu = arch_fn_matches(a->cpu_offers[i].offer, fn);
	setter |= cpu;
	/* What the preprocessor dropped neither offers nor clears. */
	if (cpu && w->ftok.off && w->ftok_file)
		skipped = clang_getSkippedRanges(w->tu, w->ftok_file);
	for (i = 0; (want || offer || setter) && i < w->ftok.n; i++) {
		if (skipped && in_skipped(skipped, w->ftok.off[i]))
			continue;
		/*
		 * A CPU_OFFER function's clear: its bits flagged; its
		 * test: its bits left out.
		 */
		if (cpu && i >= clear_end)
			clear_end = clear_call_end(&w->ftok, i, &tested);
		if (cpu && i < clear_end && tested)
			continue;
		r.flag = cpu && i < clear_end;
		spelled = cpu ? spelled_bit(&w->ftok, i) : NULL;
		if (!spelled && !bit_name(w->ftok.s[i]))
			continue;
		r.key = spelled ? spelled : w->ftok.s[i];
		if (!w->ftok.off || !w->ftok_file) {
			facts_add_row(o, &r);
			free(spelled);
			continue;
		}
		loc = clang_getLocationForOffset(w->tu, w->ftok_file,
						 w->ftok.off[i]);
		guards = setter ? extract_guards_at(w->regions, w->nr_regions,
						    w->ftok.off[i]) : NULL;
		r.v[0] = guards;
		/* num: a CPU_OFFER row's column, for the order of a line. */
		if (setter)
			r.file = extract_loc(w, loc, &r.line,
					     cpu ? &r.num : NULL, NULL, NULL);
		facts_add_row(o, &r);
		if (offer && !spelled) {
			/* v2: the mask the bit comes through. */
			r.v[1] = w->ftok.s[i];
			record_macro_bits(w, loc, &r);
			r.v[1] = NULL;
		}
		free(guards);
		free(spelled);
		r.v[0] = NULL;
	}
	if (skipped)
		clang_disposeSourceRangeList(skipped);
}

/*
 * The macro a call was written as, when it differs from the callee:
 * "arch_wants_old_prefaulted_pte()" for a call of cpu_has_hw_af(). The
 * token at the call's expansion location is what the source spells
 * (libclang 14's clang_getSpellingLocation() does not see through macros,
 * so the spelled token is compared instead).
 */
static char *call_via(struct walk *w, CXSourceLocation loc,
		      const char *callee)
{
	CXFile f;
	unsigned int off;
	CXToken *tok;
	char *via = NULL;

	clang_getExpansionLocation(loc, &f, NULL, NULL, &off);
	if (!f)
		return NULL;
	tok = clang_getToken(w->tu, file_loc(&w->locs, w->tu, f, off));
	if (!tok)
		return NULL;
	if (clang_getTokenKind(*tok) == CXToken_Identifier) {
		CXString s = clang_getTokenSpelling(w->tu, *tok);

		if (strcmp(clang_getCString(s), callee))
			via = xstrdup(clang_getCString(s));
		clang_disposeString(s);
	}
	clang_disposeTokens(w->tu, tok, 1);
	return via;
}

/*
 * What a call's value is tested with when "& MASK" follows it, as
 * written ("(1u<<20)", "BIT(20)", "X86_FEATURE_BIT"), or NULL.
 */
static char *call_mask(struct walk *w, CXCursor call)
{
	unsigned int from, to, i, j;
	int depth = 0;

	static const char *const tighter[] = {
		"<<", ">>", "+", "-", "*", "/", "%", "==", "!=", "<", ">",
		"<=", ">=",
	};
	static const char *const unary[] = { "!", "~", "-", "*", "&", ")" };
	unsigned int k;

	extent_offsets(call, &from, &to);
	/*
	 * "!cpuid_ebx(7) & BIT(20)", "(u8)cpuid_ebx(7) & ...": the value
	 * tested is not the call's.
	 */
	for (i = 0; i < w->ftok.n && w->ftok.off[i] < from; i++)
		;
	for (k = 0; i && k < ARRAY_SIZE(unary); k++)
		if (!strcmp(w->ftok.s[i - 1], unary[k]))
			return NULL;
	for (; i < w->ftok.n && w->ftok.off[i] < to; i++)
		;
	if (i + 1 >= w->ftok.n || strcmp(w->ftok.s[i], "&"))
		return NULL;
	j = ++i;
	if (ident_start(w->ftok.s[j][0]) ||
	    isdigit((unsigned char)w->ftok.s[j][0]))
		j++;
	/* "(...)" alone, or after a name: BIT(20). */
	if (j < w->ftok.n && !strcmp(w->ftok.s[j], "(") &&
	    (j == i || ident_start(w->ftok.s[i][0]))) {
		for (; j < w->ftok.n; j++) {
			if (!strcmp(w->ftok.s[j], "("))
				depth++;
			else if (!strcmp(w->ftok.s[j], ")") && !--depth)
				break;
		}
		if (j == w->ftok.n)
			return NULL;
		j++;
	}
	if (j == i)
		return NULL;
	/* "& 1 << 20" is "& (1 << 20)": not the operand alone. */
	for (k = 0; j < w->ftok.n && k < ARRAY_SIZE(tighter); k++)
		if (!strcmp(w->ftok.s[j], tighter[k]))
			return NULL;
	return guard_join((const char *const *)w->ftok.s + i, j - i);
}

/*
 * Argument @nth (0: the first), as written, of the call or macro whose
 * name starts at file offset @off of the current function: rdmsrl(MSR_STAR,
 * v) expands to native_read_msr((msr)), whose call libclang places at the
 * macro's name. A name or number alone, else NULL.
 */
static char *written_arg(struct walk *w, unsigned int off, unsigned int nth)
{
	unsigned int i;
	int depth = 0;

	for (i = 0; i < w->ftok.n && w->ftok.off[i] < off; i++)
		;
	if (i + 3 >= w->ftok.n || w->ftok.off[i] != off ||
	    strcmp(w->ftok.s[i + 1], "("))
		return NULL;
	/* Past @nth commas at the call's own depth. */
	for (i += 2; nth && i < w->ftok.n; i++) {
		const char *t = w->ftok.s[i];

		if (!strcmp(t, "(") || !strcmp(t, "[") || !strcmp(t, "{"))
			depth++;
		else if (!strcmp(t, ")") || !strcmp(t, "]") ||
			 !strcmp(t, "}")) {
			if (--depth < 0)
				return NULL;
		} else if (!depth && !strcmp(t, ",")) {
			nth--;
		}
	}
	if (i + 1 >= w->ftok.n)
		return NULL;
	if (!ident_start(w->ftok.s[i][0]) &&
	    !isdigit((unsigned char)w->ftok.s[i][0]))
		return NULL;
	if (strcmp(w->ftok.s[i + 1], ",") && strcmp(w->ftok.s[i + 1], ")"))
		return NULL;
	return xstrdup(w->ftok.s[i]);
}

static void record_call(struct walk *w, CXCursor call, CXCursor callee)
{
	struct tu_call *c;
	const char *cfile;
	unsigned int cline;
	bool is_static, here;
	CXSourceLocation loc = clang_getCursorLocation(call);
	CXFile cfile_x;
	int s;

	c = PUSH(w->out->calls, w->out->nr_calls, w->out->alloc_calls);
	c->caller = w->cur_func;
	c->callee_key = extract_func_key(w, callee, &cfile, &cline, &is_static);
	c->callee_name = extract_cursor_name(callee);
	c->callee_file = xstrdup(cfile);
	c->callee_line = cline;
	c->file = xstrdup(extract_loc(w, loc, &c->line, &c->col, NULL,
					NULL));
	c->via = call_via(w, loc, c->callee_name);
	c->guards = macro_guards(w);
	c->loop = 1;
	c->loop_guess = 0;
	c->args = call_args(w, call);
	c->consts = call_consts(w, call);
	record_fn_args(w, call, c->callee_name);
	record_sc_set(w, call, c->callee_name);
	clang_getExpansionLocation(loc, &cfile_x, NULL, NULL, &c->off);

	s = sink_lookup(SINK_CALL, c->callee_name);
	if (s >= 0) {
		struct tu_sink *k = PUSH(w->out->sinks, w->out->nr_sinks,
					 w->out->alloc_sinks);

		memset(k, 0, sizeof(*k));
		k->func = w->cur_func;
		k->sink = s;
		/*
		 * As written: "this_cpu_has_cap(ARM64_HAS_RNG)"; a CPUID
		 * leaf may be a number, "cpuid_ebx(0x7)". An MSR and a mask
		 * come from the function's tokens, which are of its own
		 * file only.
		 */
		here = cfile_x && cfile_x == w->ftok_file;
		if (sink_at(s)->arg == SINK_ARG_WRITTEN)
			k->arg = here ? written_arg(w, c->off, 0) : NULL;
		else if (sink_at(s)->arg == SINK_ARG_WRITTEN_2ND)
			k->arg = here ? written_arg(w, c->off, 1) : NULL;
		else
			k->arg = extract_first_arg(w->tu,
						 clang_getCursorExtent(call),
						 true,
						 sink_at(s)->arg ==
						 SINK_ARG_LEAF);
		k->file = xstrdup(c->file);
		k->line = c->line;
		k->col = c->col;
		k->off = c->off;
		k->guards = macro_guards(w);
		k->loop = 1;
		k->loop_guess = 0;
		if (sink_at(s)->arg == SINK_ARG_LEAF && here)
			k->mask = call_mask(w, call);
	}
}

/*
 * Does the string literal @lit, as spelled, name instruction @insn as a
 * word? An escape ("\n\tcpuid") ends the word before it.
 */
static bool template_has(const char *lit, const char *insn)
{
	size_t n = strlen(insn);
	const char *p;

	for (p = strstr(lit, insn); p; p = strstr(p + 1, insn))
		if ((p == lit || !ident_char(p[-1]) ||
		     (p - lit >= 2 && p[-2] == '\\')) &&
		    !ident_char(p[n]))
			return true;
	return false;
}

/*
 * Does the asm statement of tokens @k have an output operand? Its first
 * ':' at the parenthesis' depth ends the template; an output list
 * follows unless the next token is ':' or ')' (or the first is "::", or
 * there is none: a basic asm).
 */
static bool asm_has_outputs(const struct tokens *k)
{
	unsigned int t;
	int depth = 0;

	for (t = 0; t < k->n; t++) {
		const char *s = k->s[t];

		if (!strcmp(s, "(")) {
			depth++;
		} else if (!strcmp(s, ")")) {
			if (--depth <= 0)
				return false;
		} else if (depth == 1 && !strcmp(s, "::")) {
			return false;
		} else if (depth == 1 && !strcmp(s, ":")) {
			return t + 1 < k->n && strcmp(k->s[t + 1], ":") &&
			       strcmp(k->s[t + 1], "::") &&
			       strcmp(k->s[t + 1], ")");
		}
	}
	return false;
}

/*
 * An inline assembly statement: a sink for each instruction of the
 * table's SINK_ASM entries that its template, as spelled (string
 * literals; not what a macro in it expands to), executes. With no output
 * operand the instruction's results are not read: the sink's arg says
 * "serialize" (CPUID used to serialize, as KVM's software L1D flush
 * does).
 */
static void record_asm(struct walk *w, CXCursor c)
{
	struct tokens k = { 0 };
	unsigned int t;
	size_t i, n = sink_count();

	for (i = 0; i < n && sink_at((int)i)->how != SINK_ASM; i++)
		;
	if (i == n)
		return;		/* the architecture has none: no tokens */
	tokens_get(&k, w->tu, clang_getCursorExtent(c), false);
	for (i = 0; i < n; i++) {
		const struct sink_def *def = sink_at((int)i);
		struct tu_sink *s;
		const char *f;

		if (def->how != SINK_ASM)
			continue;
		for (t = 0; t < k.n; t++)
			if (k.s[t][0] == '"' &&
			    template_has(k.s[t], sink_insn(def)))
				break;
		if (t == k.n)
			continue;
		s = PUSH(w->out->sinks, w->out->nr_sinks, w->out->alloc_sinks);
		memset(s, 0, sizeof(*s));
		f = extract_loc(w, clang_getCursorLocation(c), &s->line,
				  &s->col, NULL, NULL);
		s->func = w->cur_func;
		s->sink = (int)i;
		s->arg = asm_has_outputs(&k) ? NULL : xstrdup("serialize");
		s->file = xstrdup(f);
		clang_getExpansionLocation(clang_getCursorLocation(c), NULL,
					   NULL, NULL, &s->off);
		s->guards = macro_guards(w);
		s->loop = 1;
	}
	tokens_free(&k);
}

static void walk_stmt(struct walk *w, CXCursor c);

static enum CXChildVisitResult walk_kid(CXCursor c, CXCursor p,
					CXClientData d)
{
	(void)p;
	walk_stmt(d, c);
	return CXChildVisit_Continue;
}

/* Does this statement leave the function (then-branch of an early exit)? */
static bool exits(CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	struct kids kids = { .n = 0 };

	if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt)
		return true;
	if (k != CXCursor_CompoundStmt)
		return false;
	clang_visitChildren(c, collect_kid, &kids);
	return kids.n && kids.n <= ARRAY_SIZE(kids.c) &&
	       exits(kids.c[kids.n - 1]);
}

struct compound_walk {
	struct walk *w;
	unsigned int end;	/* end offset of the compound statement */
};

static enum CXChildVisitResult walk_compound_kid(CXCursor c, CXCursor p,
						 CXClientData d)
{
	struct compound_walk *cw = d;
	struct kids k = { .n = 0 };
	unsigned int from, to, nth = 0, off = 0;
	CXFile file = NULL;
	bool is_if = clang_getCursorKind(c) == CXCursor_IfStmt;

	(void)p;
	if (is_if) {
		clang_visitChildren(c, collect_kid, &k);
		if (k.n == 2 && in_macro_body(k.c[0], k.c[1])) {
			off = start_of(k.c[0], &file);
			nth = macro_if_nth(cw->w, off, true);
		}
	}
	walk_stmt(cw->w, c);
	/* "if (cond) return;": the rest of the block runs when !cond. */
	if (is_if && k.n == 2 && exits(k.c[1])) {
		extent_offsets(c, &from, &to);
		if (nth)
			add_atoms_region(cw->w, to, cw->end,
					 macro_if_atoms(cw->w, file, off, nth,
							true));
		else
			add_region(cw->w, to, cw->end, k.c[0], true);
	}
	return CXChildVisit_Continue;
}

/* Walk @body under @atoms (taken; may be NULL): a macro-body branch. */
static void walk_macro_branch(struct walk *w, CXCursor body, char *atoms)
{
	if (atoms)
		*PUSH(w->mguards, w->nr_mguards, w->alloc_mguards) = atoms;
	walk_stmt(w, body);
	if (atoms)
		free(w->mguards[--w->nr_mguards]);
}

/*
 * The atoms of a branch of the @nth `if` of the macro body expanded at
 * @off (true branch, or false: @negated); "<never: ...>" when the
 * condition is the constant that compiles the branch out (@dead).
 */
static char *macro_branch_atoms(struct walk *w, CXFile file,
				unsigned int off, unsigned int nth, bool dead,
				bool negated)
{
	char *a = nth ? macro_if_atoms(w, file, off, nth, negated) : NULL;
	char *never;

	if (!dead)
		return a;
	never = xasprintf("<never: %s>", a ? a : "a constant condition");
	free(a);
	return never;
}

static void walk_stmt_at(struct walk *w, CXCursor c);

static void walk_stmt(struct walk *w, CXCursor c)
{
	if (w->depth >= WALK_DEPTH_MAX) {
		if (!w->too_deep)
			w->too_deep = w->out->funcs[w->cur_func].name;
		return;
	}
	w->depth++;
	walk_stmt_at(w, c);
	w->depth--;
}

/*
 * An if or ?: (@c): its condition, then each branch under it (read from
 * the macro's definition when written in a macro body). False when it
 * is not of that shape: the caller walks its children.
 */
static bool walk_if(struct walk *w, CXCursor c)
{
	struct kids k = { .n = 0 };

	clang_visitChildren(c, collect_kid, &k);
	if (k.n < 2 || k.n > 3)
		return false;
	walk_stmt(w, k.c[0]);
	if (in_macro_body(k.c[0], k.c[1])) {
		/* Only an `if` can be found in the macro's body. */
		bool is_if = clang_getCursorKind(c) == CXCursor_IfStmt;
		CXFile file = NULL;
		unsigned int off = start_of(k.c[0], &file);
		unsigned int nth = is_if ? macro_if_nth(w, off, false) : 0;
		int v = cond_constant(w, k.c[0]);

		walk_macro_branch(w, k.c[1], macro_branch_atoms(w, file, off,
						nth, v == 0, false));
		if (k.n == 3)
			walk_macro_branch(w, k.c[2], macro_branch_atoms(w,
						file, off, nth, v == 1, true));
		return true;
	}
	add_cursor_region(w, k.c[1], k.c[0], false);
	walk_stmt(w, k.c[1]);
	if (k.n == 3) {
		add_cursor_region(w, k.c[2], k.c[0], true);
		walk_stmt(w, k.c[2]);
	}
	return true;
}

/*
 * A binary operator (@c): an assignment is recorded (a function stored
 * in a member), the right of && and || walked under the left. False:
 * the caller walks its children.
 */
static bool walk_binary(struct walk *w, CXCursor c)
{
	struct kids k = { .n = 0 };
	const char *op;

	clang_visitChildren(c, collect_kid, &k);
	if (k.n != 2)
		return false;
	op = binary_op(w, c, k.c[0], k.c[1]);
	if (!strcmp(op, "=")) {
		record_store(w, k.c[0], k.c[1]);
		return false;
	}
	if (strcmp(op, "&&") && strcmp(op, "||"))
		return false;
	/* a && b: b runs when a; a || b: b runs when !a. */
	walk_stmt(w, k.c[0]);
	if (in_macro_body(k.c[0], k.c[1])) {
		/* Inside a macro body: no guard rather than a wrong one. */
		walk_stmt(w, k.c[1]);
		return true;
	}
	add_cursor_region(w, k.c[1], k.c[0], !strcmp(op, "||"));
	walk_stmt(w, k.c[1]);
	return true;
}

static void walk_stmt_at(struct walk *w, CXCursor c)
{
	struct kids k = { .n = 0 };

	switch (clang_getCursorKind(c)) {
	case CXCursor_CallExpr: {
		CXCursor callee = clang_getCursorReferenced(c);
		enum CXCursorKind ck = clang_getCursorKind(callee);

		struct kids fn = { .n = 0 };
		char *sc = NULL;

		if (ck == CXCursor_FunctionDecl) {
			record_call(w, c, callee);
			break;
		}
		/* Through a pointer; through a member: resolved later. */
		w->out->funcs[w->cur_func].indirect_calls = true;
		clang_visitChildren(c, collect_kid, &fn);
		if (fn.n)
			sc = static_call_of(fn.c[0]);
		if (sc)
			record_static_call(w, c, sc);
		else if (ck == CXCursor_FieldDecl)
			record_icall(w, c, callee);
		break;
	}
	case CXCursor_GCCAsmStmt:
		record_asm(w, c);
		break;
	case CXCursor_InitListExpr:
		clang_visitChildren(c, visit_init_list, w);
		return;
	case CXCursor_VarDecl: {
		/*
		 * What its initialiser stores is the variable's members'.
		 * Every variable gets an id; only one whose initialiser
		 * fills members (a struct, or what it points at) uses it.
		 */
		char *outer = w->init_obj;

		w->init_obj = local_object(w, c);
		clang_visitChildren(c, walk_kid, w);
		free(w->init_obj);
		w->init_obj = outer;
		return;
	}
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
		add_loop(w, c);
		break;
	case CXCursor_SwitchStmt:
		clang_visitChildren(c, collect_kid, &k);
		if (k.n == 2)
			add_switch_regions(w, k.c[0], k.c[1]);
		break;
	case CXCursor_IfStmt:
	case CXCursor_ConditionalOperator:
		if (walk_if(w, c))
			return;
		break;
	case CXCursor_BinaryOperator:
		if (walk_binary(w, c))
			return;
		break;
	case CXCursor_CompoundStmt: {
		struct compound_walk cw = { .w = w };
		unsigned int from;

		extent_offsets(c, &from, &cw.end);
		clang_visitChildren(c, walk_compound_kid, &cw);
		return;
	}
	default:
		break;
	}
	clang_visitChildren(c, walk_kid, w);
}

/*
 * The function's extent in expansion locations: when it starts with a
 * macro (arm_neon.h's "__ai", SYSCALL_DEFINE3()), the extent's start is a
 * macro location and clang_tokenize() would start at the macro's
 * definition: every function of arm_neon.h then re-tokenized the file
 * from its top (lib/raid6/neon8.c: 72 s instead of 0.2).
 */
static CXSourceRange expansion_range(struct walk *w, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile sf, ef;
	unsigned int so, eo;

	clang_getExpansionLocation(clang_getRangeStart(r), &sf, NULL, NULL,
				   &so);
	clang_getExpansionLocation(clang_getRangeEnd(r), &ef, NULL, NULL,
				   &eo);
	if (!sf || sf != ef || eo < so)
		return r;
	return clang_getRange(file_loc(&w->locs, w->tu, sf, so),
			      file_loc(&w->locs, w->tu, ef, eo));
}

static const char *const cold_markers[] = {
#define COLD(token) token,
#include "model/cold.def"
};

static bool cold_token(const char *t)
{
	return str_in(t, cold_markers, ARRAY_SIZE(cold_markers));
}

/*
 * A cold marker among the definition's specifiers before its name, or
 * anywhere in its first declaration (the header prototype: "void
 * panic(const char *fmt, ...) __noreturn __cold;").
 */
static bool is_cold(struct walk *w, CXCursor fn, const char *name)
{
	CXCursor decl = clang_getCanonicalCursor(fn);
	CXString ts = clang_getTypeSpelling(clang_getCursorType(fn));
	CXToken *toks = NULL;
	unsigned int i, n = 0;
	bool cold;

	/* Any declaration's noreturn shows in the type: panic(), die(). */
	cold = strstr(clang_getCString(ts), "noreturn") != NULL;
	clang_disposeString(ts);
	if (cold)
		return true;

	for (i = 0; i + 1 < w->ftok.n; i++) {
		if (!strcmp(w->ftok.s[i], name) &&
		    !strcmp(w->ftok.s[i + 1], "("))
			break;
		if (cold_token(w->ftok.s[i]))
			return true;
	}
	if (clang_equalCursors(decl, fn))
		return false;
	clang_tokenize(w->tu, clang_getCursorExtent(decl), &toks, &n);
	for (i = 0; i < n && !cold; i++) {
		CXString s;

		if (clang_getTokenKind(toks[i]) != CXToken_Identifier)
			continue;
		s = clang_getTokenSpelling(w->tu, toks[i]);
		cold = cold_token(clang_getCString(s));
		clang_disposeString(s);
	}
	if (toks)
		clang_disposeTokens(w->tu, toks, n);
	return cold;
}

/* @a && @b, either possibly NULL; takes both. */
static char *join_guards(char *a, char *b)
{
	char *g;

	if (!a || !b)
		return a ? a : b;
	g = xasprintf("%s && %s", a, b);
	free(a);
	free(b);
	return g;
}

/*
 * place_<array>(): the sites the body just walked added to one array of
 * its facts, from @first on, get the guards of the regions around them
 * (before those of the macro bodies they are in) and their loops.
 */
#define DEFINE_PLACE_SITES(array)					\
static void place_##array(struct walk *w, size_t first)		\
{									\
	size_t i;							\
									\
	for (i = first; i < w->out->nr_##array; i++) {			\
		typeof(*w->out->array) *s = &w->out->array[i];		\
									\
		s->guards = join_guards(extract_guards_at(w->regions,	\
							  w->nr_regions, \
							  s->off),	\
					s->guards);			\
		s->loop = extract_loop_at(w->loops, w->nr_loops,	\
					  s->off, &s->loop_guess);	\
	}								\
}
DEFINE_PLACE_SITES(calls)
DEFINE_PLACE_SITES(icalls)
DEFINE_PLACE_SITES(sinks)

/* Walk a body; calls and regions of this function get their guards. */
void extract_body(struct walk *w, CXCursor fn, struct extent *x)
{
	size_t first_call = w->out->nr_calls, first_sink = w->out->nr_sinks;
	size_t first_icall = w->out->nr_icalls;
	CXSourceRange range = expansion_range(w, fn);

	tokens_get(&w->ftok, w->tu, range, true);
	clang_getExpansionLocation(clang_getRangeStart(range), &w->ftok_file,
				   NULL, NULL, NULL);
	w->out->funcs[w->cur_func].cold =
		is_cold(w, fn, w->out->funcs[w->cur_func].name);
	w->regions = NULL;
	w->nr_regions = w->alloc_regions = 0;
	w->loops = NULL;
	w->nr_loops = w->alloc_loops = 0;
	w->cur_fn = fn;
	w->out->funcs[w->cur_func].params = func_params(w, fn);
	clang_visitChildren(fn, walk_kid, w);
	add_mask_regions(w, fn, first_call);
	sort_n(w->regions, w->nr_regions, sizeof(*w->regions), region_order);
	record_outer_bits(w, w->out->funcs[w->cur_func].name);
	/* Offsets place every guard but those inside macro bodies. */
	place_calls(w, first_call);
	place_icalls(w, first_icall);
	place_sinks(w, first_sink);
	/* Kept for the macro sinks, tied to functions after the walk. */
	x->regions = w->regions;
	x->nr_regions = w->nr_regions;
	x->loops = w->loops;
	x->nr_loops = w->nr_loops;
	w->regions = NULL;
	w->loops = NULL;
	tokens_free(&w->ftok);
}
