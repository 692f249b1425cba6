/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flag translation: a gcc command line from the compile database becomes
 * the argument list libclang parses with (table: checker/input/flags.def).
 */
#ifndef TRAPCHECK_FLAGS_H
#define TRAPCHECK_FLAGS_H

#include <stdbool.h>
#include <pthread.h>

#include "trapcheck/input/compdb.h"

enum flag_action {
	FLAG_KEEP,
	FLAG_KEEP_ARG,
	FLAG_DROP,
	FLAG_DROP_ARG,
	FLAG_PATH,
	FLAG_MAP,
	FLAG_UNKNOWN,
};

/* Why an entry is not parsed at all. */
enum flags_skip {
	FLAGS_PARSE = 0,
	FLAGS_SKIP_NOT_C,		/* .s, ..., and .S when not asked */
	FLAGS_SKIP_HOST,		/* scripts/, tools/: host programs */
	FLAGS_SKIP_COMPILER,		/* a compiler the table does not know */
};

struct clang_args {
	char **argv;			/* no argv[0], no source file */
	int argc;
	size_t alloc;
	char **unknown;			/* arguments that matched no line */
	int nr_unknown;
	size_t alloc_unknown;
	char *target;			/* "aarch64-linux-gnu" or NULL (host) */
	bool assembly;			/* an assembly source (.S) */
};

/*
 * Set of flags already warned about: each unknown flag is reported once
 * per run, whichever thread meets it first.
 */
struct flag_warnings {
	pthread_mutex_t lock;
	char **seen;
	size_t nr, alloc;
};

void flags_warnings_init(struct flag_warnings *w);
void flags_warnings_free(struct flag_warnings *w);
/* True the first time @flag is seen. */
bool flags_warn_once(struct flag_warnings *w, const char *flag);

/*
 * Classify one argument; *@spelling_len is the length of the table
 * spelling it matched (what follows is a joined value). Exposed for the
 * unit tests.
 */
enum flag_action flags_classify(const char *arg, const char **replacement,
				size_t *spelling_len);

/* The target triple a compiler name implies, or NULL for a host one. */
char *flags_target_for(const char *compiler, bool *known);

/*
 * Decide whether @e is parsed, relative to the tree @root; when it is,
 * fill @out. Returns one of enum flags_skip.
 */
enum flags_skip flags_translate(const struct compdb_entry *e,
				const char *root, struct clang_args *out);
/* Remove every argument listed in @out->unknown (the retry). */
void flags_drop_unknown(struct clang_args *out);
void flags_args_free(struct clang_args *a);
/*
 * The module kbuild builds the TU into (or would, built in): its
 * KBUILD_MODFILE ("drivers/net/wireless/ath/ath11k/ath11k"), else its
 * KBUILD_MODNAME, as a new string without the quotes; NULL when @a
 * defines neither. *@loadable: @a defines MODULE (an =m object).
 */
char *flags_module(const struct clang_args *a, bool *loadable);

#endif /* TRAPCHECK_FLAGS_H */
