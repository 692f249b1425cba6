/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel configuration symbols behind a source line: the tree's .config
 * values, the #if conditions open at a line, and the kbuild lines that
 * build a file's object. What "trapcheck report --db NAME=FILE ..." names
 * when a finding exists in some configurations only.
 */
#ifndef TRAPCHECK_KCONFIG_H
#define TRAPCHECK_KCONFIG_H

#include <stddef.h>

#include "trapcheck/base/util.h"

/* The values of one configuration (the tree's .config). */
struct kconfig {
	struct strmap index;	/* "CONFIG_X" -> values[] */
	char **values;		/* "y", "m", "\"str\"", "12" */
	size_t nr, alloc;
};

/* Read @root/.config; -errno (the tree has none: -ENOENT). */
int kconfig_load(struct kconfig *k, const char *root);
/* The value of @sym ("CONFIG_LRU_GEN"); NULL when not set ("n"). */
const char *kconfig_value(const struct kconfig *k, const char *sym);
void kconfig_free(struct kconfig *k);

/* A list of distinct CONFIG_ symbols, in the order they were added. */
struct kconfig_syms {
	char **v;
	size_t nr, alloc;
};

/*
 * Add the symbols that @file (relative to @root) depends on at @line: the
 * CONFIG_ names in the #if, #ifdef, #ifndef and #elif conditions open
 * there (line 0: none), and in the lines of the directory's Makefile or
 * Kbuild that name the file's object ("obj-$(CONFIG_LRU_GEN) += x.o").
 * A file that cannot be read adds nothing.
 */
void kconfig_line_symbols(const char *root, const char *file,
			  unsigned int line, struct kconfig_syms *out);
/* Add the CONFIG_ names written in @text (a guard: IS_ENABLED(...)). */
void kconfig_text_symbols(const char *text, struct kconfig_syms *out);
void kconfig_syms_free(struct kconfig_syms *s);

#endif /* TRAPCHECK_KCONFIG_H */
