/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables the run's architecture reads from the tree (its tables.def,
 * model/arch.h), from a TU's AST: each definition's initialiser, as a
 * struct table_view, handed to the architecture's read_table(). Used by
 * extraction only.
 */
#ifndef TRAPCHECK_TABLES_H
#define TRAPCHECK_TABLES_H

#include <clang-c/Index.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"

/* The run's architecture's table a global of this name is, or NULL. */
const struct arch_table *tables_find(const char *name);

/*
 * Read the definition @var of table @t (a TABLE_ENTRIES one) into rows of
 * @out, and mark the table seen; @loc_file names a CXFile relative to
 * the tree.
 */
void tables_read(CXTranslationUnit tu, CXCursor var,
		 const struct arch_table *t, const char *name,
		 struct tu_facts *out,
		 const char *(*loc_file)(void *ctx, CXFile f), void *ctx);

/*
 * If the definition @var is a driver's device match table (struct
 * of_device_id, acpi_device_id or pci_device_id, an array or one), its
 * devices as rows of kind ROW_DEVICE of @out; false when it is none.
 */
bool tables_read_devices(CXCursor var, struct tu_facts *out,
			 const char *(*loc_file)(void *ctx, CXFile f),
			 void *ctx);

#endif /* TRAPCHECK_TABLES_H */
