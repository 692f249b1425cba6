/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Header function bodies parsed once per parser process.
 *
 * A kernel TU brings thousands of static inline bodies from headers, the
 * same in every TU; trapcheck walks each once (claims.h) but libclang
 * analyses all of them in every TU, about half of a TU's parse. A parser
 * process notes the bodies it has seen (their byte ranges in the header)
 * and gives libclang, for the next TUs, each such header as an unsaved
 * file with those bodies blanked: `{` and `}` stay, preprocessor lines
 * (not in a comment or literal) and newlines stay (locations do not
 * move), the rest becomes spaces.
 *
 * A blanked body must be one the TU would have skipped anyway (claimed
 * by another TU): extract.c checks it and parses the TU again in full
 * when it is not, or when the blanked parse has errors.
 */
#ifndef TRAPCHECK_BODYSKIP_H
#define TRAPCHECK_BODYSKIP_H

#include <stdbool.h>
#include <stddef.h>

#include <clang-c/Index.h>

struct body_skip;

/*
 * @over: the files libclang is given as unsaved text (a patch's view of
 * the tree, NULL when none): their bodies are noted and blanked in that
 * text, and body_skip_files() gives every one of them.
 */
struct body_skip *body_skip_new(const struct CXUnsavedFile *over,
				unsigned int nr_over);
void body_skip_free(struct body_skip *s);

/*
 * Note the body [@from, @to) of a function defined in @path (a real path;
 * byte offsets, @from at its `{`, @to after its `}`): blanked from the
 * next body_skip_files() on. A range whose text is not a body is ignored.
 */
void body_skip_note(struct body_skip *s, const char *path, unsigned int from,
		    unsigned int to);

/*
 * The headers to parse the next TU with, bodies noted so far blanked,
 * all but @main (the TU's own file, a real path), and the unsaved files
 * given to body_skip_new() (@main's whole). Valid until the next call or
 * body_skip_free(). Returns how many.
 */
unsigned int body_skip_files(struct body_skip *s, const char *main,
			     struct CXUnsavedFile **files);

/* Was the body at @from of @path blanked in the last body_skip_files()? */
bool body_skip_blanked(const struct body_skip *s, const char *path,
		       unsigned int from);

/*
 * The body at @from of @path made a TU parse again: never blank it again
 * in this process (libclang has copied the text it parses already).
 */
void body_skip_never(struct body_skip *s, const char *path,
		     unsigned int from);

/*
 * Counters (a test hook prints them): TUs parsed with some body blanked,
 * of those the TUs parsed again in full, bodies and headers blanked.
 */
struct body_skip_stats {
	unsigned long tus, redone, bodies, files;
};

void body_skip_stats(const struct body_skip *s, struct body_skip_stats *st);
/* Count the TU parsed with the last body_skip_files(); @redone: again. */
void body_skip_count(struct body_skip *s, bool redone);

#endif /* TRAPCHECK_BODYSKIP_H */
