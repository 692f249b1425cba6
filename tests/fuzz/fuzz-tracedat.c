// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-tracedat.c - the input is a trace.dat (trace-cmd's format): its
 * magic is put first when the input lacks it, so that every input goes
 * through libtracecmd, read as trapcheck trace reads it (trace_read():
 * in a child process). A damaged file is a one-line error naming it;
 * one that reads counts every trap it holds, once.
 */
#include "trapcheck/input/trace.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/base/util.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char magic[] = "\027\010Dtracing";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Every architecture's events: arm64's and x86's lines count. */
	struct trace t = { 0 };
	char path[256], err[1024];
	unsigned long sum = 0;
	uint8_t *buf = malloc(size + sizeof(magic));
	size_t n = 0, i;
	int ret;

	fuzz_trace_events(&t);
	if (!buf)
		abort();
	if (size < sizeof(magic) - 1 || memcmp(data, magic, sizeof(magic) - 1)) {
		memcpy(buf, magic, sizeof(magic) - 1);
		n = sizeof(magic) - 1;
	}
	memcpy(buf + n, data, size);
	if (!fuzz_temp(path, sizeof(path), "tracedat", ".dat", buf, n + size)) {
		free(buf);
		return 0;
	}
	memset(err, 0x5a, sizeof(err));
	ret = trace_read(&t, path, err, sizeof(err));
	fuzz_check_err(err, sizeof(err), ret);
	FUZZ_ASSERT(!ret || strstr(err, path) == err);
	for (i = 0; !ret && i < t.nr; i++) {
		FUZZ_ASSERT(t.sites[i].count && t.sites[i].what);
		sum += t.sites[i].count;
	}
	FUZZ_ASSERT(ret || sum == t.total);
	trace_free(&t);
	unlink(path);
	free(buf);
	return 0;
}
