// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-baseline.c - the input is a baseline file: baseline_apply() on a
 * temporary file against an empty list of findings.
 */
#include "fuzz.h"

#include "trapcheck/output/baseline.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct findings fs = { 0 };
	struct baseline_stats sum;
	char path[256], err[1024];
	int ret;

	memset(&sum, 0, sizeof(sum));
	if (!fuzz_temp(path, sizeof(path), "baseline", ".json", data, size))
		return 0;
	memset(err, 0x5a, sizeof(err));
	ret = baseline_apply(path, NULL, &fs, &sum, err, sizeof(err));
	unlink(path);
	fuzz_check_err(err, sizeof(err), ret);
	/* Against no findings, nothing can be known. */
	FUZZ_ASSERT(ret || (sum.baseline && !sum.known && !fs.nr));
	findings_free(&fs);
	return 0;
}
