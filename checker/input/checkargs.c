// SPDX-License-Identifier: GPL-2.0
/*
 * checkargs.c - the command line of "trapcheck check" (kbuild's CHECK
 * protocol): our options, sparse's CHECKFLAGS, gcc's flags with their
 * separate arguments, and the one source file.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/checkargs.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

enum check_flag_match { EXACT, PREFIX };

static const struct {
	const char *spelling;
	enum check_flag_match match;
	const char *target;
} check_flags[] = {
#define CHECKFLAG(s, m, t) { s, m, t },
#include "checkflags.def"
#undef CHECKFLAG
};

const char *check_flag_classify(const char *arg, bool *known)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(check_flags); i++) {
		const char *s = check_flags[i].spelling;

		if (check_flags[i].match == EXACT ? !strcmp(arg, s) :
		    !strncmp(arg, s, strlen(s))) {
			*known = true;
			return check_flags[i].target;
		}
	}
	*known = false;
	return NULL;
}

/*
 * kbuild's c_flags begin with the dependency file option
 * ("-Wp,-MMD,<dir>/.<file>.o.d", scripts/Makefile.lib); older trees
 * spelled it -MD.
 */
static bool is_c_flags_start(const char *arg)
{
	return !strncmp(arg, "-Wp,-MMD,", 9) || !strncmp(arg, "-Wp,-MD,", 8);
}

static bool is_c_source(const char *arg)
{
	size_t n = strlen(arg);

	return n > 2 && !strcmp(arg + n - 2, ".c");
}

/* Does @arg, a gcc flag, take the next argument as its value? */
static bool takes_value(const char *arg)
{
	const char *rep;
	size_t n;

	switch (flags_classify(arg, &rep, &n)) {
	case FLAG_KEEP_ARG:
	case FLAG_DROP_ARG:
	case FLAG_PATH:
		return arg[n] == '\0';
	default:
		return false;
	}
}

static void push(struct check_args *ca, const char *arg)
{
	*PUSH(ca->argv, ca->argc, ca->alloc) = arg ? xstrdup(arg) : NULL;
}

/* Set @ca's error to @msg (taken), made one line; returns -1. */
static int usage(struct check_args *ca, char *msg)
{
	one_line(msg);
	free(ca->error);
	ca->error = msg;
	return -1;
}

/* Every source file named: "'a.c', 'b.c'". */
static char *list_files(char *const *files, size_t nr)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < nr; i++) {
		t = xasprintf("%s%s'%s'", s, i ? ", " : "", files[i]);
		free(s);
		s = t;
	}
	return s;
}

/* Our own options; 1 when @argv[*i] was one (*i past its value). */
static int our_option(struct check_args *ca, int argc, char *const *argv,
		      int *i, int *err)
{
	const char *a = argv[*i];

	*err = 0;
	if (!strcmp(a, "--fail")) {
		ca->fail = true;
	} else if (!strcmp(a, "-q")) {
		ca->quiet = true;
	} else if (!strncmp(a, "--db=", 5)) {
		if (!a[5])
			*err = usage(ca, xstrdup("--db= names no file"));
		ca->dbpath = a + 5;
	} else if (!strcmp(a, "--db")) {
		if (*i + 1 >= argc || !argv[*i + 1][0])
			*err = usage(ca, xstrdup("--db names no file"));
		else
			ca->dbpath = argv[++*i];
	} else {
		return 0;
	}
	return 1;
}

int check_args_parse(struct check_args *ca, int argc, char *const *argv,
		     const char *default_db)
{
	char **files = NULL;
	size_t nr_files = 0, alloc_files = 0;
	bool marked = false, checkflags = true;
	int i, err = 0;

	memset(ca, 0, sizeof(*ca));
	if (default_db && default_db[0])
		ca->dbpath = default_db;
	push(ca, NULL);		/* the compiler: the target names it */
	for (i = 1; i < argc; i++)
		if (is_c_flags_start(argv[i]))
			marked = true;

	for (i = 1; i < argc && !err; i++) {
		const char *a = argv[i], *target;
		bool known;

		if (our_option(ca, argc, argv, &i, &err))
			continue;
		if (!a[0])
			continue;	/* an empty word says nothing */
		if (is_c_flags_start(a))
			checkflags = false;
		target = check_flag_classify(a, &known);
		if (target)
			ca->target = target;
		/*
		 * CHECKFLAGS: what comes before c_flags; without kbuild's
		 * mark, the leading arguments the table knows.
		 */
		if (checkflags && !known && !marked)
			checkflags = false;
		if (checkflags && known) {
			ca->nr_checkflags++;
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			if (is_c_source(a))
				*PUSH(files, nr_files, alloc_files) =
					(char *)a;
			else
				push(ca, a);	/* gcc's business */
			continue;
		}
		push(ca, a);
		if (!takes_value(a))
			continue;
		if (i + 1 >= argc) {
			err = usage(ca, xasprintf("'%s' needs an argument",
						  a));
			break;
		}
		push(ca, argv[++i]);
	}

	if (!err && nr_files > 1) {
		char *list = list_files(files, nr_files);

		err = usage(ca, xasprintf("%zu source files: %s", nr_files,
					  list));
		free(list);
	} else if (!err && !nr_files) {
		err = usage(ca, xstrdup("no source file (file.c)"));
	} else if (!err && !ca->dbpath) {
		err = usage(ca, xstrdup("no database (--db=FILE)"));
	}
	if (!err) {
		ca->file = files[0];
		ca->argv[0] = ca->target ? xasprintf("%s-gcc", ca->target) :
					   xstrdup("gcc");
		push(ca, ca->file);
	}
	free(files);
	return err;
}

void check_args_free(struct check_args *ca)
{
	strv_free(ca->argv, ca->argc);
	free(ca->error);
	memset(ca, 0, sizeof(*ca));
}
