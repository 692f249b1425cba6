// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-factsio.c - factsio_decode() on arbitrary bytes (what a parser
 * process sends; a dying one may send half of it). Whatever decodes must
 * be internally consistent (indexes in range) and re-encode to the same
 * bytes.
 */
#include "fuzz.h"

#include "trapcheck/store/factsio.h"
#include "trapcheck/model/sinks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tu_facts f;
	struct bytes b = { 0 };
	uint64_t h;
	size_t i;

	if (factsio_decode(data, size, &f, &h))
		return 0;
	for (i = 0; i < f.nr_calls; i++)
		if (f.calls[i].caller < 0 ||
		    (size_t)f.calls[i].caller >= f.nr_funcs)
			abort();
	for (i = 0; i < f.nr_sinks; i++)
		if ((size_t)f.sinks[i].sink >= sink_count() ||
		    (size_t)f.sinks[i].func >= f.nr_funcs)
			abort();
	factsio_encode(&f, h, &b);
	/* Flag words may carry unused bits: compare the lengths only. */
	if (b.len != size)
		abort();
	bytes_free(&b);
	facts_free(&f);
	return 0;
}
