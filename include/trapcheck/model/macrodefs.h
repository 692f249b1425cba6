/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The macro definitions of a set of source files, read from their text:
 * of each #define line, the name, the names its body mentions and the
 * literal parts of names it pastes (`SYS_ ## reg`). For the lint: a TU's
 * stored macro set (macroset.h) holds the macros its preprocessing
 * record shows, the outermost expansions; a macro that one of those
 * expands in turn is found here, from the other side: every macro whose
 * definition may expand a changed one.
 *
 * Read from the text, a definition counts whatever conditional it is
 * under (more TUs parsed again, never fewer). Known limit: a name pasted
 * from two parameters (`a ## b`) is not followed.
 */
#ifndef TRAPCHECK_MACRODEFS_H
#define TRAPCHECK_MACRODEFS_H

#include <stddef.h>
#include <stdint.h>

struct macro_defs;

struct macro_defs *macro_defs_new(void);
void macro_defs_free(struct macro_defs *d);

/* Read the definitions of the source text @text of @len bytes. */
void macro_defs_read(struct macro_defs *d, const char *text, size_t len);

/*
 * The hashes (macroset_hash()) of @names (NULL-terminated) and of every
 * macro read whose definition names one of them, or pastes a name that
 * may be one, in turn: sorted, a new array of *@nr.
 */
uint32_t *macro_defs_closure(struct macro_defs *d, char *const *names,
			     size_t *nr);

#endif /* TRAPCHECK_MACRODEFS_H */
