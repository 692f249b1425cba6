// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - count a guest's traps from a KVM host's trace
 * (include/trapcheck/input/trace.h): trace-cmd report's lines and
 * tracefs's, which differ only in their headers, and the events of a
 * trace.dat, each printed by libtraceevent as trace-cmd report prints it,
 * so that all go through one parser, the run's architecture's events
 * (struct trace_event). A file is read in a child process
 * (trace_read()), so that libtracecmd's crash on a damaged trace.dat is
 * an input error, and under the limits of docs/trace.md (memory, time,
 * lines, sites).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "trapcheck/input/trace.h"
#include "trapcheck/base/util.h"

/* CPUs whose trap waits for the event that says what it was. */
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

/* A trap waiting for the event that says what it was (trace_pend()). */
struct trace_pending {
	unsigned long long pc;		/* 0: none */
	unsigned int kind;
	const char *what;
};

struct trace_reader {
	struct trace *t;
	struct strmap index;	/* "pc kind what" -> sites[] */
	struct trace_pending *pending;	/* per CPU */
	const char *name;
	unsigned long lineno;
	char *err;
	size_t errlen;
};

/* trace.dat's magic: \027\010D, then "tracing". */
#define TRACE_DAT_MAGIC_LEN	10

int trace_count(struct trace_reader *r, unsigned long long pc,
		unsigned int kind, const char *what)
{
	char *key = xasprintf("%llx %u %s", pc, kind, what);
	int i = strmap_get(&r->index, key);
	struct trace_site *s;

	if (i < 0 && r->t->nr >= TRACE_MAX_SITES) {
		free(key);
		return trace_bad(r, "more than " TRACE_MAX_SITES_TEXT " trapping "
			   "sites: not the trace of one guest (the limit of "
			   "docs/trace.md)");
	}
	if (i < 0) {
		s = PUSH(r->t->sites, r->t->nr, r->t->alloc);
		s->pc = pc;
		s->kind = kind;
		s->what = xstrdup(what);
		s->count = 0;
		i = (int)(r->t->nr - 1);
		strmap_put(&r->index, key, i);
	}
	r->t->sites[i].count++;
	r->t->total++;
	free(key);
	return 0;
}

int trace_bad(struct trace_reader *r, const char *why)
{
	snprintf(r->err, r->errlen, "%s:%lu: %s", r->name, r->lineno, why);
	return -EINVAL;
}

bool trace_hex(const char *p, unsigned long long *v, const char **end)
{
	char *e;

	if (!isxdigit((unsigned char)*p))
		return false;
	*v = strtoull(p, &e, 16);
	*end = e;
	return e != p;
}

bool trace_raw_field(const char *p, const char *key, unsigned long long *v)
{
	size_t n = strlen(key);
	char *e;

	for (p = strstr(p, key); p; p = strstr(p + 1, key)) {
		if ((p[-1] != ' ' && p[-1] != ']') || p[n] != '=')
			continue;
		*v = strtoull(p + n + 1, &e, 0);
		return e != p + n + 1;
	}
	return false;
}

bool trace_pend(struct trace_reader *r, unsigned int cpu,
		unsigned long long pc, unsigned int kind, const char *what)
{
	if (cpu >= TRACE_CPUS)
		return false;
	/* A PC of 0 is kept as 1: 0 says none waits. */
	r->pending[cpu].pc = pc ? pc : 1;
	r->pending[cpu].kind = kind;
	r->pending[cpu].what = what;
	return true;
}

bool trace_take(struct trace_reader *r, unsigned int cpu,
		unsigned long long *pc, unsigned int *kind)
{
	if (cpu >= TRACE_CPUS || !r->pending[cpu].pc)
		return false;
	*pc = r->pending[cpu].pc;
	*kind = r->pending[cpu].kind;
	r->pending[cpu].pc = 0;
	return true;
}

int trace_flush(struct trace_reader *r, unsigned int cpu)
{
	struct trace_pending *p;
	unsigned long long pc;

	if (cpu >= TRACE_CPUS || !r->pending[cpu].pc)
		return 0;
	p = &r->pending[cpu];
	pc = p->pc;
	p->pc = 0;
	return trace_count(r, pc, p->kind, p->what);
}

/*
 * Headers of trace-cmd report and of tracefs: not events. "CPU 0/KVM" is
 * also the name of QEMU's vCPU threads (debug-threads=on): only "CPU N
 * is empty" and "CPU:N [LOST ...]" are headers.
 */
static bool header(const char *p)
{
	unsigned int cpu;
	int n = 0;

	if (*p == '#' || !strncmp(p, "cpus=", 5) ||
	    !strncmp(p, "version = ", 10))
		return true;
	if (sscanf(p, "CPU %u is empty%n", &cpu, &n) == 1 && n && !p[n])
		return true;
	return sscanf(p, "CPU:%u [LOST%n", &cpu, &n) == 1 && n;
}

/*
 * "  task-pid  [003] d..2.  123.456789: event: payload": the CPU, the
 * event's name and its payload. False when the line is not so shaped.
 */
static bool event_line(char *line, unsigned int *cpu, char **event,
		       char **payload)
{
	char *p = strchr(line, '['), *e, *colon;

	for (; p; p = strchr(p + 1, '[')) {
		*cpu = (unsigned int)strtoul(p + 1, &e, 10);
		if (e != p + 1 && *e == ']')
			break;
	}
	if (!p)
		return false;
	/* Fields up to the timestamp, "123.456789:". */
	for (p = e + 1; *p; p = e) {
		while (*p == ' ')
			p++;
		e = p + strcspn(p, " ");
		if (e > p && e[-1] == ':' && isdigit((unsigned char)*p) &&
		    memchr(p, '.', (size_t)(e - p)))
			break;
	}
	if (!*p)
		return false;
	while (*e == ' ')
		e++;
	colon = strchr(e, ':');
	if (!colon || colon == e || strcspn(e, " ") < (size_t)(colon - e))
		return false;
	*colon = '\0';
	*event = e;
	p = colon + 1;
	while (*p == ' ')
		p++;
	*payload = p;
	return true;
}

static const struct trace_event *trace_event_find(const struct trace *t,
					   const char *event)
{
	size_t i;

	for (i = 0; i < t->nr_events; i++)
		if (!strcmp(t->events[i].name, event))
			return &t->events[i];
	return NULL;
}

/* One event of a trap kind (others are skipped). */
static int trace_read_event(struct trace_reader *r, unsigned int cpu,
		     const char *event, const char *payload)
{
	const struct trace_event *e = trace_event_find(r->t, event);

	r->t->lines++;
	return e ? e->parse(r, cpu, payload) : 0;
}

static int trace_read_line(struct trace_reader *r, char *line)
{
	char *p = line, *event, *payload;
	unsigned int cpu;
	size_t n = strlen(line);

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
		     line[n - 1] == ' '))
		line[--n] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || header(p))
		return 0;
	if (!event_line(p, &cpu, &event, &payload))
		return trace_bad(r, "not a trace line (trace-cmd report or tracefs)");
	return trace_read_event(r, cpu, event, payload);
}

static void trace_reader_init(struct trace_reader *r, struct trace *t,
		       const char *name, char *err, size_t errlen)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->t = t;
	r->name = name;
	r->err = err;
	r->errlen = errlen;
	r->pending = xcalloc(TRACE_CPUS, sizeof(*r->pending));
	strmap_init(&r->index);
	/* A second file adds to the same sites. */
	for (i = 0; i < t->nr; i++) {
		char *key = xasprintf("%llx %u %s", t->sites[i].pc,
				      t->sites[i].kind, t->sites[i].what);

		strmap_put(&r->index, key, (int)i);
		free(key);
	}
}

/* The traps still waiting for what they were; @ret, or the first error. */
static int trace_reader_done(struct trace_reader *r, int ret)
{
	unsigned int cpu;

	for (cpu = 0; cpu < TRACE_CPUS; cpu++)
		if (trace_flush(r, cpu) && !ret)
			ret = -EINVAL;
	free(r->pending);
	strmap_free(&r->index);
	return ret;
}

static int trace_too_long(struct trace_reader *r)
{
	return trace_bad(r, "a line longer than " TRACE_MAX_LINE_TEXT " bytes: "
		   "not trace text (the limit of docs/trace.md)");
}

int trace_read_text(struct trace *t, const char *name, const char *text,
		    char *err, size_t errlen)
{
	struct trace_reader r;
	const char *p = text;
	int ret = 0;

	trace_reader_init(&r, t, name, err, errlen);
	while (*p && !ret) {
		size_t n = strcspn(p, "\n");
		char *line;

		r.lineno++;
		if (n > TRACE_MAX_LINE) {
			ret = trace_too_long(&r);
			break;
		}
		line = xstrndup(p, n);
		ret = trace_read_line(&r, line);
		free(line);
		p += n + (p[n] == '\n');
	}
	return trace_reader_done(&r, ret);
}

/*
 * The next line of @f into @buf (TRACE_MAX_LINE + 2 bytes), its length
 * in *@len: 1, 0 at the end, -1 for a line too long, -2 for a NUL byte,
 * -3 for a read error.
 */
static int next_line(FILE *f, char *buf, size_t *len)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF) {
		if (!c)
			return -2;
		if (n == TRACE_MAX_LINE)
			return -1;
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	*len = n;
	if (ferror(f))
		return -3;
	return n ? 1 : 0;
}

/* A text trace from @f (opened, at its start). */
static int trace_read_text_file(struct trace *t, const char *path, FILE *f,
			  char *err, size_t errlen)
{
	char *buf = xmalloc(TRACE_MAX_LINE + 2);
	struct trace_reader r;
	size_t n;
	int ret = 0, got;

	trace_reader_init(&r, t, path, err, errlen);
	while (!ret && (got = next_line(f, buf, &n)) > 0) {
		r.lineno++;
		ret = trace_read_line(&r, buf);
	}
	if (!ret && got < 0) {
		r.lineno++;
		if (got == -1)
			ret = trace_too_long(&r);
		else if (got == -2)
			ret = trace_bad(&r, "a NUL byte: not trace text, and no "
				  "trace.dat (its magic is not there)");
		else
			ret = trace_bad(&r, "read error");
	}
	free(buf);
	return trace_reader_done(&r, ret);
}

void trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->sites[i].what);
	free(t->sites);
	t->sites = NULL;
	t->nr = t->alloc = 0;
	t->total = t->lines = 0;
}

/*
 * A trace.dat of trace-cmd record: its layout checked
 * (trace-cmd.dat.v6(5)) before libtracecmd reads it, then every CPU's
 * records in time order, each printed and given to the parser above.
 */

/* trace.dat's magic: \027\010D, then "tracing". */
static const char trace_dat_magic[TRACE_DAT_MAGIC_LEN + 1] = "\027\010Dtracing";

struct dat_reader {
	struct trace_reader *r;
	struct tep_handle *tep;
	struct trace_seq seq;
	int ret;
};

/*
 * An event whose print format libtraceevent does not parse (arm64's
 * kvm_sys_access): its raw fields, as trace-cmd report gives way to.
 */
static void dat_raw(struct dat_reader *d, const struct trace_event *te,
		    struct tep_event *ev, struct tep_record *rec)
{
	unsigned long long v;
	size_t i;

	trace_seq_puts(&d->seq, "[FAILED TO PARSE]");
	for (i = 0; i < te->nr_raw_fields; i++)
		if (!tep_get_field_val(NULL, ev, te->raw_fields[i], rec, &v,
				       0))
			trace_seq_printf(&d->seq, " %s=0x%llx",
					 te->raw_fields[i], v);
}

/* Each record, in time order: its event printed, then parsed as text. */
static int dat_record(struct tracecmd_input *h, struct tep_record *rec,
		      int cpu, void *data)
{
	struct dat_reader *d = data;
	struct tep_event *ev = tep_find_event_by_record(d->tep, rec);
	const struct trace_event *te;

	d->r->lineno++;
	te = ev ? trace_event_find(d->r->t, ev->name) : NULL;
	if (!te) {
		d->r->t->lines += ev != NULL;
		return 0;
	}
	trace_seq_reset(&d->seq);
	if (te->nr_raw_fields)
		dat_raw(d, te, ev, rec);
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
static int trace_read_dat(struct trace *t, const char *path, char *err,
			  size_t errlen)
{
	struct tracecmd_input *h;
	struct dat_reader d = { 0 };
	struct trace_reader r;

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

static int trace_dat_check(const char *path, int fd, unsigned long long size,
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

/*
 * Under a sanitizer's runtime: a libFuzzer target sets a death callback
 * that writes the input out as its crash. The child's crash is the
 * child's (the parent reports it as trace_bad input), so the child drops it.
 * Not linked in other builds (weak).
 */
extern void __sanitizer_set_death_callback(void (*cb)(void))
	__attribute__((weak));

/* Signals a crash of the reading child is. */
static const int crash_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
};

/* Read @path in this process: a trace.dat, or text. */
static int read_here(struct trace *t, const char *path, FILE *f, char *err,
		     size_t errlen)
{
	char magic[TRACE_DAT_MAGIC_LEN];

	if (fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	    !memcmp(magic, trace_dat_magic, sizeof(magic)))
		return trace_read_dat(t, path, err, errlen);
	rewind(f);
	return trace_read_text_file(t, path, f, err, errlen);
}

/*
 * The child's answer on @fd: "ok TOTAL LINES NR", then a line a site
 * "PC KIND COUNT WHAT"; or "error MESSAGE".
 */
static void __attribute__((noreturn))
send_answer(int fd, const struct trace *t, int ret, const char *err)
{
	FILE *out = fdopen(fd, "w");
	size_t i;

	if (!out)
		_exit(4);
	if (ret) {
		fprintf(out, "error %d %s\n", -ret, err);
	} else {
		fprintf(out, "ok %lu %lu %zu\n", t->total, t->lines, t->nr);
		for (i = 0; i < t->nr; i++)
			fprintf(out, "%llx %u %lu %s\n", t->sites[i].pc,
				t->sites[i].kind, t->sites[i].count,
				t->sites[i].what);
	}
	if (fflush(out) || ferror(out))
		_exit(4);
	_exit(0);
}

/* The child's answer into @t; false when it is not one. */
static bool take_answer(struct trace *t, char *text, int *ret, char *err,
			size_t errlen)
{
	char *line = strtok(text, "\n"), *what;
	unsigned long total, lines, count;
	unsigned long long pc;
	size_t nr, i;
	unsigned int kind;
	int n, e;

	if (!line)
		return false;
	if (sscanf(line, "error %d %n", &e, &n) == 1 && n > 0) {
		snprintf(err, errlen, "%s", line + n);
		*ret = e > 0 ? -e : -EINVAL;
		return true;
	}
	if (sscanf(line, "ok %lu %lu %zu", &total, &lines, &nr) != 3 ||
	    nr > TRACE_MAX_SITES)
		return false;
	for (i = 0; i < nr; i++) {
		line = strtok(NULL, "\n");
		if (!line || sscanf(line, "%llx %u %lu %n", &pc, &kind, &count,
				    &n) != 3 || !n || kind >= t->nr_kinds)
			return false;
		what = line + n;
		*PUSH(t->sites, t->nr, t->alloc) = (struct trace_site){
			.pc = pc, .kind = kind, .count = count,
			.what = xstrdup(what),
		};
	}
	t->total += total;
	t->lines += lines;
	*ret = 0;
	return true;
}

/*
 * The child's answer from @fd into @b, until the end of the pipe or
 * @deadline; false when the deadline passed.
 */
static bool read_answer(int fd, struct bytes *b, time_t deadline)
{
	char buf[65536];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	time_t now;

	for (;;) {
		now = time(NULL);
		if (now >= deadline)
			return false;
		if (poll(&pfd, 1, (int)(deadline - now) * 1000) < 0) {
			if (errno == EINTR)
				continue;
			return true;	/* read() below says what it is */
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
		bytes_put(b, buf, (size_t)n);
	}
}

/*
 * The child: libtracecmd may crash on a damaged trace.dat, and both
 * readers stay under a memory limit. Sends its answer on @fd and exits.
 */
static void __attribute__((noreturn)) child(const struct trace *t,
					     const char *path, FILE *f,
					     int fd, char *err, size_t errlen)
{
	struct trace mine = {
		.events = t->events, .nr_events = t->nr_events,
		.kinds = t->kinds, .nr_kinds = t->nr_kinds,
	};
	int null = open("/dev/null", O_WRONLY), ret;
	size_t i;

	/* The parent says what went wrong, in one line. */
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/* A crash ends the child, plainly: no handler of ours. */
	for (i = 0; i < ARRAY_SIZE(crash_signals); i++)
		signal(crash_signals[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
#ifndef TRAPCHECK_SANITIZED
	setrlimit(RLIMIT_AS, &(struct rlimit){ TRACE_MAX_MEMORY,
					       TRACE_MAX_MEMORY });
#endif
	ret = read_here(&mine, path, f, err, errlen);
	one_line(err);
	send_answer(fd, &mine, ret, err);
}

/* How the child ended, into @t or one line in @err. */
static int child_result(struct trace *t, const char *path, int status,
			bool hung, unsigned long long limit,
			struct bytes *b, char *err, size_t errlen)
{
	int ret = -EINVAL;

	if (hung)
		snprintf(err, errlen, "%s: reading it took more than %llu s "
			 "(the limit of docs/trace.md): a damaged trace.dat?",
			 path, limit);
	else if (WIFSIGNALED(status))
		snprintf(err, errlen, "%s: reading it crashed (signal %d: %s): "
			 "a damaged trace.dat?", path, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == TC_EXIT_INTERNAL)
		snprintf(err, errlen, "%s: reading it ran out of memory (the "
			 "limit is %llu MiB)", path, TRACE_MAX_MEMORY >> 20);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) ||
		 !take_answer(t, (char *)b->data, &ret, err, errlen))
		snprintf(err, errlen, "%s: reading it failed (exit status "
			 "%d)", path, WIFEXITED(status) ?
			 WEXITSTATUS(status) : -1);
	else
		return ret;
	one_line(err);
	return -EINVAL;
}

/* A trace.dat's layout, checked here: most damage costs no child. */
static int check_dat(const char *path, FILE *f, unsigned long long size,
		     char *err, size_t errlen)
{
	char buf[TRACE_DAT_MAGIC_LEN];
	int ret = 0;

	if (fread(buf, 1, TRACE_DAT_MAGIC_LEN, f) == TRACE_DAT_MAGIC_LEN &&
	    !memcmp(buf, trace_dat_magic, TRACE_DAT_MAGIC_LEN))
		ret = trace_dat_check(path, fileno(f), size, err, errlen);
	rewind(f);
	return ret;
}

int trace_read(struct trace *t, const char *path, char *err, size_t errlen)
{
	unsigned long long size = 0, limit;
	struct bytes b = { 0 };
	int fds[2], status, ret;
	struct stat sb;
	bool hung;
	pid_t pid;
	FILE *f;

	ret = input_open(path, "the trace", 0, &f, err, errlen);
	if (ret)
		return ret;
	if (!fstat(fileno(f), &sb))
		size = (unsigned long long)sb.st_size;
	/* Nothing recorded: no answer, not "no traps" (a gate must fail). */
	if (!size) {
		snprintf(err, errlen, "%s: an empty trace: nothing was "
			 "recorded (were the host's trap events enabled?)",
			 path);
		fclose(f);
		return -EINVAL;
	}
	ret = check_dat(path, f, size, err, errlen);
	if (!ret && pipe2(fds, O_CLOEXEC))
		ret = -errno;
	if (!ret) {
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			ret = -errno;
			close(fds[0]);
			close(fds[1]);
		} else if (!pid) {
			close(fds[0]);
			child(t, path, f, fds[1], err, errlen);
		}
	}
	if (ret) {
		if (ret != -EINVAL)
			snprintf(err, errlen, "%s: cannot read: %s", path,
				 strerror(-ret));
		fclose(f);
		return ret;
	}
	close(fds[1]);
	fclose(f);
	limit = TRACE_BASE_SECONDS + (size >> 20);
	hung = !read_answer(fds[0], &b, time(NULL) + (time_t)limit);
	close(fds[0]);
	if (hung)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	bytes_put(&b, "", 1);
	ret = child_result(t, path, status, hung, limit, &b, err, errlen);
	bytes_free(&b);
	return ret;
}
