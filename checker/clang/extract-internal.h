/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extract-internal.h - what the two files of the TU walk share (not
 * public API: include/trapcheck/clang/extract.h is), each name with the
 * family's prefix, extract_:
 *
 *   extract.c       the TU: parse, top-level cursors, function
 *                   definitions, macro sinks and the names their values
 *                   take from the tree's macros, diagnostics
 *   extract-body.c  the walk of a body: locations and names of cursors;
 *                   the statements (calls, sinks, loops and branches,
 *                   cold functions); conditions as atoms and the regions
 *                   they guard, `if`s written in macro bodies, regions
 *                   between the calls that mask interrupts, disable
 *                   preemption or take a lock; constants and parameters
 *                   calls pass on; function pointers stored in struct
 *                   members, calls through them, the objects
 *                   registration arguments name
 */
#ifndef TRAPCHECK_EXTRACT_INTERNAL_H
#define TRAPCHECK_EXTRACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clang-c/Index.h>

#include "trapcheck/clang/extract.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/clang/fileloc.h"
#include "trapcheck/clang/tokens.h"

/* CXFile -> relative path, per TU: files repeat on every location. */
struct file_slot {
	CXFile file;
	char *rel;
	char *real;		/* extract_file_path(..., true), once asked */
	bool real_done;
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
	struct file_locs locs;	/* each file's start (fileloc.h) */

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

	/* The hashes of the macro names expanded (extract.c). */
	uint32_t *mhash;
	size_t nr_mhash, alloc_mhash;

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

/*
 * extract-body.c, for the TU (extract.c): locations, names and keys of
 * cursors; the walk of one function body; a global's initialiser (ops
 * tables, the architecture's tables); the guards and loop count at an
 * offset of the body walked last (for the macro sinks of the TU).
 */
/*
 * @f's path relative to the tree ("<built-in>" for none), or with @real
 * its real path (symbolic links resolved; NULL when it has none): each
 * worked out once per TU.
 */
const char *extract_file_path(struct walk *w, CXFile f, bool real);
const char *extract_loc(struct walk *w, CXSourceLocation loc,
			unsigned int *line, unsigned int *col,
			unsigned int *offset, CXFile *filep);
/*
 * The first argument's first token when it is an identifier (or, with
 * @literal, a literal: a CPUID leaf), a new string; else NULL.
 */
char *extract_first_arg(CXTranslationUnit tu, CXSourceRange range,
			bool skip_name, bool literal);
char *extract_func_key(struct walk *w, CXCursor decl, const char **file,
		       unsigned int *line, bool *is_static);
char *extract_cursor_name(CXCursor c);
void extract_body(struct walk *w, CXCursor fn, struct extent *x);
void extract_var(struct walk *w, CXCursor c);
char *extract_guards_at(const struct region *r, size_t nr, unsigned int off);
unsigned int extract_loop_at(const struct loop_region *l, size_t nr,
			     unsigned int off, unsigned int *guess);

#endif /* TRAPCHECK_EXTRACT_INTERNAL_H */
