/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TU extraction: parse one translation unit with libclang and record its
 * function definitions, direct call edges and sink sites. The AST is
 * disposed before extract_tu() returns; only these facts outlive it. An
 * assembly source (.S) is read into the same facts by extract_asm().
 */
#ifndef TRAPCHECK_EXTRACT_H
#define TRAPCHECK_EXTRACT_H

#include <stdbool.h>

#include <clang-c/Index.h>

#include "trapcheck/clang/bodyskip.h"
#include "trapcheck/model/claims.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

struct extract_opts {
	const char *root;		/* tree root, for relative paths */
	struct claims *claims;		/* NULL: extract every body */
	int owner;			/* who claims: the TU's index */
	struct flag_warnings *warnings;	/* unknown flag reporting */
	bool defer_warnings;		/* into tu_facts.warnings instead */
	/* Files parsed with these contents instead of the disk's. */
	struct CXUnsavedFile *unsaved;
	unsigned int nr_unsaved;
	/*
	 * Test hook (docs/reliability.md): "segv:PART", "abort:PART" or
	 * "hang:PART" makes the parser of every TU whose path contains PART
	 * crash or hang. The program reads it from TRAPCHECK_FAULT.
	 */
	const char *fault;
	/*
	 * Header bodies this parser process has seen, blanked in what
	 * libclang parses (bodyskip.h); NULL: every body parsed. Needs
	 * @claims and no @unsaved.
	 */
	struct body_skip *skip;
};

/*
 * Parse @file with @args through @idx and fill @out. Returns 0 when a
 * TU was built (possibly with errors, counted in @out), or a negative
 * code when libclang could not build one (@out->parse_error says why).
 */
int extract_tu(CXIndex idx, const char *file, struct clang_args *args,
	       const struct extract_opts *opts, struct tu_facts *out);
const char *extract_error_name(int code);
/*
 * Read the assembly source (.S) of @e as its command builds it (asm.c:
 * preprocessed by its compiler, or clang with @args where it is missing),
 * its assembler macros expanded, its symbols, branches and instruction
 * sinks into @out. Returns 0, or -EIO when it could not be preprocessed
 * (@out->parse_error TU_NOT_READ, first_error says why).
 */
struct compdb_entry;
int extract_asm(const struct compdb_entry *e, struct clang_args *args,
		const struct extract_opts *opts, struct tu_facts *out);

#endif /* TRAPCHECK_EXTRACT_H */
