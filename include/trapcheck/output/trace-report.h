/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trapcheck trace's report: the source lines a hypervisor trace saw trap
 * (a guest's PCs placed with its vmlinux: pipeline/tracejoin.h), each
 * with its count and whether trapcheck reports it or why not, and the
 * findings with what the trace counted at their lines; as text, JSON, or
 * the findings' SARIF with a rule "trace-missed" for the missed lines.
 */
#ifndef TRAPCHECK_TRACE_REPORT_H
#define TRAPCHECK_TRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "trapcheck/finding/finding.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/input/trace.h"

/* A trapped source line: the trace's sites at PCs of one line, summed. */
struct trace_line {
	const char *file, *func, *what;
	int line;
	const char *kind;	/* the trace kind's name: "sysreg" */
	unsigned long count;
	/*
	 * The finding there (its rule and root set, which outlive the
	 * findings' order: --rank sorts them), or none; a note?
	 */
	bool reported;
	const char *rule, *root;
	bool note;
	const char *why;		/* missed: why trapcheck cannot tell */
};

struct trace_report {
	struct trace_line *v;
	size_t nr, alloc;
	unsigned long total, unplaced;	/* traps; at no source line */
};

/*
 * The entry of @what at @file:@line (strings not copied: they must
 * outlive @r), added with a count of 0 when new.
 */
struct trace_line *trace_report_line(struct trace_report *r,
				     const char *file, int line,
				     const char *func, const char *what,
				     const char *kind);
/* The busiest lines first; among equals by file and line. */
void trace_report_sort(struct trace_report *r);
/* @n traps as a percentage of the trace's. */
double trace_report_share(const struct trace_report *r, unsigned long n);
/* How often the trace saw finding @f's line. */
unsigned long trace_report_count(const struct trace_report *r,
				 const struct finding *f);

/* The emitters: 0, or -EIO. @fs: the warnings, @low: the notes. */
int trace_report_text(FILE *out, const struct trace_report *r,
		      const struct findings *fs);
int trace_report_json(FILE *out, const struct trace_report *r,
		      const struct findings *fs, const struct findings *low);
int trace_report_sarif(FILE *out, const struct trace_report *r,
		       const struct findings *fs, const struct findings *low,
		       const struct summary *sum, const char *root);
/* The run's one line on stderr, whatever the format. */
void trace_report_summary(const struct trace_report *r,
			  const struct findings *fs);
void trace_report_free(struct trace_report *r);

#endif /* TRAPCHECK_TRACE_REPORT_H */
