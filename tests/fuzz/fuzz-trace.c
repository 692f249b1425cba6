// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-trace.c - the input is a host's trace text (trace.h): the lines of
 * trace-cmd report or tracefs. A bad line is a one-line error naming it;
 * a good trace counts every trap it holds, once.
 */
#include "trapcheck/input/trace.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/base/util.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Every architecture's events: arm64's and x86's lines count. */
	struct trace t = { 0 };
	char *text = xstrndup((const char *)data, size), err[1024];
	unsigned long sum = 0;
	size_t i;
	int ret;

	fuzz_trace_events(&t);
	memset(err, 0x5a, sizeof(err));
	ret = trace_read_text(&t, "fuzz.trace", text, err, sizeof(err));
	fuzz_check_err(err, sizeof(err), ret);
	for (i = 0; i < t.nr; i++) {
		if (!t.sites[i].count || !t.sites[i].what)
			abort();
		sum += t.sites[i].count;
	}
	if (sum != t.total)
		abort();
	trace_free(&t);
	free(text);
	return 0;
}
