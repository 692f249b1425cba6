/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hypervisor traces of a guest's traps, as text: the lines of `trace-cmd
 * report` or of tracefs's trace file, or a trace.dat whose events are
 * printed as trace-cmd report prints them. Which events record a trap,
 * and how each says where and of what, is the run's architecture's
 * (struct trace_event: arm64's kvm_sys_access, x86's kvm_exit with
 * kvm_msr, in checker/arch/<name>/); other events are skipped; a line
 * that is no event line, no comment and no header of either format is an
 * error naming the line.
 */
#ifndef TRAPCHECK_TRACE_H
#define TRAPCHECK_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/input/dwsym.h"

/*
 * A kind of trap a host's trace records ("sysreg", "cpuid", "msr"): its
 * trapping instruction in the guest's code, and the granularity by which
 * the guest's KASLR moves it (arm64 64 KiB, x86 2 MiB).
 */
struct trace_kind_def {
	const char *name;
	struct dwsym_insn insn;
	unsigned long long kaslr_align;
};

/* The traps at one guest PC of one kind and register: how many. */
struct trace_site {
	unsigned long long pc;
	unsigned int kind;	/* into trace.kinds */
	char *what;		/* "ID_AA64MMFR1_EL1", "CPUID", "MSR 0x48" */
	unsigned long count;
};

struct trace_reader;

/*
 * An event of a host's trace that records traps: its name and the parser
 * of its payload (what follows "name: " on its line), which counts each
 * trap with trace_count() and returns 0, or trace_bad()'s error. A
 * trace.dat event libtraceevent cannot print is given as
 * "[FAILED TO PARSE] f=0x.. ..." with @raw_fields.
 */
struct trace_event {
	const char *name;
	int (*parse)(struct trace_reader *r, unsigned int cpu,
		     const char *payload);
	const char *const *raw_fields;
	size_t nr_raw_fields;
};

/* For an event's parser: one trap of @kind at @pc, of @what. */
int trace_count(struct trace_reader *r, unsigned long long pc,
		unsigned int kind, const char *what);
/* The line is bad: "FILE:LINE: @why" as the error; -EINVAL. */
int trace_bad(struct trace_reader *r, const char *why);
/*
 * A trap whose @what a later event of the same CPU says (x86: an MSR
 * exit, then kvm_msr): trace_pend() keeps it (false: the CPU is past
 * those it keeps one for, count it now), trace_take() gives it back
 * (false when none is waiting), trace_flush() counts it as it is (the
 * reader does at the end, for those still waiting).
 */
bool trace_pend(struct trace_reader *r, unsigned int cpu,
		unsigned long long pc, unsigned int kind, const char *what);
bool trace_take(struct trace_reader *r, unsigned int cpu,
		unsigned long long *pc, unsigned int *kind);
int trace_flush(struct trace_reader *r, unsigned int cpu);
/* A hexadecimal number at @p ("0x" optional); its end in *@end. */
bool trace_hex(const char *p, unsigned long long *v, const char **end);
/* "key=VALUE" of a raw field list; false when absent or no number. */
bool trace_raw_field(const char *p, const char *key, unsigned long long *v);

struct trace {
	/* In: the events that record traps, and the kinds they count. */
	const struct trace_event *events;
	size_t nr_events;
	const struct trace_kind_def *kinds;
	size_t nr_kinds;
	/* Out: */
	struct trace_site *sites;
	size_t nr, alloc;
	unsigned long total;	/* traps counted */
	unsigned long lines;	/* event lines read */
};

/*
 * Count the traps of trace file @path into @t. Returns 0, or -EINVAL
 * with "FILE:LINE: why" in @err (a line that is no trace line, a trap
 * event whose fields do not parse), or -errno (unreadable).
 */
int trace_read(struct trace *t, const char *path, char *err, size_t errlen);
/* Count the traps of the lines of @text (for the fuzz target). */
int trace_read_text(struct trace *t, const char *name, const char *text,
		    char *err, size_t errlen);
void trace_free(struct trace *t);

/*
 * The KASLR offset that puts the most of the trace's busiest PCs on a
 * trapping instruction of the vmlinux (its kind's, trace.kinds): each PC
 * votes for every offset, a multiple of the randomisation's granularity,
 * that places it on one (trace-kaslr.c). 0 when the trace has no trap or
 * the PCs are where the vmlinux has them; -EINVAL with a message in @err
 * when no offset stands out.
 */
int trace_kaslr_infer(const struct trace *t, struct dwsym *d,
		      unsigned long long *off, char *err, size_t errlen);

#endif /* TRAPCHECK_TRACE_H */
