/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --emit-cocci: the verified fixes as one Coccinelle semantic patch for
 * `make coccicheck MODE=patch COCCI=FILE`. Each fix site becomes a rule
 * pinned to its function and its file (a script:python constraint on the
 * position of the function name) whose minus and plus code are the lines
 * the fix replaces and the lines it writes; report, context and org modes
 * point at the sink.
 */
#ifndef TRAPCHECK_COCCI_EMIT_H
#define TRAPCHECK_COCCI_EMIT_H

#include "trapcheck/finding/edit.h"

#include <time.h>

struct cocci_opts {
	const char *tree;	/* named in the header, or NULL */
	time_t date;		/* the Copyright year's (SOURCE_DATE_EPOCH) */
};

/*
 * Write the semantic patch for @sites to @path through a temporary name
 * renamed into place. A site whose edit Coccinelle cannot express is left
 * out: its finding's fix_note says why. Returns
 * the number of rules written, or a negative errno with a message in @err
 * (nothing is left at @path then).
 */
int cocci_emit(const char *path, const struct fix_sites *sites,
	       const struct cocci_opts *o, char *err, size_t errlen);

#endif /* TRAPCHECK_COCCI_EMIT_H */
