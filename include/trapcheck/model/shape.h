/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shape of a C header: its text with comments gone, white space
 * collapsed and the bodies of the functions it defines emptied. Two
 * texts of one shape differ only inside function bodies, so a TU that
 * includes the header declares, defines and expands the same things
 * with either: only the facts of those bodies change (the TUs that own
 * them, claims.h), not every includer's.
 *
 * A body is a `{ ... }` at file scope right after a `)` (a function's
 * declarator or a macro like SYSCALL_DEFINE3()); `#define`, `#undef`,
 * `#include` and `#pragma` lines count wherever they are, other
 * preprocessor lines only outside bodies. Known limit: a compound
 * literal at file scope, `(struct s) { ... }`, is taken for a body.
 *
 * Two shapes whose other lines are the same, and that differ only in
 * their #define and #undef lines and conditional groups of nothing
 * else, differ in macros only (shape_macros()): an includer changes only
 * if it expands one of them (pipeline/analyze.c, model/macroset.h).
 */
#ifndef TRAPCHECK_SHAPE_H
#define TRAPCHECK_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

/* The shape of @len bytes at @text (new, NUL-terminated). */
char *shape_of(const char *text, size_t len);

/* Do the two texts differ only inside function bodies? */
bool shape_same(const char *a, size_t alen, const char *b, size_t blen);

/*
 * Do the two texts differ only inside function bodies and in macro
 * definitions: #define and #undef lines, and conditional groups of
 * nothing else, in the same places between the other lines? Then
 * *@changed lists (NULL-terminated, new strings) the names whose
 * definitions differ, and *@added those of them that may be defined
 * where they were not (a new name, a changed group, a definition moved),
 * which no other line of the new text names. False too when no macro
 * changed (shape_same()).
 */
bool shape_macros(const char *a, size_t alen, const char *b, size_t blen,
		  char ***changed, char ***added);

#endif /* TRAPCHECK_SHAPE_H */
