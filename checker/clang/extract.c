// SPDX-License-Identifier: GPL-2.0
/*
 * extract.c - one translation unit through libclang into tu_facts.
 *
 * One walk of the TU cursor: function definitions are recorded and their
 * bodies visited for calls (extract-body.c); macro expansions (the
 * detailed preprocessing record lists them beside the declarations) are
 * matched against the sink table and tied to the function whose extent
 * holds them. This file holds the TU: the parse and its retry, the
 * top-level cursors, locations and names, and the diagnostics.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/clang/extract.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/model/macroset.h"
#include "trapcheck/model/sinks.h"

#include "extract-internal.h"

#define PARSE_FLAGS (CXTranslationUnit_DetailedPreprocessingRecord |	\
		     CXTranslationUnit_KeepGoing |			\
		     CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles)

const char *extract_error_name(int code)
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

static enum CXChildVisitResult find_body(CXCursor c, CXCursor parent,
					 CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_CompoundStmt)
		*(CXCursor *)data = c;
	return CXChildVisit_Continue;
}

/* A location written in a file, not in a macro: its file and offset. */
static bool file_spelled(CXSourceLocation loc, CXFile *file,
			 unsigned int *off)
{
	CXFile sf;
	unsigned int so;

	clang_getExpansionLocation(loc, file, NULL, NULL, off);
	clang_getSpellingLocation(loc, &sf, NULL, NULL, &so);
	return *file && sf && clang_File_isEqual(*file, sf) && so == *off;
}

/*
 * The body of header function @c, when its braces are written in the
 * header (not made by a macro): its file's real path, [@from, @to).
 */
static bool header_body(struct walk *w, CXCursor c, const char **real,
			unsigned int *from, unsigned int *to)
{
	CXCursor body = clang_getNullCursor();
	CXSourceRange r;
	CXFile f1, f2;

	clang_visitChildren(c, find_body, &body);
	if (clang_Cursor_isNull(body))
		return false;
	r = clang_getCursorExtent(body);
	if (!file_spelled(clang_getRangeStart(r), &f1, from) ||
	    !file_spelled(clang_getRangeEnd(r), &f2, to) ||
	    !clang_File_isEqual(f1, f2) || *to <= *from)
		return false;
	/*
	 * One name per file, symbolic links resolved, as for the TU's own
	 * file: bodyskip.h keys its headers by it.
	 */
	*real = extract_file_path(w, f1, true);
	return *real != NULL;
}

/* Is @key another TU's (a body this TU skips)? */
static bool claimed_by_other(struct walk *w, const char *key)
{
	int owner = claims_owner(w->opts->claims, key);

	return owner >= 0 && owner != w->opts->owner;
}

static void visit_function(struct walk *w, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile sf, ef;
	unsigned int sl, sc, so, el, ec, eo;
	struct extent *x;
	struct tu_func fn = { 0 };
	const char *file, *real = NULL;
	unsigned int bfrom = 0, bto = 0;
	bool mine, main, skipped = false;

	fn.key = extract_func_key(w, c, &file, &fn.line, &fn.is_static);
	fn.indirect_calls = false;
	fn.cold = false;
	clang_getExpansionLocation(clang_getRangeStart(r), &sf, &sl, &sc, &so);
	clang_getExpansionLocation(clang_getRangeEnd(r), &ef, &el, &ec, &eo);
	(void)extract_loc(w, clang_getCursorLocation(c), &fn.line, &fn.col,
			    NULL, NULL);

	main = clang_Location_isFromMainFile(clang_getCursorLocation(c));
	if (!main && w->opts->skip)
		skipped = header_body(w, c, &real, &bfrom, &bto);
	if (skipped && w->blanked &&
	    body_skip_blanked(w->opts->skip, real, bfrom) &&
	    !claimed_by_other(w, fn.key)) {
		/*
		 * Blanked, yet no other TU has this body: the header's text
		 * at that place is another function in this TU (a macro
		 * names it). Parse the TU again in full.
		 */
		w->redo = true;
		body_skip_never(w->opts->skip, real, bfrom);
		free(fn.key);
		return;
	}
	mine = !w->opts->claims || main ||
	       claims_take(w->opts->claims, fn.key, w->opts->owner);
	if (skipped)
		body_skip_note(w->opts->skip, real, bfrom, bto);
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
	fn.name = extract_cursor_name(c);
	fn.file = xstrdup(file);
	x->func = (int)w->out->nr_funcs;
	*PUSH(w->out->funcs, w->out->nr_funcs, w->out->alloc_funcs) = fn;
	w->cur_func = x->func;
	extract_body(w, c, x);
	w->cur_func = -1;
}

/*
 * The macros a TU expands or tests (model/macroset.h): each name of a
 * macro expansion in its preprocessing record, kept as a hash, the set
 * stored with the TU's facts at the end of the walk. libclang records
 * the outermost expansion only, and a test of a macro only while it is
 * defined: what those expand in turn, and names that become macros, are
 * the lint's to follow (pipeline/analyze.c, model/macrodefs.h).
 */
static void macro_use(struct walk *w, const char *name)
{
	*PUSH(w->mhash, w->nr_mhash, w->alloc_mhash) =
		macroset_hash(name, strlen(name));
}

static void macro_set(struct walk *w)
{
	*PUSH(w->out->macros, w->out->nr_macros, w->out->alloc_macros) =
		macroset_encode(w->mhash, w->nr_mhash);
}

static void visit_macro(struct walk *w, CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	const char *name = clang_getCString(s);
	struct pending_sink *p;
	int k = -1;

	if (name) {
		macro_use(w, name);
		k = sink_lookup(SINK_MACRO, name);
	}
	clang_disposeString(s);
	if (k < 0)
		return;
	p = PUSH(w->pend, w->nr_pend, w->alloc_pend);
	clang_getExpansionLocation(clang_getCursorLocation(c), &p->file,
				   &p->line, &p->col, &p->offset);
	p->sink = k;
	p->arg = extract_first_arg(w->tu, clang_getCursorExtent(c), true,
				 sink_at(k)->arg == SINK_ARG_LEAF);
}

/* Does the architecture ask for macro @name's definition (outer.def)? */
static bool macro_wanted(const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_nestings; i++)
		if (!strcmp(name, a->nestings[i].feature) ||
		    !strcmp(name, a->nestings[i].limit))
			return true;
	return false;
}

/* Macro @c's definition: a row of kind ROW_MACRO, its tokens joined. */
static void record_macro(struct walk *w, CXCursor c, const char *name)
{
	struct table_row_in r = { .kind = ROW_MACRO, .table = "define",
				  .key = name };
	struct tokens k = { 0 };
	char *v = NULL, *n;
	size_t i;

	tokens_get(&k, w->tu, clang_getCursorExtent(c), false);
	/* The name, then its replacement (an object-like macro's). */
	for (i = 1; i < k.n; i++) {
		n = xasprintf("%s%s%s", v ? v : "", v ? " " : "", k.s[i]);
		free(v);
		v = n;
	}
	tokens_free(&k);
	r.v[0] = v ? v : "";
	r.file = extract_loc(w, clang_getCursorLocation(c), &r.line, NULL,
			     NULL, NULL);
	facts_add_row(w->out, &r);
	free(v);
}

/*
 * A feature macro (X86_FEATURE_SMAP) or register-name macro (MSR_STAR) of
 * the architecture: kept, read only when a sink needs it. A macro the
 * architecture asks for (outer.def's NESTING lines): its definition, a
 * row.
 */
static void visit_macro_def(struct walk *w, CXCursor c)
{
	const struct arch *a = arch_current();
	const char *name;
	CXString s;

	if (!a->feature_prefix && !a->reg_macro_prefix && !a->nr_nestings)
		return;
	s = clang_getCursorSpelling(c);
	name = clang_getCString(s);
	if (!name)
		goto out_dispose;
	if (macro_wanted(name) && !clang_Cursor_isMacroFunctionLike(c)) {
		record_macro(w, c, name);
		goto out_dispose;
	}
	if (a->feature_prefix &&
	    !strncmp(name, a->feature_prefix, strlen(a->feature_prefix)))
		*PUSH(w->fmacros, w->nr_fmacros, w->alloc_fmacros) = c;
	else if (a->reg_macro_prefix &&
		 !strncmp(name, a->reg_macro_prefix,
			  strlen(a->reg_macro_prefix)))
		*PUSH(w->rmacros, w->nr_rmacros, w->alloc_rmacros) = c;
out_dispose:
	clang_disposeString(s);
}

static enum CXChildVisitResult visit_word(CXCursor c, CXCursor p,
					  CXClientData d)
{
	struct walk *w = d;
	struct arch_enum *e;

	(void)p;
	if (clang_getCursorKind(c) != CXCursor_EnumConstantDecl)
		return CXChildVisit_Continue;
	e = PUSH(w->fwords, w->nr_fwords, w->alloc_fwords);
	e->name = extract_cursor_name(c);
	e->value = clang_getEnumConstantDeclValue(c);
	return CXChildVisit_Continue;
}

/* The architecture's feature-word enum (enum cpuid_leafs): its constants. */
static void visit_enum(struct walk *w, CXCursor c)
{
	const char *name = arch_current()->feature_enum;
	CXString s;

	if (!name || w->nr_fwords)
		return;
	s = clang_getCursorSpelling(c);
	if (!strcmp(clang_getCString(s), name))
		clang_visitChildren(c, visit_word, w);
	clang_disposeString(s);
}

/*
 * The feature macro that stands for word @word, bit @bit (the
 * architecture's feature_macro() reads a definition), or NULL.
 */
static char *feature_named(struct walk *w, unsigned int word,
			   unsigned int bit)
{
	const struct arch *a = arch_current();
	char *found = NULL;
	unsigned int mw, mb;
	size_t i;

	for (i = 0; i < w->nr_fmacros && !found; i++) {
		struct tokens k = { 0 };

		tokens_get(&k, w->tu, clang_getCursorExtent(w->fmacros[i]),
			   false);
		if (k.n && a->feature_macro(k.s, k.n, &mw, &mb) &&
		    mw == word && mb == bit)
			found = xstrdup(k.s[0]);
		tokens_free(&k);
	}
	return found;
}

/*
 * The register-name macro "NAME VALUE" whose value is the number @num
 * (msr-index.h's form), or NULL.
 */
static char *reg_named(struct walk *w, const char *num)
{
	unsigned long long want, v;
	char *found = NULL, *e;
	size_t i;

	want = strtoull(num, &e, 0);
	while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
		e++;
	if (*e)
		return NULL;
	for (i = 0; i < w->nr_rmacros && !found; i++) {
		struct tokens k = { 0 };

		tokens_get(&k, w->tu, clang_getCursorExtent(w->rmacros[i]),
			   false);
		if (k.n == 2) {
			v = strtoull(k.s[1], &e, 0);
			while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
				e++;
			if (!*e && e != k.s[1] && v == want)
				found = xstrdup(k.s[0]);
		}
		tokens_free(&k);
	}
	return found;
}

/*
 * From the TU's own tables: the feature each masked sink tests, and the
 * name of each register a sink gives as a number.
 */
static void resolve_features(struct walk *w)
{
	const struct arch *a = arch_current();
	unsigned int word, bit;
	size_t i;

	for (i = 0; i < w->out->nr_sinks; i++) {
		struct tu_sink *k = &w->out->sinks[i];
		char *name;

		if (k->arg && isdigit((unsigned char)k->arg[0]) &&
		    (sink_at(k->sink)->arg == SINK_ARG_WRITTEN ||
		     sink_at(k->sink)->arg == SINK_ARG_WRITTEN_2ND) &&
		    (name = reg_named(w, k->arg))) {
			free(k->arg);
			k->arg = name;
		}
	}
	if (!a->feature_bit || !a->feature_macro || !w->nr_fmacros ||
	    !w->nr_fwords)
		return;
	for (i = 0; i < w->out->nr_sinks; i++) {
		struct tu_sink *k = &w->out->sinks[i];

		if (k->mask && !k->feature &&
		    a->feature_bit(sink_at(k->sink)->name, k->arg, k->mask,
				   w->fwords, w->nr_fwords, &word, &bit))
			k->feature = feature_named(w, word, bit);
	}
}

/*
 * What each register read's function tests of the value: the fields of
 * that register its tokens name from the read on (the architecture's
 * value_fields()), so that advice can ask whether a cached copy answers
 * for them.
 */
static void resolve_fields(struct walk *w)
{
	const struct arch *a = arch_current();
	size_t i, j;

	if (!a->value_fields)
		return;
	for (i = 0; i < w->out->nr_sinks; i++) {
		struct tu_sink *k = &w->out->sinks[i];
		const struct sink_def *def = sink_at(k->sink);
		const struct reg_def *reg;
		struct extent *x = NULL;
		struct tokens t;

		if (def->class != SINK_IDREG || k->fields ||
		    !(reg = reg_lookup_arg(def, k->arg)))
			continue;
		for (j = 0; j < w->nr_ext && !x; j++)
			if (w->ext[j].func == k->func &&
			    w->ext[j].start <= k->off &&
			    k->off < w->ext[j].end &&
			    !strcmp(extract_file_path(w, w->ext[j].file, false),
				    k->file))
				x = &w->ext[j];
		if (!x)
			continue;
		tokens_get(&t, w->tu, clang_getRange(
			file_loc(&w->locs, w->tu, x->file, k->off),
			file_loc(&w->locs, w->tu, x->file, x->end)),
			false);
		k->fields = a->value_fields(t.s, t.n, reg->name);
		tokens_free(&t);
	}
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent,
					 CXClientData data)
{
	struct walk *w = data;

	(void)parent;
	switch (clang_getCursorKind(c)) {
	case CXCursor_VarDecl:
		extract_var(w, c);
		break;
	case CXCursor_MacroDefinition:
		visit_macro_def(w, c);
		break;
	case CXCursor_EnumDecl:
		visit_enum(w, c);
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
	return w->redo ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* Tie each macro sink to the function whose body holds it. */
static void resolve_pending(struct walk *w)
{
	size_t i, j;

	for (i = 0; i < w->nr_pend; i++) {
		struct pending_sink *p = &w->pend[i];
		const struct sink_def *def = sink_at(p->sink);
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

			memset(k, 0, sizeof(*k));
			k->func = func;
			k->sink = p->sink;
			k->arg = p->arg;
			p->arg = NULL;
			k->file = xstrdup(extract_file_path(w, p->file, false));
			k->line = p->line;
			k->col = p->col;
			k->off = p->offset;
			k->guards = extract_guards_at(in->regions,
						      in->nr_regions,
						      p->offset);
			k->loop = extract_loop_at(in->loops, in->nr_loops,
						  p->offset, &k->loop_guess);
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
			const char *f = extract_loc(w,
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
		xstrdup(extract_file_path(w, included, false));
}

/* A warning kept in @out, for the analysis to print once per @flag. */
static void defer_warning(struct tu_facts *out, char *flag, char *text)
{
	struct tu_warning *tw = PUSH(out->warnings, out->nr_warnings,
				     out->alloc_warnings);

	tw->flag = flag;
	tw->text = text;
}

static void warn_unknown(const struct extract_opts *opts,
			 const struct clang_args *args, const char *tu,
			 const char *what, struct tu_facts *out)
{
	int i;

	for (i = 0; i < args->nr_unknown; i++) {
		if (opts->defer_warnings) {
			defer_warning(out, xstrdup(args->unknown[i]),
				      xasprintf("%s: warning: unknown compiler "
						"flag '%s' %s", tu,
						args->unknown[i], what));
		} else if (opts->warnings &&
			   flags_warn_once(opts->warnings, args->unknown[i])) {
			diag_at(tu, "warning", "unknown compiler flag '%s' "
				"%s", args->unknown[i], what);
		}
	}
}

/* Some function's statements were too deep to walk: said once per TU. */
static void warn_too_deep(const struct walk *w, const char *rel)
{
	char *text = xasprintf("%s: warning: statements nested deeper than "
			       "%d levels in %s(): the deeper ones not walked",
			       rel, WALK_DEPTH_MAX, w->too_deep);

	if (w->opts->defer_warnings) {
		defer_warning(w->out, xstrdup(text), text);
	} else {
		diag_line(text);
		free(text);
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

/*
 * Parse @file into @w->tu and count its errors (extract_tu()). With
 * @blanked, the headers come from @w->opts->skip (a blanked body that
 * should return a value is a warning, and flags.def turns warnings off).
 */
static enum CXErrorCode parse(CXIndex idx, const char *file,
			      struct clang_args *args, struct walk *w,
			      bool *rejected, const char *blanked)
{
	struct CXUnsavedFile *unsaved = w->opts->unsaved;
	unsigned int nr_unsaved = w->opts->nr_unsaved;
	enum CXErrorCode err;

	if (blanked)
		nr_unsaved = body_skip_files(w->opts->skip, blanked, &unsaved);
	err = clang_parseTranslationUnit2(idx, file,
					  (const char *const *)args->argv,
					  args->argc, unsaved, nr_unsaved,
					  PARSE_FLAGS, &w->tu);
	if (err == CXError_Success)
		count_diagnostics(w, args, rejected);
	return err;
}

static void free_files(struct walk *w)
{
	size_t i;

	for (i = 0; w->files && i <= w->files_mask; i++) {
		free(w->files[i].rel);
		free(w->files[i].real);
	}
	free(w->files);
	w->files = NULL;
	w->files_used = 0;
	file_locs_free(&w->locs);
}

/* Forget the first parse of the TU, to parse it again. */
static void forget_parse(struct walk *w)
{
	if (w->tu)
		clang_disposeTranslationUnit(w->tu);
	w->tu = NULL;
	free(w->out->first_error);
	w->out->first_error = NULL;
	w->out->nr_errors = 0;
	w->out->retried = true;
	free_files(w);
}

static void free_walk(struct walk *w)
{
	size_t i, j;

	for (i = 0; i < w->nr_ext; i++) {
		for (j = 0; j < w->ext[i].nr_regions; j++)
			free(w->ext[i].regions[j].atoms);
		free(w->ext[i].regions);
		free(w->ext[i].loops);
	}
	free_files(w);
	free(w->ext);
	free(w->pend);
	free(w->fmacros);
	free(w->rmacros);
	for (i = 0; i < w->nr_fwords; i++)
		free((char *)w->fwords[i].name);
	free(w->fwords);
	free(w->mguards);
	free(w->mhash);
}

/* The module kbuild builds the TU into (rules/machine.c groups by it). */
static void add_module(const struct clang_args *args, struct tu_facts *out)
{
	bool loadable;
	char *mod = flags_module(args, &loadable);

	if (!mod)
		return;
	facts_add_row(out, &(struct table_row_in){
		.kind = ROW_MODULE, .table = loadable ? "m" : "y",
		.key = mod, .file = out->file,
	});
	free(mod);
}

/*
 * One parse and walk of the TU; @blanked (the TU's real path) parses it
 * with header bodies blanked. *@redo: the blanked parse will not do.
 */
static int extract_once(CXIndex idx, const char *file,
			struct clang_args *args,
			const struct extract_opts *opts, struct tu_facts *out,
			const char *blanked, bool *redo)
{
	struct walk w = {
		.opts = opts, .out = out, .cur_func = -1, .blanked = !!blanked,
	};
	enum CXErrorCode err;
	bool rejected;
	char *rel = path_relative(file, opts->root);

	memset(out, 0, sizeof(*out));
	out->file = rel;
	inject_fault(opts->fault, file);

	err = parse(idx, file, args, &w, &rejected, blanked);
	if (err != CXError_Success)
		rejected = args->nr_unknown > 0;
	if (rejected) {
		/* Drop what clang would not take and parse once more. */
		warn_unknown(opts, args, rel, "(rejected by clang: dropped)",
			     out);
		flags_drop_unknown(args);
		forget_parse(&w);
		err = parse(idx, file, args, &w, &rejected, blanked);
	} else {
		warn_unknown(opts, args, rel, "(passed to clang)", out);
	}
	if (err != CXError_Success) {
		out->parse_error = err;
		out->first_error = xstrdup(extract_error_name(err));
		goto out_free_walk;
	}
	/* An error may be the blanking's: only a full parse tells. */
	if (blanked && out->nr_errors) {
		w.redo = true;
		clang_disposeTranslationUnit(w.tu);
		goto out_free_walk;
	}

	clang_getInclusions(w.tu, collect_include, &w);
	clang_visitChildren(clang_getTranslationUnitCursor(w.tu), top_visit,
			    &w);
	if (w.redo) {
		clang_disposeTranslationUnit(w.tu);
		goto out_free_walk;
	}
	resolve_pending(&w);
	resolve_features(&w);
	resolve_fields(&w);
	macro_set(&w);
	add_module(args, out);
	clang_disposeTranslationUnit(w.tu);
	if (w.too_deep)
		warn_too_deep(&w, rel);

out_free_walk:
	*redo = w.redo || (blanked && err != CXError_Success);
	free_walk(&w);
	return err == CXError_Success ? 0 : -EIO;
}

int extract_tu(CXIndex idx, const char *file, struct clang_args *args,
	       const struct extract_opts *opts, struct tu_facts *out)
{
	char *real = NULL;
	bool redo = false, retried;
	int ret;

	if (opts->skip && opts->claims)
		real = realpath(file, NULL);
	if (!real)
		return extract_once(idx, file, args, opts, out, NULL, &redo);
	ret = extract_once(idx, file, args, opts, out, real, &redo);
	body_skip_count(opts->skip, redo);
	if (redo) {
		/* The full parse, as without opts->skip. */
		retried = out->retried;
		facts_free(out);
		ret = extract_once(idx, file, args, opts, out, NULL, &redo);
		out->retried |= retried;
	}
	free(real);
	return ret;
}
