// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - count a guest's traps from a KVM host's trace
 * (include/trapcheck/trace.h): trace-cmd report's lines and tracefs's,
 * which differ only in their headers, or a trace.dat read with
 * libtracecmd, each event printed by libtraceevent as trace-cmd report
 * prints it, so that both go through one parser.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "trapcheck/trace.h"
#include "trapcheck/util.h"

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

static int bad(struct reader *r, const char *why);

static int count(struct reader *r, unsigned long long pc,
		 enum trace_kind kind, const char *what)
{
	char *key = xasprintf("%llx %d %s", pc, (int)kind, what);
	int i = strmap_get(&r->index, key);
	struct trace_site *s;

	if (i < 0 && r->t->nr >= TRACE_MAX_SITES) {
		free(key);
		return bad(r, "more than " TRACE_MAX_SITES_TEXT " trapping "
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

static int bad(struct reader *r, const char *why)
{
	snprintf(r->err, r->errlen, "%s:%lu: %s", r->name, r->lineno, why);
	return -EINVAL;
}

/* A hexadecimal number at @p ("0x" optional); its end in *@end. */
static bool hex(const char *p, unsigned long long *v, const char **end)
{
	char *e;

	if (!isxdigit((unsigned char)*p))
		return false;
	*v = strtoull(p, &e, 16);
	*end = e;
	return e != p;
}

/*
 * kvm_sys_access's fields, in the order they are read: the PC, whether it
 * was a write, the register's encoding (Op0, Op1, CRn, CRm, Op2).
 */
static const char *const sysreg_fields[] = {
	"vcpu_pc", "is_write", "Op0", "Op1", "CRn", "CRm", "Op2",
};

/* "key=VALUE" of a raw field list; false when absent or no number. */
static bool raw_field(const char *p, const char *key, unsigned long long *v)
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

/*
 * What trace-cmd report prints when libtraceevent cannot parse the
 * event's print format (arm64 writes `__entry->name ?: "UNKN"`, which it
 * does not know): "[FAILED TO PARSE] vcpu_pc=0xffff800080012340
 * is_write=0 name=0xffff80008123d5a0 Op0=3 Op1=0 CRn=0 CRm=7 Op2=1".
 */
static int sys_access_raw(struct reader *r, const char *p)
{
	unsigned long long v[ARRAY_SIZE(sysreg_fields)];
	char name[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sysreg_fields); i++)
		if (!raw_field(p, sysreg_fields[i], &v[i]))
			return bad(r, "kvm_sys_access: no vcpu_pc, is_write, "
				   "Op0, Op1, CRn, CRm and Op2 fields");
	snprintf(name, sizeof(name), "S%llu_%llu_C%llu_C%llu_%llu", v[2], v[3],
		 v[4], v[5], v[6]);
	return v[1] ? 0 : count(r, v[0], TRACE_SYSREG, name);
}

/* "PC: ffff8000801234 ID_AA64MMFR1_EL1 (3,0,0,7,1) read" */
static int sys_access(struct reader *r, const char *p)
{
	unsigned long long pc;
	int f[5], n = 0;
	char name[64];
	const char *e;

	if (!strncmp(p, "[FAILED TO PARSE]", 17))
		return sys_access_raw(r, p + 17);
	if (strncmp(p, "PC: ", 4) || !hex(p + 4, &pc, &e) || *e != ' ')
		return bad(r, "kvm_sys_access: no \"PC: <hex>\"");
	if (sscanf(e, " %63s (%d,%d,%d,%d,%d)%n", name, &f[0], &f[1], &f[2],
		   &f[3], &f[4], &n) != 6 || !n)
		return bad(r, "kvm_sys_access: no register and encoding");
	e = e + n;
	while (*e == ' ')
		e++;
	/*
	 * The name is a pointer into the host kernel (__field(const char *,
	 * name)): from a trace.dat, libtraceevent prints its address. The
	 * encoding names it then, as the Arm ARM does.
	 */
	if (name[strspn(name, "0123456789abcdefx")] == '\0' ||
	    !strcmp(name, "(null)"))
		snprintf(name, sizeof(name), "S%d_%d_C%d_C%d_%d", f[0], f[1],
			 f[2], f[3], f[4]);
	if (!strcmp(e, "read"))
		return count(r, pc, TRACE_SYSREG, name);
	if (strcmp(e, "write"))
		return bad(r, "kvm_sys_access: neither read nor write");
	return 0;
}

/* The PC of an MSR exit on @cpu, counted with no MSR named. */
static int flush_msr(struct reader *r, unsigned int cpu)
{
	unsigned long long pc;

	if (cpu >= TRACE_CPUS || !r->msr_pc[cpu])
		return 0;
	pc = r->msr_pc[cpu];
	r->msr_pc[cpu] = 0;
	return count(r, pc, TRACE_MSR, "MSR");
}

/*
 * "vcpu 0 reason CPUID rip 0xffffffff8103a2b1 info1 0x0 ..." (VMX), or
 * "reason msr rip 0x... info1 0x0000000000000000 ..." (SVM: info1 0 is a
 * read), as the kernel's print format has it; trace-cmd report's kvm
 * plugin prints "reason CPUID rip 0x... info 0 0" and, for SVM, "reason
 * EXIT_CPUID" and "reason EXIT_MSR rip 0x... info 0 0" (info1 first).
 */
static int kvm_exit(struct reader *r, unsigned int cpu, const char *p)
{
	unsigned long long pc, info1 = 0;
	const char *reason, *rip, *info, *e;
	size_t n;

	reason = strstr(p, "reason ");
	rip = strstr(p, " rip 0x");
	if (!reason || !rip || rip < reason)
		return bad(r, "kvm_exit: no \"reason <name> rip 0x<hex>\"");
	reason += 7;
	n = strcspn(reason, " ");
	if (!n || !hex(rip + 7, &pc, &e))
		return bad(r, "kvm_exit: no reason or rip");
	info = strstr(e, "info1 0x");
	if (info && !hex(info + 8, &info1, &e))
		return bad(r, "kvm_exit: bad info1");
	info = info ? NULL : strstr(e, " info ");
	if (info && !hex(info + 6, &info1, &e))
		return bad(r, "kvm_exit: bad info");
	if (flush_msr(r, cpu))
		return -EINVAL;
	if ((n == 5 && !strncmp(reason, "CPUID", 5)) ||
	    (n == 5 && !strncmp(reason, "cpuid", 5)) ||
	    (n == 10 && !strncmp(reason, "EXIT_CPUID", 10)))
		return count(r, pc, TRACE_CPUID, "CPUID");
	if ((n == 8 && !strncmp(reason, "MSR_READ", 8)) ||
	    (n == 3 && !strncmp(reason, "msr", 3) && !info1) ||
	    (n == 8 && !strncmp(reason, "EXIT_MSR", 8) && !info1)) {
		if (cpu >= TRACE_CPUS)
			return count(r, pc, TRACE_MSR, "MSR");
		r->msr_pc[cpu] = pc ? pc : 1;
	}
	return 0;
}

/* "msr_read 48 = 0x0" (or msr_write ..., " (#GP)" after a fault). */
static int kvm_msr(struct reader *r, unsigned int cpu, const char *p)
{
	unsigned long long msr;
	const char *e;
	char what[32];

	if (!strncmp(p, "msr_write ", 10))
		return 0;
	if (strncmp(p, "msr_read ", 9) || !hex(p + 9, &msr, &e))
		return bad(r, "kvm_msr: no \"msr_read <hex>\"");
	if (cpu < TRACE_CPUS && r->msr_pc[cpu]) {
		unsigned long long pc = r->msr_pc[cpu];

		snprintf(what, sizeof(what), "MSR 0x%llx", msr);
		r->msr_pc[cpu] = 0;
		return count(r, pc, TRACE_MSR, what);
	}
	return 0;
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

/* One event of a trap kind (others are skipped). */
static int read_event(struct reader *r, unsigned int cpu, const char *event,
		      const char *payload)
{
	r->t->lines++;
	if (!strcmp(event, "kvm_sys_access"))
		return sys_access(r, payload);
	if (!strcmp(event, "kvm_exit"))
		return kvm_exit(r, cpu, payload);
	if (!strcmp(event, "kvm_msr"))
		return kvm_msr(r, cpu, payload);
	return 0;
}

static int read_line(struct reader *r, char *line)
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
		return bad(r, "not a trace line (trace-cmd report or tracefs)");
	return read_event(r, cpu, event, payload);
}

static void reader_init(struct reader *r, struct trace *t, const char *name,
			char *err, size_t errlen)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->t = t;
	r->name = name;
	r->err = err;
	r->errlen = errlen;
	r->msr_pc = xcalloc(TRACE_CPUS, sizeof(*r->msr_pc));
	strmap_init(&r->index);
	/* A second file adds to the same sites. */
	for (i = 0; i < t->nr; i++) {
		char *key = xasprintf("%llx %d %s", t->sites[i].pc,
				      (int)t->sites[i].kind, t->sites[i].what);

		strmap_put(&r->index, key, (int)i);
		free(key);
	}
}

/* The MSR exits still waiting for their MSR; @ret, or the first error. */
static int reader_done(struct reader *r, int ret)
{
	unsigned int cpu;

	for (cpu = 0; cpu < TRACE_CPUS; cpu++)
		if (flush_msr(r, cpu) && !ret)
			ret = -EINVAL;
	free(r->msr_pc);
	strmap_free(&r->index);
	return ret;
}

static int too_long(struct reader *r)
{
	return bad(r, "a line longer than " TRACE_MAX_LINE_TEXT " bytes: "
		   "not trace text (the limit of docs/trace.md)");
}

int trace_read_text(struct trace *t, const char *name, const char *text,
		    char *err, size_t errlen)
{
	struct reader r;
	const char *p = text;
	int ret = 0;

	reader_init(&r, t, name, err, errlen);
	while (*p && !ret) {
		size_t n = strcspn(p, "\n");
		char *line;

		r.lineno++;
		if (n > TRACE_MAX_LINE) {
			ret = too_long(&r);
			break;
		}
		line = xstrndup(p, n);
		ret = read_line(&r, line);
		free(line);
		p += n + (p[n] == '\n');
	}
	return reader_done(&r, ret);
}

/* trace.dat's magic: \027\010D, then "tracing". */
static const char dat_magic[] = "\027\010Dtracing";

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
	for (i = 0; i < ARRAY_SIZE(sysreg_fields); i++)
		if (!tep_get_field_val(NULL, ev, sysreg_fields[i], rec, &v, 0))
			trace_seq_printf(&d->seq, " %s=0x%llx",
					 sysreg_fields[i], v);
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
	d->ret = read_event(d->r, (unsigned int)cpu, ev->name,
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
	struct reader r;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* The kernel's own print formats, not trace-cmd's kvm plugin. */
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		snprintf(err, errlen, "%s: a trace.dat that libtracecmd "
			 "cannot read", path);
		return -EINVAL;
	}
	reader_init(&r, t, path, err, errlen);
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
	d.ret = reader_done(&r, d.ret);
	tracecmd_close(h);
	return d.ret;
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
static int read_text_file(struct trace *t, const char *path, FILE *f,
			  char *err, size_t errlen)
{
	char *buf = xmalloc(TRACE_MAX_LINE + 2);
	struct reader r;
	size_t n;
	int ret = 0, got;

	reader_init(&r, t, path, err, errlen);
	while (!ret && (got = next_line(f, buf, &n)) > 0) {
		r.lineno++;
		ret = read_line(&r, buf);
	}
	if (!ret && got < 0) {
		r.lineno++;
		if (got == -1)
			ret = too_long(&r);
		else if (got == -2)
			ret = bad(&r, "a NUL byte: not trace text, and no "
				  "trace.dat (its magic is not there)");
		else
			ret = bad(&r, "read error");
	}
	free(buf);
	return reader_done(&r, ret);
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
	bool bad;
};

static bool dat_bad(struct dat_check *c, const char *what)
{
	if (!c->bad)
		snprintf(c->err, c->errlen, "%s: not a trace.dat libtracecmd "
			 "can read: %s at byte %llu (trace-cmd.dat.v6)",
			 c->path, what, c->pos);
	c->bad = true;
	return false;
}

static bool dat_read(struct dat_check *c, void *buf, size_t n)
{
	if (c->bad)
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
	if (c->bad)
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
	for (p = 0; p + head <= len && !c->bad; p += c->page_size) {
		c->pos = off + p + 8;
		commit = dat_int(c, c->long_size);
		/* The high bits are flags (missed events). */
		commit &= (1ULL << 27) - 1;
		if (commit > c->page_size - head ||
		    commit > len - p - head)
			return dat_bad(c, "a page's commit past the page");
	}
	c->pos = save;
	return !c->bad;
}

static int trace_dat_check(const char *path, int fd, unsigned long long size,
			   char *err, size_t errlen)
{
	struct dat_check c = { .fd = fd, .size = size, .path = path,
			       .err = err, .errlen = errlen };
	char buf[64];
	unsigned long long n, i, j, cpus, sys, off, len;

	if (!dat_read(&c, buf, sizeof(dat_magic) - 1) ||
	    memcmp(buf, dat_magic, sizeof(dat_magic) - 1))
		return dat_bad(&c, "no magic"), -EINVAL;
	if (!dat_str(&c, buf, 8) || strcmp(buf, "6"))
		return dat_bad(&c, "not version 6"), -EINVAL;
	if (!dat_read(&c, buf, 2) || buf[0] > 1 ||
	    (buf[1] != 4 && buf[1] != 8))
		return dat_bad(&c, "no endianness and long size"), -EINVAL;
	c.big = buf[0];
	c.long_size = (unsigned char)buf[1];
	c.page_size = (unsigned int)dat_int(&c, 4);
	if (!c.bad && (c.page_size < 64 || c.page_size > (1U << 20)))
		dat_bad(&c, "a page size out of range");
	dat_label(&c, "header_page");
	dat_skip(&c, dat_int(&c, 8));
	dat_label(&c, "header_event");
	dat_skip(&c, dat_int(&c, 8));
	n = dat_int(&c, 4);				/* ftrace formats */
	for (i = 0; i < n && !c.bad; i++)
		dat_skip(&c, dat_int(&c, 8));
	sys = dat_int(&c, 4);				/* event systems */
	for (i = 0; i < sys && !c.bad; i++) {
		dat_str(&c, buf, sizeof(buf));
		n = dat_int(&c, 4);
		for (j = 0; j < n && !c.bad; j++)
			dat_skip(&c, dat_int(&c, 8));
	}
	dat_skip(&c, dat_int(&c, 4));			/* kallsyms */
	dat_skip(&c, dat_int(&c, 4));			/* printk formats */
	dat_skip(&c, dat_int(&c, 8));			/* cmdlines */
	cpus = dat_int(&c, 4);
	if (!c.bad && (!cpus || cpus > TRACE_CPUS))
		dat_bad(&c, "a CPU count out of range");
	if (c.bad)
		return -EINVAL;
	if (!dat_str(&c, buf, 16))
		return -EINVAL;
	if (!strcmp(buf, "options  ")) {
		/* Options: a type and a size each, type 0 ends them. */
		while (!c.bad && dat_int(&c, 2))
			dat_skip(&c, dat_int(&c, 4));
		dat_str(&c, buf, 16);
	}
	if (c.bad)
		return -EINVAL;
	if (!strcmp(buf, "latency  "))
		return 0;	/* text, read by libtracecmd as is */
	if (strcmp(buf, "flyrecord"))
		return dat_bad(&c, "no flyrecord section"), -EINVAL;
	for (i = 0; i < cpus && !c.bad; i++) {
		off = dat_int(&c, 8);
		len = dat_int(&c, 8);
		if (!c.bad)
			dat_cpu_data(&c, off, len);
	}
	return c.bad ? -EINVAL : 0;
}

/*
 * Under a sanitizer's runtime: a libFuzzer target sets a death callback
 * that writes the input out as its crash. The child's crash is the
 * child's (the parent reports it as bad input), so the child drops it.
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
	char magic[sizeof(dat_magic) - 1];

	if (fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	    !memcmp(magic, dat_magic, sizeof(magic)))
		return trace_read_dat(t, path, err, errlen);
	rewind(f);
	return read_text_file(t, path, f, err, errlen);
}

/*
 * The child's answer on @fd: "ok TOTAL LINES NR", then a line a site
 * "PC KIND COUNT WHAT"; or "error MESSAGE".
 */
static void send_answer(int fd, const struct trace *t, int ret,
			const char *err)
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
			fprintf(out, "%llx %d %lu %s\n", t->sites[i].pc,
				(int)t->sites[i].kind, t->sites[i].count,
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
	int kind, n, e;

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
		if (!line || sscanf(line, "%llx %d %lu %n", &pc, &kind, &count,
				    &n) != 3 || !n || kind < TRACE_SYSREG ||
		    kind > TRACE_MSR)
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

int trace_read(struct trace *t, const char *path, char *err, size_t errlen)
{
	struct bytes b = { 0 };
	char buf[64];
	unsigned long long size = 0;
	int fds[2], status, ret = -EINVAL;
	struct stat sb;
	bool hung;
	ssize_t n;
	pid_t pid;
	FILE *f;

	ret = input_open(path, "the trace", 0, &f, err, errlen);
	if (ret)
		return ret;
	if (!fstat(fileno(f), &sb))
		size = (unsigned long long)sb.st_size;
	/* A trace.dat's layout first, here: most damage costs no child. */
	if (fread(buf, 1, sizeof(dat_magic) - 1, f) == sizeof(dat_magic) - 1 &&
	    !memcmp(buf, dat_magic, sizeof(dat_magic) - 1)) {
		ret = trace_dat_check(path, fileno(f), size, err, errlen);
		if (ret) {
			fclose(f);
			return ret;
		}
	}
	rewind(f);
	if (pipe2(fds, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		fclose(f);
		return ret;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		close(fds[0]);
		close(fds[1]);
		fclose(f);
		return ret;
	}
	if (!pid) {
		/*
		 * The child: libtracecmd may crash on a damaged trace.dat,
		 * and both readers stay under a memory limit.
		 */
		struct trace mine = { 0 };
		int null = open("/dev/null", O_WRONLY);

		close(fds[0]);
		/* The parent says what went wrong, in one line. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		/* A crash ends the child, plainly: no handler of ours. */
		for (n = 0; n < (ssize_t)ARRAY_SIZE(crash_signals); n++)
			signal(crash_signals[n], SIG_DFL);
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
#ifndef TRAPCHECK_SANITIZED
		setrlimit(RLIMIT_AS, &(struct rlimit){ TRACE_MAX_MEMORY,
						       TRACE_MAX_MEMORY });
#endif
		ret = read_here(&mine, path, f, err, errlen);
		one_line(err);
		send_answer(fds[1], &mine, ret, err);
	}
	close(fds[1]);
	fclose(f);
	hung = !read_answer(fds[0], &b, time(NULL) + TRACE_BASE_SECONDS +
			    (time_t)(size >> 20));
	close(fds[0]);
	if (hung)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	bytes_put(&b, "", 1);
	if (hung)
		snprintf(err, errlen, "%s: reading it took more than %llu s "
			 "(the limit of docs/trace.md): a damaged trace.dat?",
			 path, TRACE_BASE_SECONDS + (size >> 20));
	else if (WIFSIGNALED(status))
		snprintf(err, errlen, "%s: reading it crashed (signal %d: %s): "
			 "a damaged trace.dat?", path, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == TC_EXIT_INTERNAL)
		snprintf(err, errlen, "%s: reading it ran out of memory (the "
			 "limit is %llu MiB)", path, TRACE_MAX_MEMORY >> 20);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) ||
		 !take_answer(t, (char *)b.data, &ret, err, errlen))
		snprintf(err, errlen, "%s: reading it failed (exit status "
			 "%d)", path, WIFEXITED(status) ?
			 WEXITSTATUS(status) : -1);
	else
		goto out_free;
	ret = -EINVAL;
out_free:
	bytes_free(&b);
	one_line(err);
	return ret;
}

void trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->sites[i].what);
	free(t->sites);
	memset(t, 0, sizeof(*t));
}
