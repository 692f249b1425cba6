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
 * under (more TUs parsed again, never fewer). Known limits: a name pasted
 * from two parameters (`a ## b`), or whose literal first and last parts
 * are both shorter than FRAG_MIN characters (`v ## U`), is not followed.
 */
#ifndef TRAPCHECK_MACRODEFS_H
#define TRAPCHECK_MACRODEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct macro_defs;

struct macro_defs *macro_defs_new(void);
void macro_defs_free(struct macro_defs *d);

/*
 * Read the definitions of the source text @text of @len bytes, of the
 * file the caller numbers @file; @local: a TU's own source, whose macros
 * no other TU sees.
 */
void macro_defs_read(struct macro_defs *d, const char *text, size_t len,
		     int file, bool local);

/* A macro that may expand a changed one, and where it is defined. */
struct macro_dep {
	uint32_t h;		/* macroset_hash() of its name */
	int file;		/* macro_defs_read()'s @file; -1: a changed one */
};

/*
 * @names (NULL-terminated, file -1) and every definition read that names
 * one of them, or pastes a name that may be one, in turn: a new array
 * of *@nr, by file then hash. A TU depends on such a definition only if
 * it expands its name and includes its file: macros of one name in two
 * drivers are two. What a local file's macro leads to is of that file:
 * only its TU can expand it so.
 */
struct macro_dep *macro_defs_closure(struct macro_defs *d,
				     char *const *names, size_t *nr);

#endif /* TRAPCHECK_MACRODEFS_H */
