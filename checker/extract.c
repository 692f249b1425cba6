// SPDX-License-Identifier: GPL-2.0
/*
 * extract.c - one translation unit through libclang into tu_facts.
 *
 * One walk of the TU cursor: function definitions are recorded and their
 * bodies visited for calls; macro expansions (the detailed preprocessing
 * record lists them beside the declarations) are matched against the
 * sink table and tied to the function whose extent holds them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/diag.h"
#include "trapcheck/extract.h"
#include "trapcheck/guards.h"
#include "trapcheck/sinks.h"
#include "trapcheck/tables.h"

#define PARSE_FLAGS (CXTranslationUnit_DetailedPreprocessingRecord |	\
		     CXTranslationUnit_KeepGoing |			\
		     CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles)

const char *cx_error_name(int code)
{
	switch (code) {
	case CXError_Success:
		return "success";
	case CXError_Failure:
		return "libclang could not build the TU (CXError_Failure: "
		       "usually a rejected compiler flag)";
	case CXError_Crashed:
		return "libclang crashed (CXError_Crashed)";
	case CXError_InvalidArguments:
		return "invalid arguments (CXError_InvalidArguments)";
	case CXError_ASTReadError:
		return "AST read error (CXError_ASTReadError)";
	default:
		return "unknown libclang error";
	}
}

/* CXFile -> relative path, per TU: files repeat on every location. */
struct file_slot {
	CXFile file;
	char *rel;
};

/* A loop of a body and its trip count, when it is a constant. */
struct loop_region {
	unsigned int from, to, factor;
	bool known;		/* factor is the loop's constant bound */
};

/* A stretch of a body that runs only when a condition holds. */
struct region {
	unsigned int from, to;	/* file offsets, [from, to) */
	char *atoms;		/* the condition, normalised (guards.h) */
};

/* The byte range of a function definition within its file. */
struct extent {
	CXFile file;
	unsigned int start, end;
	int func;		/* -1: body skipped (claimed by another TU) */
	struct region *regions;
	size_t nr_regions;
	struct loop_region *loops;
	size_t nr_loops;
};

struct pending_sink {
	CXFile file;
	unsigned int offset, line, col;
	int sink;
	char *arg;
};

struct walk {
	CXTranslationUnit tu;
	const struct extract_opts *opts;
	struct tu_facts *out;

	struct file_slot *files;
	size_t files_mask, files_used;

	struct extent *ext;
	size_t nr_ext, alloc_ext;
	struct pending_sink *pend;
	size_t nr_pend, alloc_pend;

	int cur_func;
	CXCursor cur_fn;	/* its cursor: parameters name arguments */
	/* The ifs of one macro expansion walked so far (macro_if_nth()). */
	unsigned int mif_off, mif_n;
	/* Conditions written inside a macro body, outermost first. */
	char **mguards;
	size_t nr_mguards, alloc_mguards;
	/* The object being initialised (visit_var), or NULL. */
	char *init_obj;

	/* The function being walked: its tokens and guarded regions. */
	char **ftok;
	unsigned int *ftok_off;
	unsigned int nr_ftok;
	struct region *regions;
	size_t nr_regions, alloc_regions;
	struct loop_region *loops;
	size_t nr_loops, alloc_loops;
	unsigned int bound;
	bool bound_found;

	/* Statement nesting: generated code can nest 20,000 deep. */
	unsigned int depth;
	const char *too_deep;	/* the first function cut short */
};

/* Deeper statements and expressions are not walked (noted once). */
#define WALK_DEPTH_MAX	512
/* Longer conditions are not split into atoms (quadratic in chains). */
#define GUARD_TOKENS_MAX	1024

static size_t ptr_hash(const void *p)
{
	return (size_t)hash_mix((uint64_t)(uintptr_t)p, 0);
}

static const char *file_rel(struct walk *w, CXFile f)
{
	size_t i;
	CXString name;
	char *norm;

	if (!f)
		return "<built-in>";
	if (!w->files) {
		w->files_mask = 255;
		w->files = xcalloc(w->files_mask + 1, sizeof(*w->files));
	}
	for (i = ptr_hash(f) & w->files_mask; w->files[i].file;
	     i = (i + 1) & w->files_mask)
		if (w->files[i].file == f)
			return w->files[i].rel;

	name = clang_getFileName(f);
	norm = path_normalize(clang_getCString(name) ?
			      clang_getCString(name) : "<unknown>");
	clang_disposeString(name);
	w->files[i].file = f;
	w->files[i].rel = path_relative(norm, w->opts->root);
	free(norm);
	if (++w->files_used * 2 > w->files_mask) {
		struct file_slot *old = w->files;
		size_t n = w->files_mask + 1, j;
		const char *ret = old[i].rel;

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
		}
		free(old);
		return ret;
	}
	return w->files[i].rel;
}

static const char *expansion_loc(struct walk *w, CXSourceLocation loc,
				 unsigned int *line, unsigned int *col,
				 unsigned int *offset, CXFile *filep)
{
	CXFile f;

	clang_getExpansionLocation(loc, &f, line, col, offset);
	if (filep)
		*filep = f;
	return file_rel(w, f);
}

/* Spelling of the first token of the argument list of a sink. */
static char *first_arg_token(CXTranslationUnit tu, CXSourceRange range,
			     bool skip_name)
{
	CXToken *toks = NULL;
	unsigned int n = 0, i = 0;
	char *arg = NULL;

	clang_tokenize(tu, range, &toks, &n);
	if (skip_name) {
		/* name ( arg ... */
		i = 2;
	}
	if (i < n && clang_getTokenKind(toks[i]) == CXToken_Identifier) {
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
static char *func_key(struct walk *w, CXCursor decl, const char **file,
		      unsigned int *line, bool *is_static)
{
	CXCursor def = clang_getCursorDefinition(decl);
	CXCursor c = clang_Cursor_isNull(def) ?
		     clang_getCanonicalCursor(decl) : def;
	CXString usr = clang_getCursorUSR(c);
	const char *u = clang_getCString(usr);
	char *key;
	unsigned int col;

	*file = expansion_loc(w, clang_getCursorLocation(c), line, &col,
			      NULL, NULL);
	*is_static = clang_getCursorLinkage(c) == CXLinkage_Internal;
	if (*is_static)
		key = xasprintf("%s@%s", u ? u : "", *file);
	else
		key = xstrdup(u ? u : "");
	clang_disposeString(usr);
	return key;
}

static char *cursor_name(CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	char *name = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return name;
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
	unsigned int line, col, off;
	CXToken *tok;
	char *via = NULL;

	clang_getExpansionLocation(loc, &f, &line, &col, &off);
	if (!f)
		return NULL;
	tok = clang_getToken(w->tu, clang_getLocation(w->tu, f, line, col));
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

struct kids {
	CXCursor c[4];
	unsigned int n;
};

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

static char *member_id(CXCursor field);

/* Registration types of checker/dispatch.def. */
static const char *const reg_types[] = {
#define REG_TYPE(s) s,
#define REG_MEMBER(s, m)
#define REG_FN(f, h, b)
#define DISPATCH_FN(f, h)
#include "dispatch.def"
#undef REG_TYPE
#undef REG_MEMBER
#undef REG_FN
#undef DISPATCH_FN
};

/* Is @t a pointer to (or a) struct of a registration type? */
static bool reg_type(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	CXString s;
	bool hit = false;
	size_t i;

	if (c.kind == CXType_Pointer)
		c = clang_getCanonicalType(clang_getPointeeType(c));
	if (c.kind != CXType_Record)
		return false;
	s = clang_getCursorSpelling(clang_getTypeDeclaration(c));
	for (i = 0; i < ARRAY_SIZE(reg_types) && !hit; i++)
		hit = !strcmp(clang_getCString(s), reg_types[i]);
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

/*
 * What an argument or an object names, as a string (NULL: nothing that
 * can be named): "var:NAME[.member...][@FILE]" for a global variable (the
 * file when it is static) or a member of one, "STRUCT.member" for a
 * member of any other object, "$N" for the current function's parameter
 * N.
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
		char *name = cursor_name(ref);

		if (clang_getCursorLinkage(ref) == CXLinkage_Internal) {
			unsigned int line, col;
			const char *f = expansion_loc(w,
				clang_getCursorLocation(ref), &line, &col,
				NULL, NULL);

			id = xasprintf("var:%s@%s", name, f);
		} else {
			id = xasprintf("var:%s", name);
		}
		free(name);
		return id;
	}
	if (k == CXCursor_MemberRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_FieldDecl) {
		struct kids kids = { .n = 0 };
		char *base = NULL, *field = cursor_name(ref);

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

static void record_call(struct walk *w, CXCursor call, CXCursor callee)
{
	struct tu_call *c;
	const char *cfile;
	unsigned int cline;
	bool is_static;
	CXSourceLocation loc = clang_getCursorLocation(call);
	int s;

	c = PUSH(w->out->calls, w->out->nr_calls, w->out->alloc_calls);
	c->caller = w->cur_func;
	c->callee_key = func_key(w, callee, &cfile, &cline, &is_static);
	c->callee_name = cursor_name(callee);
	c->callee_file = xstrdup(cfile);
	c->callee_line = cline;
	c->file = xstrdup(expansion_loc(w, loc, &c->line, &c->col, NULL,
					NULL));
	c->via = call_via(w, loc, c->callee_name);
	c->guards = macro_guards(w);
	c->loop = 1;
	c->loop_guess = 0;
	c->args = call_args(w, call);
	clang_getExpansionLocation(loc, NULL, NULL, NULL, &c->off);

	s = sink_lookup(SINK_CALL, c->callee_name);
	if (s >= 0) {
		struct tu_sink *k = PUSH(w->out->sinks, w->out->nr_sinks,
					 w->out->alloc_sinks);

		k->func = w->cur_func;
		k->sink = s;
		/* As written: "this_cpu_has_cap(ARM64_HAS_RNG)". */
		k->arg = first_arg_token(w->tu, clang_getCursorExtent(call),
					 true);
		k->file = xstrdup(c->file);
		k->line = c->line;
		k->col = c->col;
		k->off = c->off;
		k->guards = macro_guards(w);
		k->loop = 1;
		k->loop_guess = 0;
	}
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

/* Tokens of the current function within [from, to). */
static void token_span(struct walk *w, unsigned int from, unsigned int to,
		       unsigned int *first, unsigned int *end)
{
	unsigned int i = 0, j;

	while (i < w->nr_ftok && w->ftok_off[i] < from)
		i++;
	j = i;
	while (j < w->nr_ftok && w->ftok_off[j] < to)
		j++;
	/* A macro call ends the range at its name: take its arguments. */
	if (j > i && j < w->nr_ftok && !strcmp(w->ftok[j], "(")) {
		int depth = 0;

		for (; j < w->nr_ftok; j++) {
			if (!strcmp(w->ftok[j], "("))
				depth++;
			else if (!strcmp(w->ftok[j], ")") && !--depth)
				break;
		}
		if (j < w->nr_ftok)
			j++;
	}
	*first = i;
	*end = j;
}

/* @body runs only when @cond is true (or false, @negated). */
static void add_region(struct walk *w, unsigned int from, unsigned int to,
		       CXCursor cond, bool negated)
{
	unsigned int cf, ct, i, j;
	struct region *r;
	char *atoms = NULL;

	extent_offsets(cond, &cf, &ct);
	token_span(w, cf, ct, &i, &j);
	if (j > i + GUARD_TOKENS_MAX) {
		/* Generated code: a condition is known to be there, no more. */
		atoms = xasprintf("<a condition of %u tokens>", j - i);
	} else if (j <= i ||
		   !guard_atoms((const char *const *)w->ftok + i, j - i,
				negated, &atoms) || !atoms) {
		return;
	}
	r = PUSH(w->regions, w->nr_regions, w->alloc_regions);
	r->from = from;
	r->to = to;
	r->atoms = atoms;
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

static void add_cursor_region(struct walk *w, CXCursor body, CXCursor cond,
			      bool negated)
{
	unsigned int from, to;

	extent_offsets(body, &from, &to);
	add_region(w, from, to, cond, negated);
}

static const char *binary_op(struct walk *w, CXCursor op, CXCursor lhs,
			     CXCursor rhs);
static bool in_macro_body(CXCursor cond, CXCursor body);
static unsigned int start_of(CXCursor c, CXFile *file);
static unsigned int macro_if_nth(struct walk *w, unsigned int off, bool peek);
static char *macro_if_atoms(struct walk *w, CXFile file, unsigned int off,
			    unsigned int nth, bool negated);

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

static void record_assign(struct walk *w, CXCursor field, CXCursor fn,
			  const char *object)
{
	struct tu_assign *a = PUSH(w->out->assigns, w->out->nr_assigns,
				   w->out->alloc_assigns);
	const char *file;
	bool is_static;

	a->object = object ? xstrdup(object) : NULL;
	a->member = member_id(field);
	a->fn_key = func_key(w, fn, &file, &a->fn_line, &is_static);
	a->fn_name = cursor_name(fn);
	a->fn_file = xstrdup(file);
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
			char *outer = w->init_obj, *name = cursor_name(field);
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
			record_assign(w, field, fn, w->init_obj);
		}
	}
	return CXChildVisit_Continue;
}

static void record_icall(struct walk *w, CXCursor call, CXCursor field)
{
	struct tu_icall *ic = PUSH(w->out->icalls, w->out->nr_icalls,
				   w->out->alloc_icalls);
	CXSourceLocation loc = clang_getCursorLocation(call);

	ic->caller = w->cur_func;
	ic->member = member_id(field);
	ic->file = xstrdup(expansion_loc(w, loc, &ic->line, &ic->col,
					 &ic->off, NULL));
	ic->guards = macro_guards(w);
	ic->loop = 1;
	ic->loop_guess = 0;
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
static unsigned int loop_at(const struct loop_region *l, size_t nr,
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

static void walk_stmt(struct walk *w, CXCursor c);

static enum CXChildVisitResult walk_kid(CXCursor c, CXCursor p,
					CXClientData d)
{
	(void)p;
	walk_stmt(d, c);
	return CXChildVisit_Continue;
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
	for (i = 0; i < w->nr_ftok; i++)
		if (w->ftok_off[i] >= lt && w->ftok_off[i] < rf)
			return w->ftok[i];
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

static void walk_stmt_at(struct walk *w, CXCursor c);

/* Spellings of the tokens of @r, a new array of new strings. */
static char **range_tokens(CXTranslationUnit tu, CXSourceRange r,
			   unsigned int *n)
{
	CXToken *toks = NULL;
	char **v;
	unsigned int i;

	clang_tokenize(tu, r, &toks, n);
	v = xcalloc(*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++) {
		CXString s = clang_getTokenSpelling(tu, toks[i]);

		v[i] = xstrdup(clang_getCString(s));
		clang_disposeString(s);
	}
	if (toks)
		clang_disposeTokens(tu, toks, *n);
	return v;
}

static void free_tokens(char **v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
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
	CXCursor m = clang_getCursor(w->tu, clang_getLocationForOffset(w->tu,
								      file, off));
	CXCursor def;
	char **d, **x, **cond = NULL, *atoms = NULL;
	unsigned int nd, nx, i, body = 1, seen = 0;
	unsigned int params[32], nparams = 0, args[33], nargs = 0;
	size_t nc = 0, alloc = 0;

	if (clang_getCursorKind(m) != CXCursor_MacroExpansion)
		return NULL;
	def = clang_getCursorReferenced(m);
	if (clang_getCursorKind(def) != CXCursor_MacroDefinition)
		return NULL;
	d = range_tokens(w->tu, clang_getCursorExtent(def), &nd);
	x = range_tokens(w->tu, clang_getCursorExtent(m), &nx);
	if (clang_Cursor_isMacroFunctionLike(def) && nd > 1) {
		for (i = 2; i < nd && strcmp(d[i], ")"); i++)
			if (strcmp(d[i], ",") && nparams < 32)
				params[nparams++] = i;
		body = i + 1;
		/* The arguments: x[args[k] + 1 .. args[k + 1]) */
		if (nx > 1 && !strcmp(x[1], "(")) {
			int depth = 0;

			args[nargs++] = 1;
			for (i = 2; i + 1 < nx && nargs < 33; i++) {
				if (!strcmp(x[i], "(") || !strcmp(x[i], "["))
					depth++;
				else if (!strcmp(x[i], ")") ||
					 !strcmp(x[i], "]"))
					depth--;
				else if (!depth && !strcmp(x[i], ","))
					args[nargs++] = i;
			}
			args[nargs] = nx - 1;
		}
	}
	for (i = body; i + 1 < nd; i++) {
		unsigned int end, j, p, a;

		if (strcmp(d[i], "if") || strcmp(d[i + 1], "(") ||
		    ++seen != nth)
			continue;
		end = close_of(d, nd, i + 1);
		for (j = i + 2; j < end; j++) {
			for (p = 0; p < nparams && strcmp(d[j], d[params[p]]);
			     p++)
				;
			if (p == nparams || p >= nargs) {
				*PUSH(cond, nc, alloc) = d[j];
				continue;
			}
			for (a = args[p] + 1; a < args[p + 1]; a++)
				*PUSH(cond, nc, alloc) = x[a];
		}
		break;
	}
	if (nc > GUARD_TOKENS_MAX)
		atoms = xasprintf("<a condition of %zu tokens>", nc);
	else if (nc)
		guard_atoms((const char *const *)cond, nc, negated, &atoms);
	free(cond);
	free_tokens(d, nd);
	free_tokens(x, nx);
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

/* Walk @body under @atoms (taken; may be NULL): a macro-body branch. */
static void walk_macro_branch(struct walk *w, CXCursor body, char *atoms)
{
	if (atoms)
		*PUSH(w->mguards, w->nr_mguards, w->alloc_mguards) = atoms;
	walk_stmt(w, body);
	if (atoms)
		free(w->mguards[--w->nr_mguards]);
}

/* The file and expansion offset where @c starts. */
static unsigned int start_of(CXCursor c, CXFile *file)
{
	unsigned int off;

	clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)),
				   file, NULL, NULL, &off);
	return off;
}

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

static void walk_stmt_at(struct walk *w, CXCursor c)
{
	struct kids k = { .n = 0 };
	const char *op;

	switch (clang_getCursorKind(c)) {
	case CXCursor_CallExpr: {
		CXCursor callee = clang_getCursorReferenced(c);
		enum CXCursorKind ck = clang_getCursorKind(callee);

		if (ck == CXCursor_FunctionDecl) {
			record_call(w, c, callee);
		} else {
			/* Through a pointer; through a member: resolved later. */
			w->out->funcs[w->cur_func].indirect_calls = true;
			if (ck == CXCursor_FieldDecl)
				record_icall(w, c, callee);
		}
		break;
	}
	case CXCursor_InitListExpr:
		clang_visitChildren(c, visit_init_list, w);
		return;
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
		add_loop(w, c);
		break;
	case CXCursor_IfStmt:
	case CXCursor_ConditionalOperator:
		clang_visitChildren(c, collect_kid, &k);
		if (k.n < 2 || k.n > 3)
			break;
		walk_stmt(w, k.c[0]);
		if (in_macro_body(k.c[0], k.c[1])) {
			/* Only an `if` can be found in the macro's body. */
			bool is_if = clang_getCursorKind(c) == CXCursor_IfStmt;
			CXFile file = NULL;
			unsigned int off = start_of(k.c[0], &file);
			unsigned int nth = is_if ? macro_if_nth(w, off, false) :
					   0;

			walk_macro_branch(w, k.c[1], nth ?
				macro_if_atoms(w, file, off, nth, false) : NULL);
			if (k.n == 3)
				walk_macro_branch(w, k.c[2], nth ?
					macro_if_atoms(w, file, off, nth, true) :
					NULL);
			return;
		}
		add_cursor_region(w, k.c[1], k.c[0], false);
		walk_stmt(w, k.c[1]);
		if (k.n == 3) {
			add_cursor_region(w, k.c[2], k.c[0], true);
			walk_stmt(w, k.c[2]);
		}
		return;
	case CXCursor_BinaryOperator:
		clang_visitChildren(c, collect_kid, &k);
		if (k.n != 2)
			break;
		op = binary_op(w, c, k.c[0], k.c[1]);
		if (!strcmp(op, "=")) {
			/* ops->member = function */
			CXCursor field = clang_getCursorReferenced(k.c[0]), fn;

			if (clang_getCursorKind(k.c[0]) ==
			    CXCursor_MemberRefExpr &&
			    clang_getCursorKind(field) == CXCursor_FieldDecl &&
			    function_value(k.c[1], &fn)) {
				struct kids base = { .n = 0 };
				char *obj = NULL;

				/* x.nb.notifier_call = f: the object x.nb */
				clang_visitChildren(k.c[0], collect_kid,
						    &base);
				if (base.n == 1)
					obj = object_id(w, base.c[0]);
				record_assign(w, field, fn, obj);
				free(obj);
			}
			break;
		}
		if (strcmp(op, "&&") && strcmp(op, "||"))
			break;
		/* a && b: b runs when a; a || b: b runs when !a. */
		walk_stmt(w, k.c[0]);
		if (in_macro_body(k.c[0], k.c[1])) {
			/* Inside a macro body: no guard rather than a wrong one. */
			walk_stmt(w, k.c[1]);
			return;
		}
		add_cursor_region(w, k.c[1], k.c[0], !strcmp(op, "||"));
		walk_stmt(w, k.c[1]);
		return;
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

/* The guards that hold at @off: every region holding it, outer first. */
static char *guards_at(const struct region *r, size_t nr, unsigned int off)
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

/*
 * The function's extent in expansion locations: when it starts with a
 * macro (arm_neon.h's "__ai", SYSCALL_DEFINE3()), the extent's start is a
 * macro location and clang_tokenize() would start at the macro's
 * definition: every function of arm_neon.h then re-tokenized the file
 * from its top (lib/raid6/neon8.c: 72 s instead of 0.2).
 */
static CXSourceRange expansion_range(CXTranslationUnit tu, CXCursor c)
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
	return clang_getRange(clang_getLocationForOffset(tu, sf, so),
			      clang_getLocationForOffset(tu, ef, eo));
}

static void function_tokens(struct walk *w, CXCursor fn)
{
	CXToken *toks = NULL;
	unsigned int n = 0, i;

	clang_tokenize(w->tu, expansion_range(w->tu, fn), &toks, &n);
	w->ftok = xcalloc(n + 1, sizeof(*w->ftok));
	w->ftok_off = xcalloc(n + 1, sizeof(*w->ftok_off));
	w->nr_ftok = n;
	for (i = 0; i < n; i++) {
		CXString s = clang_getTokenSpelling(w->tu, toks[i]);

		w->ftok[i] = xstrdup(clang_getCString(s));
		clang_disposeString(s);
		w->ftok_off[i] = offset_of(clang_getTokenLocation(w->tu,
								  toks[i]));
	}
	if (toks)
		clang_disposeTokens(w->tu, toks, n);
}

static void free_function_tokens(struct walk *w)
{
	unsigned int i;

	for (i = 0; i < w->nr_ftok; i++)
		free(w->ftok[i]);
	free(w->ftok);
	free(w->ftok_off);
	w->ftok = NULL;
	w->ftok_off = NULL;
	w->nr_ftok = 0;
}

static const char *const cold_markers[] = {
#define COLD(token) token,
#define COLD_FN(name)
#include "cold.def"
#undef COLD
#undef COLD_FN
};

static bool cold_token(const char *t)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(cold_markers); k++)
		if (!strcmp(t, cold_markers[k]))
			return true;
	return false;
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

	for (i = 0; i + 1 < w->nr_ftok; i++) {
		if (!strcmp(w->ftok[i], name) && !strcmp(w->ftok[i + 1], "("))
			break;
		if (cold_token(w->ftok[i]))
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

/* Opening and closing calls of regions (checker/regions.def). */
enum region_kind { REGION_IRQ, REGION_PREEMPT, REGION_LOCK, REGION_KINDS };

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
#include "regions.def"
#undef REGION
#undef IRQ
#undef PREEMPT
#undef LOCK
#undef OPEN
#undef CLOSE
};

/* The atom each kind adds to the guards (checker/phases.def). */
static const char *const region_atom[REGION_KINDS] = {
	"<irqs masked>", "<preemption disabled>", "<spinlock held>",
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
	struct region *r = PUSH(w->regions, w->nr_regions, w->alloc_regions);

	r->from = from;
	r->to = to > from ? to : from + 1;
	r->atoms = xstrdup(region_atom[kind]);
}

static int off_order(const void *a, const void *b, void *calls)
{
	const struct tu_call *c = calls;
	unsigned int x = c[*(const size_t *)a].off;
	unsigned int y = c[*(const size_t *)b].off;

	return (x > y) - (x < y);
}

/*
 * The regions where this function cannot be preempted, in source order
 * (checker/regions.def): from an opening call to its closing one; from
 * the body's start to a close that nothing opened (entered so); from an
 * open nothing closed to the body's end.
 */
static void add_mask_regions(struct walk *w, CXCursor fn, size_t first)
{
	size_t n = w->out->nr_calls - first, i, *idx;
	unsigned int from, to, open_at[REGION_KINDS];
	unsigned int depth[REGION_KINDS] = { 0 };
	int k;

	if (!n)
		return;
	extent_offsets(fn, &from, &to);
	idx = xmalloc(n * sizeof(*idx));
	for (i = 0; i < n; i++)
		idx[i] = first + i;
	sort_r(idx, n, sizeof(*idx), off_order, w->out->calls);
	for (i = 0; i < n; i++) {
		const struct tu_call *c = &w->out->calls[idx[i]];
		bool open;

		k = region_call(c, &open);
		if (k < 0)
			continue;
		if (open) {
			if (!depth[k]++)
				open_at[k] = c->off;
		} else if (depth[k]) {
			if (!--depth[k])
				push_region(w, open_at[k], c->off, k);
		} else {
			push_region(w, from, c->off, k);
		}
	}
	for (k = 0; k < REGION_KINDS; k++)
		if (depth[k])
			push_region(w, open_at[k], to, k);
	free(idx);
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

/* Walk a body; calls and regions of this function get their guards. */
static void walk_body(struct walk *w, CXCursor fn, struct extent *x)
{
	size_t first_call = w->out->nr_calls, first_sink = w->out->nr_sinks;
	size_t i;

	size_t first_icall = w->out->nr_icalls;

	function_tokens(w, fn);
	w->out->funcs[w->cur_func].cold =
		is_cold(w, fn, w->out->funcs[w->cur_func].name);
	w->regions = NULL;
	w->nr_regions = w->alloc_regions = 0;
	w->loops = NULL;
	w->nr_loops = w->alloc_loops = 0;
	w->cur_fn = fn;
	clang_visitChildren(fn, walk_kid, w);
	add_mask_regions(w, fn, first_call);
	sort_n(w->regions, w->nr_regions, sizeof(*w->regions), region_order);
	/* Offsets place every guard but those inside macro bodies. */
	for (i = first_call; i < w->out->nr_calls; i++) {
		struct tu_call *c = &w->out->calls[i];

		c->guards = join_guards(guards_at(w->regions, w->nr_regions,
						  c->off), c->guards);
		c->loop = loop_at(w->loops, w->nr_loops, c->off,
				  &c->loop_guess);
	}
	for (i = first_icall; i < w->out->nr_icalls; i++) {
		struct tu_icall *c = &w->out->icalls[i];

		c->guards = join_guards(guards_at(w->regions, w->nr_regions,
						  c->off), c->guards);
		c->loop = loop_at(w->loops, w->nr_loops, c->off,
				  &c->loop_guess);
	}
	for (i = first_sink; i < w->out->nr_sinks; i++) {
		struct tu_sink *k = &w->out->sinks[i];

		k->guards = join_guards(guards_at(w->regions, w->nr_regions,
						  k->off), k->guards);
		k->loop = loop_at(w->loops, w->nr_loops, k->off,
				  &k->loop_guess);
	}
	/* Kept for the macro sinks, tied to functions after the walk. */
	x->regions = w->regions;
	x->nr_regions = w->nr_regions;
	x->loops = w->loops;
	x->nr_loops = w->nr_loops;
	w->regions = NULL;
	w->loops = NULL;
	free_function_tokens(w);
}

static void visit_function(struct walk *w, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile sf, ef;
	unsigned int sl, sc, so, el, ec, eo;
	struct extent *x;
	struct tu_func fn;
	const char *file;
	bool mine;

	fn.key = func_key(w, c, &file, &fn.line, &fn.is_static);
	fn.indirect_calls = false;
	fn.cold = false;
	clang_getExpansionLocation(clang_getRangeStart(r), &sf, &sl, &sc, &so);
	clang_getExpansionLocation(clang_getRangeEnd(r), &ef, &el, &ec, &eo);
	(void)expansion_loc(w, clang_getCursorLocation(c), &fn.line, &fn.col,
			    NULL, NULL);

	mine = !w->opts->claims ||
	       clang_Location_isFromMainFile(clang_getCursorLocation(c)) ||
	       claims_take(w->opts->claims, fn.key, w->opts->owner);
	x = PUSH(w->ext, w->nr_ext, w->alloc_ext);
	x->file = sf;
	x->start = so;
	x->end = sf == ef ? eo : so;
	x->func = -1;
	x->regions = NULL;
	x->nr_regions = 0;
	x->loops = NULL;
	x->nr_loops = 0;
	if (!mine) {
		free(fn.key);
		return;
	}
	fn.name = cursor_name(c);
	fn.file = xstrdup(file);
	x->func = (int)w->out->nr_funcs;
	*PUSH(w->out->funcs, w->out->nr_funcs, w->out->alloc_funcs) = fn;
	w->cur_func = x->func;
	walk_body(w, c, x);
	w->cur_func = -1;
}

static void visit_macro(struct walk *w, CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	const char *name = clang_getCString(s);
	struct pending_sink *p;
	int k = -1;

	/* Cheap first-letter filter: every macro sink starts with 'r'. */
	if (name && name[0] == 'r')
		k = sink_lookup(SINK_MACRO, name);
	clang_disposeString(s);
	if (k < 0)
		return;
	p = PUSH(w->pend, w->nr_pend, w->alloc_pend);
	clang_getExpansionLocation(clang_getCursorLocation(c), &p->file,
				   &p->line, &p->col, &p->offset);
	p->sink = k;
	p->arg = first_arg_token(w->tu, clang_getCursorExtent(c), true);
}

static const char *caps_loc_file(void *ctx, CXFile f)
{
	return file_rel(ctx, f);
}

/* A definition of one of the kernel tables trapcheck reads. */
static void visit_var(struct walk *w, CXCursor c)
{
	struct tu_facts *o = w->out;
	struct caps_sink sink = {
		&o->caps, &o->nr_caps, &o->alloc_caps,
		&o->ftr_regs, &o->nr_ftr, &o->alloc_ftr,
		caps_loc_file, w,
	};
	char *name;
	int kind;

	if (!clang_isCursorDefinition(c))
		return;
	name = cursor_name(c);
	/* Function pointers in initialisers: ops tables, notifier blocks. */
	if (clang_getCursorKind(clang_getCursorSemanticParent(c)) ==
	    CXCursor_TranslationUnit) {
		unsigned int line, col;
		const char *f = expansion_loc(w, clang_getCursorLocation(c),
					      &line, &col, NULL, NULL);

		w->init_obj = clang_getCursorLinkage(c) == CXLinkage_Internal ?
			      xasprintf("var:%s@%s", name, f) :
			      xasprintf("var:%s", name);
	}
	clang_visitChildren(c, visit_init_list, w);
	free(w->init_obj);
	w->init_obj = NULL;
	kind = caps_table_kind(name);
	if (kind >= 0) {
		if (kind == TABLE_FTR_REGS)
			o->have_ftr = true;
		else
			o->have_caps = true;
		caps_extract(w->tu, c, kind, name, &sink);
	}
	free(name);
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent,
					 CXClientData data)
{
	struct walk *w = data;

	(void)parent;
	switch (clang_getCursorKind(c)) {
	case CXCursor_VarDecl:
		visit_var(w, c);
		break;
	case CXCursor_MacroExpansion:
		visit_macro(w, c);
		break;
	case CXCursor_FunctionDecl:
		if (clang_isCursorDefinition(c))
			visit_function(w, c);
		break;
	default:
		break;
	}
	return CXChildVisit_Continue;
}

/* Tie each macro sink to the function whose body holds it. */
static void resolve_pending(struct walk *w)
{
	size_t i, j;

	for (i = 0; i < w->nr_pend; i++) {
		struct pending_sink *p = &w->pend[i];
		const struct sink_def *def = &sink_table[p->sink];
		struct extent *in = NULL;
		int func = -2;

		for (j = 0; j < w->nr_ext; j++) {
			struct extent *x = &w->ext[j];

			if (x->file == p->file && x->start <= p->offset &&
			    p->offset < x->end) {
				func = x->func;
				in = x;
				break;
			}
		}
		/*
		 * Outside any function (a macro definition body, a global
		 * initialiser), in a body another TU extracted, or not a
		 * register the table knows: nothing to record.
		 */
		if (func >= 0 && reg_lookup_arg(def, p->arg)) {
			struct tu_sink *k = PUSH(w->out->sinks,
						 w->out->nr_sinks,
						 w->out->alloc_sinks);

			k->func = func;
			k->sink = p->sink;
			k->arg = p->arg;
			p->arg = NULL;
			k->file = xstrdup(file_rel(w, p->file));
			k->line = p->line;
			k->col = p->col;
			k->off = p->offset;
			k->guards = guards_at(in->regions, in->nr_regions,
					      p->offset);
			k->loop = loop_at(in->loops, in->nr_loops, p->offset,
					  &k->loop_guess);
		}
		free(p->arg);
	}
}

static void count_diagnostics(struct walk *w, struct clang_args *args,
			      bool *rejected_flag)
{
	unsigned int i, n = clang_getNumDiagnostics(w->tu);

	*rejected_flag = false;
	for (i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(w->tu, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		CXString msg;
		const char *m;

		if (sev < CXDiagnostic_Error) {
			clang_disposeDiagnostic(d);
			continue;
		}
		msg = clang_getDiagnosticSpelling(d);
		m = clang_getCString(msg);
		if (args->nr_unknown && m &&
		    (!strncmp(m, "unknown argument", 16) ||
		     !strncmp(m, "unsupported option", 18)))
			*rejected_flag = true;
		w->out->nr_errors++;
		if (!w->out->first_error) {
			unsigned int line, col;
			const char *f = expansion_loc(w,
				clang_getDiagnosticLocation(d), &line, &col,
				NULL, NULL);

			w->out->first_error = line ?
				xasprintf("%s:%u:%u: %s", f, line, col, m) :
				xasprintf("%s", m);
		}
		clang_disposeString(msg);
		clang_disposeDiagnostic(d);
	}
}

static void collect_include(CXFile included, CXSourceLocation *stack,
			    unsigned int depth, CXClientData data)
{
	struct walk *w = data;

	(void)stack;
	if (!depth)
		return;		/* the main file itself */
	*PUSH(w->out->includes, w->out->nr_includes, w->out->alloc_includes) =
		xstrdup(file_rel(w, included));
}

static void warn_unknown(const struct extract_opts *opts,
			 const struct clang_args *args, const char *tu,
			 const char *what, struct tu_facts *out)
{
	int i;

	for (i = 0; i < args->nr_unknown; i++) {
		struct tu_warning *w;

		if (opts->defer_warnings) {
			w = PUSH(out->warnings, out->nr_warnings,
				 out->alloc_warnings);
			w->flag = xstrdup(args->unknown[i]);
			w->text = xasprintf("%s: warning: unknown compiler "
					    "flag '%s' %s", tu,
					    args->unknown[i], what);
		} else if (opts->warnings &&
			   flag_warn_once(opts->warnings, args->unknown[i])) {
			diag_at(tu, "warning", "unknown compiler flag '%s' "
				"%s", args->unknown[i], what);
		}
	}
}

/*
 * The test hook of extract_opts.fault: to show that one TU's crash or
 * hang costs that TU only.
 */
static void inject_fault(const char *spec, const char *file)
{
	const char *part = spec ? strchr(spec, ':') : NULL;

	if (!part || !part[1] || !strstr(file, part + 1))
		return;
	if (!strncmp(spec, "segv:", 5)) {
		signal(SIGSEGV, SIG_DFL);	/* not ASan's handler */
		raise(SIGSEGV);
	}
	if (!strncmp(spec, "abort:", 6))
		abort();
	if (!strncmp(spec, "hang:", 5))
		for (;;)
			pause();
}

int extract_tu(CXIndex idx, const char *file, struct clang_args *args,
	       const struct extract_opts *opts, struct tu_facts *out)
{
	struct walk w = { .opts = opts, .out = out, .cur_func = -1 };
	enum CXErrorCode err;
	bool rejected;
	size_t i;
	char *rel = path_relative(file, opts->root);

	memset(out, 0, sizeof(*out));
	out->file = rel;
	inject_fault(opts->fault, file);

	err = clang_parseTranslationUnit2(idx, file,
					  (const char *const *)args->argv,
					  args->argc, opts->unsaved,
					  opts->nr_unsaved, PARSE_FLAGS,
					  &w.tu);
	if (err == CXError_Success)
		count_diagnostics(&w, args, &rejected);
	else
		rejected = args->nr_unknown > 0;
	if (rejected) {
		/* Drop what clang would not take and parse once more. */
		warn_unknown(opts, args, rel, "(rejected by clang: dropped)",
			     out);
		flags_drop_unknown(args);
		if (w.tu)
			clang_disposeTranslationUnit(w.tu);
		w.tu = NULL;
		free(out->first_error);
		out->first_error = NULL;
		out->nr_errors = 0;
		out->retried = true;
		for (i = 0; i <= w.files_mask && w.files; i++)
			free(w.files[i].rel);
		free(w.files);
		w.files = NULL;
		w.files_used = 0;
		err = clang_parseTranslationUnit2(idx, file,
				(const char *const *)args->argv, args->argc,
				opts->unsaved, opts->nr_unsaved, PARSE_FLAGS,
				&w.tu);
		if (err == CXError_Success)
			count_diagnostics(&w, args, &rejected);
	} else {
		warn_unknown(opts, args, rel, "(passed to clang)", out);
	}
	if (err != CXError_Success) {
		out->parse_error = err;
		out->first_error = xstrdup(cx_error_name(err));
		goto out_free_walk;
	}

	clang_getInclusions(w.tu, collect_include, &w);
	clang_visitChildren(clang_getTranslationUnitCursor(w.tu), top_visit,
			    &w);
	resolve_pending(&w);
	clang_disposeTranslationUnit(w.tu);
	if (w.too_deep) {
		char *text = xasprintf("%s: warning: statements nested deeper "
				       "than %d levels in %s(): the deeper "
				       "ones not walked", rel, WALK_DEPTH_MAX,
				       w.too_deep);

		if (opts->defer_warnings) {
			struct tu_warning *tw = PUSH(out->warnings,
						     out->nr_warnings,
						     out->alloc_warnings);

			tw->flag = xstrdup(text);	/* once per TU */
			tw->text = text;
		} else {
			diag_line(text);
			free(text);
		}
	}

out_free_walk:
	for (i = 0; i < w.nr_ext; i++) {
		size_t j;

		for (j = 0; j < w.ext[i].nr_regions; j++)
			free(w.ext[i].regions[j].atoms);
		free(w.ext[i].regions);
		free(w.ext[i].loops);
	}
	for (i = 0; w.files && i <= w.files_mask; i++)
		free(w.files[i].rel);
	free(w.files);
	free(w.ext);
	free(w.pend);
	free(w.mguards);
	return err == CXError_Success ? 0 : -EIO;
}
