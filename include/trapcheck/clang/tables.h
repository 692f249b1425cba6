/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the kernel's own tables from a TU's AST: arm64_ftr_regs[] and
 * the capability tables arm64_features[] / arm64_errata[], KVM's lists of
 * the MSRs it may pass through (the architecture lists them:
 * checker/arch/<arch>/tables.def). Used by
 * extraction only; with extract*.c and tokens.c, the only code that sees
 * libclang.
 */
#ifndef TRAPCHECK_TABLES_H
#define TRAPCHECK_TABLES_H

#include <stddef.h>

#include <clang-c/Index.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"

/* Is a global of this name one of the run's architecture's tables? */
int caps_table_kind(const char *name);

/*
 * Where a table's entries go: @caps or @ftr of the TU's facts; @loc_file
 * names a CXFile relative to the tree.
 */
struct caps_sink {
	struct tu_cap **caps;
	size_t *nr_caps, *alloc_caps;
	char ***ftr;
	size_t *nr_ftr, *alloc_ftr;
	char ***ftr_bits;
	size_t *nr_ftr_bits, *alloc_ftr_bits;
	char ***msrs;
	size_t *nr_msrs, *alloc_msrs;
	const char *(*loc_file)(void *ctx, CXFile f);
	void *ctx;
};

/* Extract a table's entries from the VarDecl cursor @var. */
void caps_extract(CXTranslationUnit tu, CXCursor var, int kind,
		  const char *table, const struct caps_sink *out);

#endif /* TRAPCHECK_TABLES_H */
