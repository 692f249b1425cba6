// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-roots.c - the input is a roots file: roots_load_file() on a
 * temporary file, twice (a set of the same name gains the functions).
 */
#include "fuzz.h"

#include "trapcheck/input/roots.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_ident(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct root_sets rs = { 0 };
	char path[256], err[1024];
	size_t i, j, first = 0;
	int ret;

	if (!fuzz_temp(path, sizeof(path), "set", ".roots", data, size))
		return 0;
	memset(err, 0x5a, sizeof(err));
	ret = roots_load_file(&rs, path, err, sizeof(err));
	fuzz_check_err(err, sizeof(err), ret);
	if (!ret) {
		first = rs.nr ? rs.sets[0].nr : 0;
		ret = roots_load_file(&rs, path, err, sizeof(err));
		fuzz_check_err(err, sizeof(err), ret);
		/* Loading the same file again: one set, twice the names. */
		FUZZ_ASSERT(!ret && rs.nr == 1 && rs.sets[0].nr == 2 * first);
	}
	unlink(path);
	for (i = 0; i < rs.nr; i++) {
		char name[64];

		snprintf(name, sizeof(name), "trapcheck-fuzz-%d-set",
			 (int)getpid());
		FUZZ_ASSERT(!strcmp(rs.sets[i].name, name));	/* the file's */
		for (j = 0; j < rs.sets[i].nr; j++)
			FUZZ_ASSERT(is_ident(rs.sets[i].funcs[j]));
	}
	roots_free(&rs);
	return 0;
}
