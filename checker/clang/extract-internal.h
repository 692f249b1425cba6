/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extract-internal.h - what the files of the TU walk share (not public
 * API: include/trapcheck/clang/extract.h is). One walk of a TU is spread
 * over these files, each calling only those listed after it (no loop:
 * tests/e2e/layers.t):
 *
 *   extract.c         the TU: parse, top-level cursors, function
 *                     definitions, macro sinks, diagnostics
 *   extract-stmt.c    the statement walk of a body: calls, loops and
 *                     branches, cold functions, guards placed on sites
 *   extract-ops.c     function pointers stored in struct members (ops
 *                     tables, notifier blocks), calls through them, and
 *                     the objects registration arguments name
 *   extract-regions.c regions between the calls that mask interrupts,
 *                     disable preemption or take a lock
 *   extract-guards.c  guarded regions: conditions as atoms, `if`s
 *                     written in macro bodies, loop trip counts, the
 *                     operators of conditions
 *   extract-args.c    constants and parameters calls pass on
 *   extract-util.c    locations, names, keys and children of cursors
 */
#ifndef TRAPCHECK_EXTRACT_INTERNAL_H
#define TRAPCHECK_EXTRACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <clang-c/Index.h>

#include "trapcheck/clang/extract.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/clang/tokens.h"

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
	struct tokens ftok;
	CXFile ftok_file;	/* the file they are in */
	struct region *regions;
	size_t nr_regions, alloc_regions;
	struct loop_region *loops;
	size_t nr_loops, alloc_loops;
	unsigned int bound;
	bool bound_found;

	/*
	 * The architecture's feature macros and the constants of its
	 * feature-word enum (arch.h: feature_prefix, feature_enum).
	 */
	CXCursor *fmacros;
	size_t nr_fmacros, alloc_fmacros;
	/* Its register-name macros (arch.h: reg_macro_prefix). */
	CXCursor *rmacros;
	size_t nr_rmacros, alloc_rmacros;
	struct arch_enum *fwords;
	size_t nr_fwords, alloc_fwords;

	/* Statement nesting: generated code can nest 20,000 deep. */
	unsigned int depth;
	const char *too_deep;	/* the first function cut short */

	/* Header bodies (bodyskip.h): the last file's real path. */
	CXFile skip_file;
	char *skip_real;
	/* Parsed with header bodies blanked (bodyskip.h). */
	bool blanked;
	/* A blanked body this TU needs: parse it again, in full. */
	bool redo;
};

/* Deeper statements and expressions are not walked (noted once). */
#define WALK_DEPTH_MAX	512
/* Longer conditions are not split into atoms (quadratic in chains). */
#define GUARD_TOKENS_MAX	1024
/* Labels of one switch looked at; more are walked with no atom. */
#define SWITCH_LABELS_MAX	256

/* The first children of a cursor (collect_kid()), and how many it has. */
struct kids {
	CXCursor c[4];
	unsigned int n;
};

/* extract-util.c: locations, names and children of cursors. */
const char *file_rel(struct walk *w, CXFile f);
const char *expansion_loc(struct walk *w, CXSourceLocation loc,
			  unsigned int *line, unsigned int *col,
			  unsigned int *offset, CXFile *filep);
/*
 * The first argument's first token when it is an identifier (or, with
 * @literal, a literal: a CPUID leaf), a new string; else NULL.
 */
char *first_arg_token(CXTranslationUnit tu, CXSourceRange range,
		      bool skip_name, bool literal);
char *func_key(struct walk *w, CXCursor decl, const char **file,
	       unsigned int *line, bool *is_static);
char *cursor_name(CXCursor c);
enum CXChildVisitResult collect_kid(CXCursor c, CXCursor p, CXClientData d);
unsigned int offset_of(CXSourceLocation loc);
void extent_offsets(CXCursor c, unsigned int *from, unsigned int *to);
unsigned int start_of(CXCursor c, CXFile *file);

/* extract-stmt.c: the body of one function. */
void walk_body(struct walk *w, CXCursor fn, struct extent *x);

/* extract-guards.c: regions of a body, loops, conditions. */
const char *binary_op(struct walk *w, CXCursor op, CXCursor lhs,
		      CXCursor rhs);
char *macro_guards(const struct walk *w);
/*
 * A condition clang folds to a constant under the build's configuration
 * (IS_ENABLED(), sizeof, cpu_feature_enabled() of a feature the
 * configuration disables): 1 or 0; -1 when it is not one, or when it
 * asks __builtin_constant_p() of something clang does not fold.
 */
int cond_constant(struct walk *w, CXCursor cond);
/*
 * "<never: COND>" (guards.h) when the code that runs when @cond is true
 * (false, @negated) is compiled out: @cond is the other constant; else
 * NULL. A new string.
 */
char *never_atom(struct walk *w, CXCursor cond, bool negated);
void add_region(struct walk *w, unsigned int from, unsigned int to,
		CXCursor cond, bool negated);
void add_atoms_region(struct walk *w, unsigned int from, unsigned int to,
		      char *atoms);
void add_cursor_region(struct walk *w, CXCursor body, CXCursor cond,
		       bool negated);
/* Tokens of the current function within [from, to): *@i to *@j. */
void token_span(struct walk *w, unsigned int from, unsigned int to,
		unsigned int *i, unsigned int *j);
void add_switch_regions(struct walk *w, CXCursor cond, CXCursor body);
char *guards_at(const struct region *r, size_t nr, unsigned int off);
int region_order(const void *a, const void *b);
bool in_macro_body(CXCursor cond, CXCursor body);
unsigned int macro_if_nth(struct walk *w, unsigned int off, bool peek);
char *macro_if_atoms(struct walk *w, CXFile file, unsigned int off,
		     unsigned int nth, bool negated);
void add_loop(struct walk *w, CXCursor loop);
unsigned int loop_at(const struct loop_region *l, size_t nr,
		     unsigned int off, unsigned int *guess);

/* extract-regions.c: masked, preempt-off and locked regions. */
void add_mask_regions(struct walk *w, CXCursor fn, size_t first);

/*
 * extract-args.c: what calls pass. "1=$0;2=#12:CSSELR_EL1": argument 1
 * is the caller's parameter 0, argument 2 the constant 12 written as
 * CSSELR_EL1; NULL when no argument is either.
 */
char *call_consts(struct walk *w, CXCursor call);
/* The parameters of @fn, "vcpu,~reg" (~: the body changes it). */
char *func_params(struct walk *w, CXCursor fn);
/* @c's value when it is a literal or an enum constant (*@name: its). */
bool const_value(CXCursor c, long long *value, char **name);

/* extract-ops.c: struct members, registrations, kernel tables. */
char *call_args(struct walk *w, CXCursor call);
char *local_object(struct walk *w, CXCursor var);
enum CXChildVisitResult visit_init_list(CXCursor c, CXCursor p,
					CXClientData d);
void record_icall(struct walk *w, CXCursor call, CXCursor field);
void record_store(struct walk *w, CXCursor lhs, CXCursor rhs);
void record_fn_args(struct walk *w, CXCursor call, const char *callee);
void visit_var(struct walk *w, CXCursor c);
void record_outer_bits(struct walk *w, const char *fn);

#endif /* TRAPCHECK_EXTRACT_INTERNAL_H */
