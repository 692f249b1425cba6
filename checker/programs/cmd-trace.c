// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-trace.c - trapcheck trace TRACE --vmlinux FILE (-p TREE | --db
 * FILE): a KVM host's trace of a guest's traps (trace.h), each guest PC
 * placed in the source with the guest's vmlinux (dwsym.h), joined with
 * the static findings of the same tree: per trapped site its count and
 * whether trapcheck reports it (or why not), and the findings the trace
 * never saw.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/base/util.h"
#include "trapcheck/input/dwsym.h"
#include "trapcheck/input/trace.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/output/trace-report.h"
#include "trapcheck/pipeline/tracejoin.h"

/* The offset to subtract from the trace's PCs, given or inferred. */
static int kaslr_offset(const struct prog *p, const struct trace *t,
			struct dwsym *d, unsigned long long *off)
{
	unsigned long long text;
	char err[512];

	if (p->kaslr_given) {
		*off = p->kaslr;
		return 0;
	}
	if (p->guest_text_given) {
		if (!dwsym_symbol(d, "_text", &text)) {
			diag_error("%s: no _text symbol: give --kaslr-offset",
				   p->vmlinux);
			return -EINVAL;
		}
		*off = p->guest_text - text;
		return 0;
	}
	if (trace_kaslr_infer(t, d, off, err, sizeof(err))) {
		diag_error("%s: %s", p->words[0], err);
		return -EINVAL;
	}
	return 0;
}

static int trace_mode(struct prog *p, struct analysis *a)
{
	struct trace t = { 0 };
	struct trace_report j = { 0 };
	struct dwsym *d = NULL;
	struct out_file of = { 0 };
	struct summary sum;
	unsigned long long kaslr = 0;
	char err[1024];
	FILE *out = stdout;
	int ret;

	t.events = arch_current()->trace_events;
	t.nr_events = arch_current()->nr_trace_events;
	t.kinds = arch_current()->trace_kinds;
	t.nr_kinds = arch_current()->nr_trace_kinds;
	ret = trace_read(&t, p->words[0], err, sizeof(err));
	if (ret) {
		diag_error("%s", err);
		ret = TC_EXIT_USAGE;
		goto out_free_trace;
	}
	ret = dwsym_open(&d, p->vmlinux, err, sizeof(err));
	if (ret) {
		diag_error("%s", err);
		ret = TC_EXIT_USAGE;
		goto out_free_trace;
	}
	if (kaslr_offset(p, &t, d, &kaslr)) {
		ret = TC_EXIT_USAGE;
		goto out_close;
	}
	tracejoin_run(&j, &t, d, a, kaslr);
	tracejoin_measure(&a->findings, &j, p->rank_measured);
	tracejoin_measure(&a->low, &j, p->rank_measured);
	if (p->output) {
		ret = out_open(&of, p->output);
		if (ret) {
			diag_error("%s: cannot write: %s", p->output,
				   strerror(-ret));
			ret = TC_EXIT_OUTPUT;
			goto out_close;
		}
		out = of.f;
	}
	analysis_summary(a, &sum);
	if (!strcmp(p->format, "json"))
		ret = trace_report_json(out, &j, &a->findings, &a->low);
	else if (!strcmp(p->format, "sarif"))
		ret = trace_report_sarif(out, &j, &a->findings, &a->low,
					 &sum, a->root);
	else
		ret = trace_report_text(out, &j, &a->findings);
	if (p->output) {
		if (ret)
			out_abort(&of);
		else
			ret = out_close(&of);
	} else if (fflush(out)) {
		ret = -EIO;
	}
	ret = ret ? TC_EXIT_OUTPUT : TC_EXIT_CLEAN;
	if (ret)
		diag_error("%s: cannot write the report",
			   p->output ? p->output : "stdout");
	trace_report_summary(&j, &a->findings);
out_close:
	trace_report_free(&j);
	dwsym_close(d);
out_free_trace:
	trace_free(&t);
	return ret;
}

int cmd_trace(struct prog *p)
{
	const char *in[2] = { p->words[0], p->vmlinux };
	const char *what[2] = { "the trace", "the vmlinux" };
	size_t i;

	if (!p->vmlinux) {
		diag_error("trace: --vmlinux FILE (the guest's, with DWARF) is "
			   "needed");
		return TC_EXIT_USAGE;
	}
	/*
	 * Before the tree is analysed: a wrong path costs no parse, and a
	 * FIFO or a device is refused at once.
	 */
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		char err[1024];
		FILE *f;

		if (input_open(in[i], what[i], 0, &f, err, sizeof(err)))
			return prog_fail(err, TC_EXIT_USAGE);
		fclose(f);
	}
	return prog_analysed(p, trace_mode);
}
