/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the analysed tree says about itself: the registers
 * read_sanitised_ftr_reg() can serve (arm64_ftr_regs[] in
 * arch/arm64/kernel/cpufeature.c) and, per CPU capability
 * (arm64_features[], arm64_errata[]), its scope, its matches() function
 * and what it reads. Extracted from the same libclang ASTs as the call
 * graph; tables to look for are listed in checker/tables.def.
 */
#ifndef TRAPCHECK_CAPS_H
#define TRAPCHECK_CAPS_H

#include <stdbool.h>
#include <stdio.h>

#include <clang-c/Index.h>

#include "trapcheck/sinks.h"

/* One entry of arm64_features[] / arm64_errata[], as written. */
struct tu_cap {
	char *name;		/* ARM64_HAS_RNG */
	char *type;		/* ARM64_CPUCAP_SYSTEM_FEATURE */
	unsigned int scope;	/* the type's ARM64_CPUCAP_SCOPE_* bits */
	char *matches;		/* has_cpuid_feature */
	char *reg;		/* ID_AA64ISAR0_EL1, or NULL */
	char *field;		/* RNDR, or NULL */
	char *min;		/* IMP, 1, ... or NULL */
	bool midr;		/* matched on MIDR (.midr_range*, ERRATA_*) */
	char *table;		/* arm64_features or arm64_errata */
	char *file;
	unsigned int line;
};

struct graph;

/* A capability after resolution against the whole graph. */
struct cap {
	const char *name, *type, *matches, *reg, *field, *min, *table;
	const char *file;
	unsigned int line, scope;
	bool midr;
	/* What this_cpu_has_cap() reads on the local CPU: */
	const char *reads;	/* register, or NULL when unresolved */
	enum trap_class trap;
	const char *how;	/* "sys_reg", "matches", "midr" */
};

struct cap_table {
	struct cap *caps;
	size_t nr, alloc;
	const char **ftr_regs;	/* arm64_ftr_regs[]: "ID_AA64ISAR0_EL1" */
	size_t nr_ftr, alloc_ftr;
	bool have_ftr;		/* arm64_ftr_regs[] was found */
	bool have_caps;		/* a capability table was found */
	size_t unresolved;
};

enum table_kind { TABLE_FTR_REGS, TABLE_CAPS };

/* Is a global of this name one of the tables (checker/tables.def)? */
int caps_table_kind(const char *name);

/*
 * Extract a table's entries from the VarDecl cursor @var. @loc_file
 * names a CXFile relative to the tree. Appends to @caps or @ftr_regs.
 */
struct caps_sink {
	struct tu_cap **caps;
	size_t *nr_caps, *alloc_caps;
	char ***ftr;
	size_t *nr_ftr, *alloc_ftr;
	const char *(*loc_file)(void *ctx, CXFile f);
	void *ctx;
};

void caps_extract(CXTranslationUnit tu, CXCursor var, int kind,
		  const char *table, const struct caps_sink *out);
void tu_cap_free(struct tu_cap *c);

/* Resolve every capability of @g: what it reads on the local CPU. */
void caps_resolve(struct graph *g);
const struct cap *caps_find(const struct cap_table *t, const char *name);
bool caps_is_sanitised(const struct cap_table *t, const char *reg);
const char *cap_scope_name(unsigned int scope);

/* --list-caps: the resolved table, one line per capability. */
int caps_print(FILE *out, const struct cap_table *t);

#endif /* TRAPCHECK_CAPS_H */
