// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-compdb.c - the input is a compile_commands.json file: load it with
 * compdb_load() and translate every entry with flags_translate(), as the
 * analysis does before parsing.
 */
#include "fuzz.h"

#include "trapcheck/input/compdb.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256], err[1024];
	struct compdb db;
	size_t i;
	int ret;

	if (!fuzz_temp(path, sizeof(path), "compdb", ".json", data, size))
		return 0;
	memset(err, 0x5a, sizeof(err));
	ret = compdb_load(&db, path, err, sizeof(err));
	unlink(path);
	fuzz_check_err(err, sizeof(err), ret);
	if (ret)
		return 0;
	/* Success means entries under an absolute root. */
	FUZZ_ASSERT(db.nr && db.root && db.root[0] == '/');
	for (i = 0; i < db.nr; i++) {
		const struct compdb_entry *e = &db.entries[i];
		struct clang_args args;
		enum flags_skip skip;
		int j;

		FUZZ_ASSERT(e->argc >= 1 && e->directory[0] == '/' &&
			    e->file[0] == '/');
		skip = flags_translate(e, db.root, &args);
		if (skip == FLAGS_PARSE) {
			/* Every argument is a string; "-w" always ends it. */
			FUZZ_ASSERT(args.argc >= 1 &&
				    !strcmp(args.argv[args.argc - 1], "-w"));
			for (j = 0; j < args.argc; j++)
				FUZZ_ASSERT(args.argv[j]);
			flags_drop_unknown(&args);
		}
		flags_args_free(&args);
	}
	compdb_free(&db);
	return 0;
}
