// SPDX-License-Identifier: GPL-2.0
/*
 * extract-macros.c - the macros a TU expands or tests (model/macroset.h):
 * each name of a macro expansion in its preprocessing record, kept as a
 * hash, the set stored with the TU's facts at the end of the walk.
 * libclang records the outermost expansion only, and a test of a macro
 * only while it is defined: what those expand in turn, and names that
 * become macros, are the lint's to follow (pipeline/analyze.c,
 * model/macrodefs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/macroset.h"
#include "trapcheck/base/util.h"

#include "extract-internal.h"

void extract_macro_use(struct walk *w, const char *name)
{
	*PUSH(w->mhash, w->nr_mhash, w->alloc_mhash) =
		macroset_hash(name, strlen(name));
}

void extract_macro_set(struct walk *w)
{
	*PUSH(w->out->macros, w->out->nr_macros, w->out->alloc_macros) =
		macroset_encode(w->mhash, w->nr_mhash);
}
