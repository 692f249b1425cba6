// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-waivers.c - the input is a waivers file for waivers_load().
 */
#include "fuzz.h"

#include "trapcheck/output/baseline.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct waivers w = { 0 };
	char path[256], err[1024];
	size_t i;
	int ret;

	if (!fuzz_temp(path, sizeof(path), "waivers", "", data, size))
		return 0;
	memset(err, 0x5a, sizeof(err));
	ret = waivers_load(&w, path, err, sizeof(err));
	unlink(path);
	fuzz_check_err(err, sizeof(err), ret);
	for (i = 0; i < w.nr; i++) {
		const struct waiver *v = &w.v[i];

		/* Each waiver: a rule, a function or a file, a reason. */
		FUZZ_ASSERT(v->rule && *v->rule && v->reason && *v->reason &&
			    v->origin && !v->func != !v->file);
	}
	waivers_free(&w);
	return 0;
}
