// SPDX-License-Identifier: GPL-2.0
/*
 * extract-stmt.c - the statement walk of one function body.
 *
 * Calls are recorded where the walk meets them (direct calls and the
 * sinks among them; calls through members go to extract-ops.c); branches
 * and early exits open guarded regions and loops are noted
 * (extract-guards.c); when the body is done, every site of it gets the
 * guards and loop counts of the regions around it. Whether the function
 * is cold is read from its tokens here too.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/guards.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/clang/tokens.h"
#include "trapcheck/base/util.h"

#include "extract-internal.h"

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
	c->consts = call_consts(w, call);
	record_fn_args(w, call, c->callee_name);
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
		if (sink_at(s)->arg == SINK_ARG_MSR)
			k->arg = here ? written_arg(w, c->off, 0) : NULL;
		else if (sink_at(s)->arg == SINK_ARG_MSR_2ND)
			k->arg = here ? written_arg(w, c->off, 1) : NULL;
		else
			k->arg = first_arg_token(w->tu,
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

/* Does the string literal @lit name instruction @insn as a word? */
static bool template_has(const char *lit, const char *insn)
{
	size_t n = strlen(insn);
	const char *p;

	for (p = strstr(lit, insn); p; p = strstr(p + 1, insn))
		if ((p == lit || !ident_char(p[-1])) && !ident_char(p[n]))
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
		f = expansion_loc(w, clang_getCursorLocation(c), &s->line,
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
		s->guards = join_guards(guards_at(w->regions,		\
						  w->nr_regions, s->off), \
					s->guards);			\
		s->loop = loop_at(w->loops, w->nr_loops, s->off,	\
				  &s->loop_guess);			\
	}								\
}
DEFINE_PLACE_SITES(calls)
DEFINE_PLACE_SITES(icalls)
DEFINE_PLACE_SITES(sinks)

/* Walk a body; calls and regions of this function get their guards. */
void walk_body(struct walk *w, CXCursor fn, struct extent *x)
{
	size_t first_call = w->out->nr_calls, first_sink = w->out->nr_sinks;
	size_t first_icall = w->out->nr_icalls;
	CXSourceRange range = expansion_range(w->tu, fn);

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
	record_outer_bits(w, w->out->funcs[w->cur_func].name);
	clang_visitChildren(fn, walk_kid, w);
	add_mask_regions(w, fn, first_call);
	sort_n(w->regions, w->nr_regions, sizeof(*w->regions), region_order);
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
