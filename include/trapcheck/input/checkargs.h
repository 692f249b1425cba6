/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of kbuild's CHECK protocol, "trapcheck check":
 *
 *	$(CHECK) $(CHECKFLAGS) $(c_flags) file.c
 *
 * with trapcheck's own options (--db=FILE, --fail, -q) among gcc's
 * flags. Options that take a separate argument are known from
 * checker/input/flags.def (flags_classify()), so the value of "-include
 * lib/vdso/getrandom.c" is not the file; sparse's CHECKFLAGS
 * (checker/input/checkflags.def) are dropped, the target they name kept.
 */
#ifndef TRAPCHECK_CHECKARGS_H
#define TRAPCHECK_CHECKARGS_H

#include <stdbool.h>

struct check_args {
	const char *dbpath;	/* --db=FILE, or the default given */
	const char *file;	/* the source file, as given */
	const char *target;	/* the triple CHECKFLAGS name, or NULL */
	bool fail, quiet;	/* --fail, -q */
	/*
	 * The compile command for flags_translate(): the compiler
	 * ("<target>-gcc", or "gcc"), gcc's flags, the file last.
	 */
	char **argv;
	int argc;
	size_t alloc;
	int nr_checkflags;	/* sparse's flags dropped */
	char *error;		/* a usage error: what is wrong (one line) */
};

/*
 * Read @argv (argv[0] is the mode's name, "check") into @ca; @default_db
 * (the environment's TRAPCHECK_DB, or NULL) when --db is not given.
 * Returns 0, or -1 with @ca->error set. Either way, free @ca with
 * check_args_free().
 */
int check_args_parse(struct check_args *ca, int argc, char *const *argv,
		     const char *default_db);
void check_args_free(struct check_args *ca);

/*
 * The target triple a CHECKFLAGS argument names ("-D__aarch64__" ->
 * "aarch64-linux-gnu"), or NULL; *@known says whether the argument is
 * one of sparse's CHECKFLAGS at all. Exposed for the unit tests.
 */
const char *check_flag_classify(const char *arg, bool *known);

#endif /* TRAPCHECK_CHECKARGS_H */
