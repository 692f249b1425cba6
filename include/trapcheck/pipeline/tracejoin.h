/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trapcheck trace: a KVM host's trace of a guest's traps (input/trace.h),
 * each guest PC placed in the source with the guest's vmlinux (dwsym.h),
 * joined with the static findings of the same tree into the report of
 * output/trace-report.h.
 */
#ifndef TRAPCHECK_TRACEJOIN_H
#define TRAPCHECK_TRACEJOIN_H

#include <stdbool.h>

#include "trapcheck/output/trace-report.h"
#include "trapcheck/pipeline/analyze.h"

struct dwsym;

/*
 * Place each of @t's PCs less @kaslr with @d (a sink wrapper inlined into
 * its caller placed at the call: trapcheck reports the call), sum them
 * per source line into @r, and say of each line whether @a reports it or
 * why not; the busiest lines first.
 */
void tracejoin_run(struct trace_report *r, const struct trace *t,
		struct dwsym *d, const struct analysis *a,
		unsigned long long kaslr);
/*
 * Each finding of @fs the count @r has at its line; with @rank, the
 * busiest first (stable: the estimate's order among equals).
 */
void tracejoin_measure(struct findings *fs, const struct trace_report *r,
		   bool rank);

#endif /* TRAPCHECK_TRACEJOIN_H */
