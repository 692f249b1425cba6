/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace-internal.h - what the files of a trace's reading share (not
 * public API: include/trapcheck/input/trace.h is):
 *
 *   trace.c       event lines into counts: trace-cmd report's and
 *                 tracefs's text, the events a trace.dat prints
 *   trace-dat.c   a trace.dat: its layout checked, read with libtracecmd
 *   trace-read.c  a file, in a child process, under the limits below
 *
 * Each calls only those listed before it.
 */
#ifndef TRAPCHECK_TRACE_INTERNAL_H
#define TRAPCHECK_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trapcheck/input/trace.h"
#include "trapcheck/base/util.h"

/* CPUs whose MSR exit waits for its kvm_msr line. */
#define TRACE_CPUS	4096

/* The limits of docs/trace.md: a line, sites, the reader's memory. */
#define TRACE_MAX_LINE		65536
#define TRACE_MAX_LINE_TEXT	"65536"
#define TRACE_MAX_SITES		1000000
#define TRACE_MAX_SITES_TEXT	"1000000"
#define TRACE_MAX_MEMORY	(4ULL << 30)
/* The reader's time: this, and a second more per MiB of the file. */
#define TRACE_BASE_SECONDS	10ULL

#if defined(__SANITIZE_ADDRESS__)
/* ASan maps terabytes of shadow: no address-space limit then. */
#define TRAPCHECK_SANITIZED 1
#endif

struct reader {
	struct trace *t;
	struct strmap index;	/* "pc kind what" -> sites[] */
	/* Per CPU: the PC of an MSR read exit not yet counted, or 0. */
	unsigned long long *msr_pc;
	const char *name;
	unsigned long lineno;
	char *err;
	size_t errlen;
};

/* kvm_sys_access's fields, in the order they are read (trace.c). */
#define TRACE_SYSREG_FIELDS	7
extern const char *const trace_sysreg_fields[TRACE_SYSREG_FIELDS];

/* trace.dat's magic: \027\010D, then "tracing" (trace-dat.c). */
#define TRACE_DAT_MAGIC_LEN	10
extern const char trace_dat_magic[TRACE_DAT_MAGIC_LEN + 1];

/* trace.c */
int trace_bad(struct reader *r, const char *why);
int trace_too_long(struct reader *r);
void trace_reader_init(struct reader *r, struct trace *t, const char *name,
		       char *err, size_t errlen);
int trace_reader_done(struct reader *r, int ret);
int trace_read_event(struct reader *r, unsigned int cpu, const char *event,
		     const char *payload);
int trace_read_line(struct reader *r, char *line);
int trace_read_text_file(struct trace *t, const char *path, FILE *f,
			 char *err, size_t errlen);

/* trace-dat.c */
int trace_read_dat(struct trace *t, const char *path, char *err,
		   size_t errlen);
int trace_dat_check(const char *path, int fd, unsigned long long size,
		    char *err, size_t errlen);

#endif /* TRAPCHECK_TRACE_INTERNAL_H */
