// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-flags.c - arbitrary strings through the command-line code: the
 * input's first line is a compiler name for flags_target_for(), the rest
 * a shell command split by compdb_split_command(); every word goes
 * through flags_classify() and the whole argv through flags_translate().
 */
#include "fuzz.h"

#include "trapcheck/input/compdb.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *nl, *cmd, *target;
	char **argv = NULL;
	struct compdb_entry e;
	struct clang_args args;
	bool known;
	int argc, i;

	nl = strchr(s, '\n');
	cmd = nl ? nl + 1 : s;
	if (nl)
		*nl = '\0';

	target = flags_target_for(s, &known);
	FUZZ_ASSERT(!target || known);	/* a triple: a known compiler */
	free(target);

	argc = compdb_split_command(cmd, &argv);
	if (argc < 0) {
		FUZZ_ASSERT(!argv);
		free(s);
		return 0;
	}
	for (i = 0; i < argc; i++) {
		const char *rep;
		size_t n;
		enum flag_action act = flags_classify(argv[i], &rep, &n);

		FUZZ_ASSERT(argv[i]);
		FUZZ_ASSERT(n <= strlen(argv[i]));	/* a prefix of it */
		FUZZ_ASSERT(act != FLAG_MAP || rep);
		FUZZ_ASSERT(act != FLAG_UNKNOWN || !n);
	}
	if (argc > 0) {
		/* As a compile database entry would hold it. */
		e.directory = (char *)"/src/linux";
		e.file = path_join(e.directory, argv[argc - 1]);
		e.argv = argv;
		e.argc = argc;
		flags_translate(&e, "/src/linux", &args);
		flags_args_free(&args);
		free(e.file);
	}
	compdb_free_argv(argv, argc);
	free(s);
	return 0;
}
