// SPDX-License-Identifier: GPL-2.0
/*
 * trace-dat.c - a trace.dat of trace-cmd record: its layout checked
 * (trace-cmd.dat.v6(5)) before libtracecmd reads it, then every CPU's
 * records in time order, each printed and given to trace.c's parser.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "trace-internal.h"

/* trace.dat's magic: \027\010D, then "tracing". */
const char trace_dat_magic[TRACE_DAT_MAGIC_LEN + 1] = "\027\010Dtracing";

struct dat_reader {
	struct reader *r;
	struct tep_handle *tep;
	struct trace_seq seq;
	int ret;
};

/*
 * kvm_sys_access's fields, as the raw field list its print format gives
 * way to (sys_access_raw()): the format is not one libtraceevent parses.
 */
static void dat_sys_access(struct dat_reader *d, struct tep_event *ev,
			   struct tep_record *rec)
{
	unsigned long long v;
	size_t i;

	trace_seq_puts(&d->seq, "[FAILED TO PARSE]");
	for (i = 0; i < TRACE_SYSREG_FIELDS; i++)
		if (!tep_get_field_val(NULL, ev, trace_sysreg_fields[i], rec, &v, 0))
			trace_seq_printf(&d->seq, " %s=0x%llx",
					 trace_sysreg_fields[i], v);
}

/* Each record, in time order: its event printed, then parsed as text. */
static int dat_record(struct tracecmd_input *h, struct tep_record *rec,
		      int cpu, void *data)
{
	struct dat_reader *d = data;
	struct tep_event *ev = tep_find_event_by_record(d->tep, rec);

	d->r->lineno++;
	if (!ev || (strcmp(ev->name, "kvm_sys_access") &&
		    strcmp(ev->name, "kvm_exit") &&
		    strcmp(ev->name, "kvm_msr"))) {
		d->r->t->lines += ev != NULL;
		return 0;
	}
	trace_seq_reset(&d->seq);
	if (!strcmp(ev->name, "kvm_sys_access"))
		dat_sys_access(d, ev, rec);
	else
		tep_print_event(d->tep, &d->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&d->seq);
	d->ret = trace_read_event(d->r, (unsigned int)cpu, ev->name,
			    d->seq.buffer);
	return d->ret ? -1 : 0;
}

/*
 * A trace.dat of trace-cmd record: every CPU's records in time order
 * (tracecmd_iterate_events()). An error names the record by its number.
 */
int trace_read_dat(struct trace *t, const char *path, char *err,
			  size_t errlen)
{
	struct tracecmd_input *h;
	struct dat_reader d = { 0 };
	struct reader r;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* The kernel's own print formats, not trace-cmd's kvm plugin. */
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		snprintf(err, errlen, "%s: a trace.dat that libtracecmd "
			 "cannot read", path);
		return -EINVAL;
	}
	trace_reader_init(&r, t, path, err, errlen);
	d.r = &r;
	d.tep = tracecmd_get_tep(h);
	trace_seq_init(&d.seq);
	if (tracecmd_iterate_events(h, NULL, 0, dat_record, &d) < 0 &&
	    !d.ret) {
		snprintf(err, errlen, "%s: libtracecmd cannot read its "
			 "records", path);
		d.ret = -EINVAL;
	}
	trace_seq_destroy(&d.seq);
	d.ret = trace_reader_done(&r, d.ret);
	tracecmd_close(h);
	return d.ret;
}

/*
 * A trace.dat's layout (trace-cmd.dat.v6(5)), checked before libtracecmd
 * reads it: every section's size within the file, the CPUs' data within
 * it, each data page's commit within its page. libtracecmd trusts these
 * and crashes on a file cut short; what passes here is still read in a
 * child process (trace_read()).
 */
struct dat_check {
	int fd;
	unsigned long long size, pos;
	bool big;		/* the file's integers are big-endian */
	unsigned int long_size, page_size;
	const char *path;
	char *err;
	size_t errlen;
	bool trace_bad;
};

static bool dat_bad(struct dat_check *c, const char *what)
{
	if (!c->trace_bad)
		snprintf(c->err, c->errlen, "%s: not a trace.dat libtracecmd "
			 "can read: %s at byte %llu (trace-cmd.dat.v6)",
			 c->path, what, c->pos);
	c->trace_bad = true;
	return false;
}

static bool dat_read(struct dat_check *c, void *buf, size_t n)
{
	if (c->trace_bad)
		return false;
	if (n > c->size || c->pos > c->size - n ||
	    pread(c->fd, buf, n, (off_t)c->pos) != (ssize_t)n)
		return dat_bad(c, "the file ends");
	c->pos += n;
	return true;
}

/* An integer of @n bytes in the file's byte order. */
static unsigned long long dat_int(struct dat_check *c, size_t n)
{
	unsigned char b[8];
	unsigned long long v = 0;
	size_t i;

	if (!dat_read(c, b, n))
		return 0;
	for (i = 0; i < n; i++)
		v |= (unsigned long long)b[c->big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Skip @n bytes of a section; its end within the file. */
static bool dat_skip(struct dat_check *c, unsigned long long n)
{
	if (c->trace_bad)
		return false;
	if (n > c->size - c->pos)
		return dat_bad(c, "a section runs past the end");
	c->pos += n;
	return true;
}

/* A NUL-terminated string of at most @max bytes; @out gets its start. */
static bool dat_str(struct dat_check *c, char *out, size_t max)
{
	size_t i;

	for (i = 0; i < max; i++) {
		if (!dat_read(c, &out[i], 1))
			return false;
		if (!out[i])
			return true;
	}
	return dat_bad(c, "a name too long");
}

/* "label\0", as the format spells it. */
static bool dat_label(struct dat_check *c, const char *label)
{
	char buf[32];

	if (!dat_str(c, buf, sizeof(buf)))
		return false;
	if (strcmp(buf, label))
		return dat_bad(c, "an unexpected section label");
	return true;
}

/* The CPUs' ring-buffer pages: each page's commit inside the page. */
static bool dat_cpu_data(struct dat_check *c, unsigned long long off,
			 unsigned long long len)
{
	unsigned long long p, head = 8 + c->long_size, commit;
	unsigned long long save = c->pos;

	if (off > c->size || len > c->size - off)
		return dat_bad(c, "a CPU's data past the end of the file");
	for (p = 0; p + head <= len && !c->trace_bad; p += c->page_size) {
		c->pos = off + p + 8;
		commit = dat_int(c, c->long_size);
		/* The high bits are flags (missed events). */
		commit &= (1ULL << 27) - 1;
		if (commit > c->page_size - head ||
		    commit > len - p - head)
			return dat_bad(c, "a page's commit past the page");
	}
	c->pos = save;
	return !c->trace_bad;
}

int trace_dat_check(const char *path, int fd, unsigned long long size,
			   char *err, size_t errlen)
{
	struct dat_check c = { .fd = fd, .size = size, .path = path,
			       .err = err, .errlen = errlen };
	char buf[64];
	unsigned long long n, i, j, cpus, sys, off, len;

	if (!dat_read(&c, buf, TRACE_DAT_MAGIC_LEN) ||
	    memcmp(buf, trace_dat_magic, TRACE_DAT_MAGIC_LEN))
		return dat_bad(&c, "no magic"), -EINVAL;
	if (!dat_str(&c, buf, 8) || strcmp(buf, "6"))
		return dat_bad(&c, "not version 6"), -EINVAL;
	if (!dat_read(&c, buf, 2) || buf[0] > 1 ||
	    (buf[1] != 4 && buf[1] != 8))
		return dat_bad(&c, "no endianness and long size"), -EINVAL;
	c.big = buf[0];
	c.long_size = (unsigned char)buf[1];
	c.page_size = (unsigned int)dat_int(&c, 4);
	if (!c.trace_bad && (c.page_size < 64 || c.page_size > (1U << 20)))
		dat_bad(&c, "a page size out of range");
	dat_label(&c, "header_page");
	dat_skip(&c, dat_int(&c, 8));
	dat_label(&c, "header_event");
	dat_skip(&c, dat_int(&c, 8));
	n = dat_int(&c, 4);				/* ftrace formats */
	for (i = 0; i < n && !c.trace_bad; i++)
		dat_skip(&c, dat_int(&c, 8));
	sys = dat_int(&c, 4);				/* event systems */
	for (i = 0; i < sys && !c.trace_bad; i++) {
		dat_str(&c, buf, sizeof(buf));
		n = dat_int(&c, 4);
		for (j = 0; j < n && !c.trace_bad; j++)
			dat_skip(&c, dat_int(&c, 8));
	}
	dat_skip(&c, dat_int(&c, 4));			/* kallsyms */
	dat_skip(&c, dat_int(&c, 4));			/* printk formats */
	dat_skip(&c, dat_int(&c, 8));			/* cmdlines */
	cpus = dat_int(&c, 4);
	if (!c.trace_bad && (!cpus || cpus > TRACE_CPUS))
		dat_bad(&c, "a CPU count out of range");
	if (c.trace_bad)
		return -EINVAL;
	if (!dat_str(&c, buf, 16))
		return -EINVAL;
	if (!strcmp(buf, "options  ")) {
		/* Options: a type and a size each, type 0 ends them. */
		while (!c.trace_bad && dat_int(&c, 2))
			dat_skip(&c, dat_int(&c, 4));
		dat_str(&c, buf, 16);
	}
	if (c.trace_bad)
		return -EINVAL;
	if (!strcmp(buf, "latency  "))
		return 0;	/* text, read by libtracecmd as is */
	if (strcmp(buf, "flyrecord"))
		return dat_bad(&c, "no flyrecord section"), -EINVAL;
	for (i = 0; i < cpus && !c.trace_bad; i++) {
		off = dat_int(&c, 8);
		len = dat_int(&c, 8);
		if (!c.trace_bad)
			dat_cpu_data(&c, off, len);
	}
	return c.trace_bad ? -EINVAL : 0;
}
