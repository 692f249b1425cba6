// SPDX-License-Identifier: GPL-2.0
/*
 * extract-ops.c - function pointers in struct members.
 *
 * Functions stored in a member (".member = fn" in an initialiser of an
 * ops table or a notifier block, or "x->member = fn") and calls through a
 * member are recorded for the link to resolve (graph.c, dispatch.c); the
 * arguments of a registration type (checker/model/dispatch.def) are recorded by
 * what they name. The definitions of the kernel tables trapcheck reads
 * (tables.h) are handed to caps.c from here as well.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/dispatch.h"
#include "trapcheck/clang/tables.h"

#include "extract-internal.h"

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
char *local_object(struct walk *w, CXCursor ref)
{
	unsigned int line, col;
	const char *f = expansion_loc(w, clang_getCursorLocation(ref), &line,
				      &col, NULL, NULL);
	char *name = cursor_name(ref), *id;

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
	/* A struct of the body, not a pointer that may point anywhere. */
	if (k == CXCursor_DeclRefExpr &&
	    clang_getCursorKind(ref) == CXCursor_VarDecl &&
	    clang_getCanonicalType(clang_getCursorType(ref)).kind ==
	    CXType_Record)
		return local_object(w, ref);
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
char *call_args(struct walk *w, CXCursor call)
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
	a->member = member;
	a->fn_key = func_key(w, fn, &file, &a->fn_line, &is_static);
	a->fn_name = cursor_name(fn);
	a->fn_file = xstrdup(file);
	a->file = xstrdup(expansion_loc(w, clang_getCursorLocation(site),
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
void record_fn_args(struct walk *w, CXCursor call, const char *callee)
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

/* Designated initialisers ".member = function", at any depth. */
enum CXChildVisitResult visit_init_list(CXCursor c, CXCursor p,
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
			record_assign(w, member_id(field), fn, w->init_obj,
				      c);
		}
	}
	return CXChildVisit_Continue;
}

/* @lhs = @rhs: "ops->member = function" is recorded. */
void record_store(struct walk *w, CXCursor lhs, CXCursor rhs)
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

	if (!ctl_member(member))
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

void record_icall(struct walk *w, CXCursor call, CXCursor field)
{
	struct tu_icall *ic = PUSH(w->out->icalls, w->out->nr_icalls,
				   w->out->alloc_icalls);
	CXSourceLocation loc = clang_getCursorLocation(call);

	ic->caller = w->cur_func;
	ic->member = member_id(field);
	ic->object = icall_object(w, call, ic->member);
	ic->file = xstrdup(expansion_loc(w, loc, &ic->line, &ic->col,
					 &ic->off, NULL));
	ic->guards = macro_guards(w);
	ic->loop = 1;
	ic->loop_guess = 0;
}

static const char *caps_loc_file(void *ctx, CXFile f)
{
	return file_rel(ctx, f);
}

/* A definition of one of the kernel tables trapcheck reads. */
void visit_var(struct walk *w, CXCursor c)
{
	struct tu_facts *o = w->out;
	struct caps_sink sink = {
		&o->caps, &o->nr_caps, &o->alloc_caps,
		&o->ftr_regs, &o->nr_ftr, &o->alloc_ftr,
		&o->ftr_bits, &o->nr_ftr_bits, &o->alloc_ftr_bits,
		&o->msrs, &o->nr_msrs, &o->alloc_msrs,
		caps_loc_file, w,
	};
	char *name;
	int kind;

	/* A copy kept for hyp code: "u64 id_aa64pfr0_el1_sys_val;". */
	if (clang_Cursor_getStorageClass(c) != CX_SC_Extern) {
		name = cursor_name(c);
		if (caps_table_kind(name) == TABLE_HYP_COPY)
			strv_add_once(&o->hyp_copies, &o->nr_hyp_copies,
				      &o->alloc_hyp_copies, name,
				      strlen(name));
		free(name);
	}
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
	if (kind >= 0 && kind != TABLE_HYP_COPY) {
		if (kind == TABLE_FTR_REGS)
			o->have_ftr = true;
		else if (kind == TABLE_CAPS)
			o->have_caps = true;
		caps_extract(w->tu, c, kind, name, &sink);
	}
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
 * A capability probe or an offer function of the architecture's
 * outer.def: the bit names its body's tokens hold ("FUNC NAME").
 */
void record_outer_bits(struct walk *w, const char *fn)
{
	const struct arch *a = arch_current();
	struct tu_facts *o = w->out;
	size_t i;
	bool want = false;

	for (i = 0; i < a->nr_outers && !want; i++)
		want = !strcmp(fn, a->outers[i].probe) ||
		       !fnmatch(a->outers[i].offer, fn, 0);
	for (i = 0; want && i < w->ftok.n; i++) {
		char *e;

		if (!bit_name(w->ftok.s[i]))
			continue;
		e = xasprintf("%s %s", fn, w->ftok.s[i]);
		strv_add_once(&o->outer_bits, &o->nr_outer_bits,
			      &o->alloc_outer_bits, e, strlen(e));
		free(e);
	}
}
