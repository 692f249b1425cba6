// SPDX-License-Identifier: GPL-2.0
/*
 * extract-guards.c - the guarded regions of a function body.
 *
 * A region is a stretch of file offsets that runs only when a condition
 * holds: a branch of an if, a conditional or a logical operator, the rest
 * of a block after an early exit (code between the calls that mask
 * interrupts, disable preemption or take a lock is extract-regions.c's).
 * Conditions are atoms (guards.h); an `if` written in a macro body is
 * read from the macro's definition with this expansion's arguments.
 * Loops and their constant trip counts are regions too.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/guards.h"

#include "extract-internal.h"

/* Tokens of the current function within [from, to). */
void token_span(struct walk *w, unsigned int from, unsigned int to,
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
void add_atoms_region(struct walk *w, unsigned int from,
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
		       cursor_name(d) : NULL;
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
void add_switch_regions(struct walk *w, CXCursor cond, CXCursor body)
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

int cond_constant(struct walk *w, CXCursor cond)
{
	struct bcp b = { w, false };
	int v = fold(cond);

	return v < 0 || bcp_unknown(&b, cond) ? -1 : v;
}

char *never_atom(struct walk *w, CXCursor cond, bool negated)
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
void add_region(struct walk *w, unsigned int from, unsigned int to,
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

void add_cursor_region(struct walk *w, CXCursor body, CXCursor cond,
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

void add_loop(struct walk *w, CXCursor loop)
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
unsigned int loop_at(const struct loop_region *l, size_t nr,
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
unsigned int macro_if_nth(struct walk *w, unsigned int off, bool peek)
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
char *macro_if_atoms(struct walk *w, CXFile file, unsigned int off,
		     unsigned int nth, bool negated)
{
	CXCursor m = clang_getCursor(w->tu, clang_getLocationForOffset(w->tu,
								      file, off));
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
bool in_macro_body(CXCursor cond, CXCursor body)
{
	unsigned int cf, ct, bf, bt;

	extent_offsets(cond, &cf, &ct);
	extent_offsets(body, &bf, &bt);
	return bf <= cf;
}

/* The guards that hold at @off: every region holding it, outer first. */
char *guards_at(const struct region *r, size_t nr, unsigned int off)
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

int region_order(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to < y->to) - (x->to > y->to);
}

/* The conditions of the enclosing macro-body branches, joined. */
char *macro_guards(const struct walk *w)
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
const char *binary_op(struct walk *w, CXCursor op, CXCursor lhs,
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
