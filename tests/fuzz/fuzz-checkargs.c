// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-checkargs.c - arbitrary command lines through "trapcheck check"'s
 * parser: the input split on NUL bytes is the argument vector after
 * "check" (an odd number of words also sets TRAPCHECK_DB's default);
 * check_args_parse() on it, and on success flags_translate() on the
 * compile command it made, as cmd-check.c does.
 */
#include "fuzz.h"

#include "trapcheck/input/checkargs.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* What a successful parse promises. */
static void check_parsed(const struct check_args *ca)
{
	int i;

	FUZZ_ASSERT(!ca->error);
	FUZZ_ASSERT(ca->dbpath && ca->dbpath[0]);
	FUZZ_ASSERT(ca->file && ca->file[0] != '-');
	FUZZ_ASSERT(ends_with(ca->file, ".c") && strlen(ca->file) > 2);
	FUZZ_ASSERT(ca->argc >= 2);
	for (i = 0; i < ca->argc; i++)
		FUZZ_ASSERT(ca->argv[i]);
	FUZZ_ASSERT(!strcmp(ca->argv[ca->argc - 1], ca->file));
	FUZZ_ASSERT(ends_with(ca->argv[0], "gcc"));
	if (ca->target) {
		FUZZ_ASSERT(!strncmp(ca->argv[0], ca->target,
				     strlen(ca->target)));
	} else {
		FUZZ_ASSERT(!strcmp(ca->argv[0], "gcc"));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), **argv;
	struct check_args ca;
	struct compdb_entry e;
	struct clang_args args;
	size_t nr = 1, i, at;
	int argc = 1;

	/* Words: what lies between NULs (the last one ends the input). */
	for (i = 0; i < size; i++)
		nr += !data[i];
	argv = xcalloc(nr + 1, sizeof(*argv));
	argv[0] = (char *)"check";
	for (at = 0; at <= size; at += strlen(s + at) + 1)
		argv[argc++] = s + at;

	if (check_args_parse(&ca, argc, argv, argc % 2 ? "env.db" : NULL)) {
		FUZZ_ASSERT(ca.error && ca.error[0]);
		FUZZ_ASSERT(!strchr(ca.error, '\n'));
		check_args_free(&ca);
		free(argv);
		free(s);
		return 0;
	}
	check_parsed(&ca);
	for (i = 1; i < (size_t)argc; i++) {
		bool known;
		const char *target = check_flag_classify(argv[i], &known);

		FUZZ_ASSERT(!target || known);
	}

	e.directory = (char *)"/src/linux";
	e.file = path_join(e.directory, ca.file);
	e.argv = ca.argv;
	e.argc = ca.argc;
	if (flags_translate(&e, e.directory, &args) == FLAGS_PARSE) {
		FUZZ_ASSERT(args.argc >= 1);
		FUZZ_ASSERT(!strcmp(args.argv[args.argc - 1], "-w"));
	}
	flags_args_free(&args);
	free(e.file);
	check_args_free(&ca);
	free(argv);
	free(s);
	return 0;
}
