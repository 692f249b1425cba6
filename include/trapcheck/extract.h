/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TU extraction: parse one translation unit with libclang and record its
 * function definitions, direct call edges and sink sites. The AST is
 * disposed before extract_tu() returns; only these facts outlive it.
 */
#ifndef TRAPCHECK_EXTRACT_H
#define TRAPCHECK_EXTRACT_H

#include <pthread.h>
#include <stdbool.h>

#include <clang-c/Index.h>

#include "trapcheck/facts.h"
#include "trapcheck/flags.h"
#include "trapcheck/util.h"

/*
 * Functions defined outside a TU's main file (static inline functions in
 * headers) are extracted once per run: the first TU to claim one visits
 * its body, the others skip it.
 */
struct claims {
	pthread_mutex_t lock;
	struct strmap set;
};

void claims_init(struct claims *c);
void claims_free(struct claims *c);
/* True when @key is unclaimed (it becomes @owner's) or @owner's already. */
bool claims_take(struct claims *c, const char *key, int owner);

struct extract_opts {
	const char *root;		/* tree root, for relative paths */
	struct claims *claims;		/* NULL: extract every body */
	int owner;			/* who claims: the TU's index */
	struct flag_warnings *warnings;	/* unknown flag reporting */
	bool defer_warnings;		/* into tu_facts.warnings instead */
	/* Files parsed with these contents instead of the disk's. */
	struct CXUnsavedFile *unsaved;
	unsigned int nr_unsaved;
};

/*
 * Parse @file with @args through @idx and fill @out. Returns 0 when a
 * TU was built (possibly with errors, counted in @out), or a negative
 * code when libclang could not build one (@out->parse_error says why).
 */
int extract_tu(CXIndex idx, const char *file, struct clang_args *args,
	       const struct extract_opts *opts, struct tu_facts *out);
const char *cx_error_name(int code);

#endif /* TRAPCHECK_EXTRACT_H */
