// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - count a guest's traps from a KVM host's trace
 * (include/trapcheck/input/trace.h): trace-cmd report's lines and
 * tracefs's, which differ only in their headers, and the events of a
 * trace.dat (trace-dat.c), each printed by libtraceevent as trace-cmd
 * report prints it, so that all go through this one parser.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-internal.h"

static int count(struct reader *r, unsigned long long pc,
		 enum trace_kind kind, const char *what)
{
	char *key = xasprintf("%llx %d %s", pc, (int)kind, what);
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

int trace_bad(struct reader *r, const char *why)
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
const char *const trace_sysreg_fields[TRACE_SYSREG_FIELDS] = {
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
	unsigned long long v[TRACE_SYSREG_FIELDS];
	char name[64];
	size_t i;

	for (i = 0; i < TRACE_SYSREG_FIELDS; i++)
		if (!raw_field(p, trace_sysreg_fields[i], &v[i]))
			return trace_bad(r, "kvm_sys_access: no vcpu_pc, is_write, "
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
		return trace_bad(r, "kvm_sys_access: no \"PC: <hex>\"");
	if (sscanf(e, " %63s (%d,%d,%d,%d,%d)%n", name, &f[0], &f[1], &f[2],
		   &f[3], &f[4], &n) != 6 || !n)
		return trace_bad(r, "kvm_sys_access: no register and encoding");
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
		return trace_bad(r, "kvm_sys_access: neither read nor write");
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
/* What a site of a kvm_exit trap is called, by kind. */
static const char *const kind_what[] = {
	[TRACE_CPUID] = "CPUID", [TRACE_MSR] = "MSR",
};

static int kvm_exit(struct reader *r, unsigned int cpu, const char *p)
{
	unsigned long long pc, info1 = 0;
	const char *reason, *rip, *info, *e;
	size_t n, i;

	reason = strstr(p, "reason ");
	rip = strstr(p, " rip 0x");
	if (!reason || !rip || rip < reason)
		return trace_bad(r, "kvm_exit: no \"reason <name> rip 0x<hex>\"");
	reason += 7;
	n = strcspn(reason, " ");
	if (!n || !hex(rip + 7, &pc, &e))
		return trace_bad(r, "kvm_exit: no reason or rip");
	info = strstr(e, "info1 0x");
	if (info && !hex(info + 8, &info1, &e))
		return trace_bad(r, "kvm_exit: trace_bad info1");
	info = info ? NULL : strstr(e, " info ");
	if (info && !hex(info + 6, &info1, &e))
		return trace_bad(r, "kvm_exit: trace_bad info");
	if (flush_msr(r, cpu))
		return -EINVAL;
	for (i = 0; i < r->t->nr_exits; i++) {
		const struct trace_exit *x = &r->t->exits[i];

		if (strlen(x->reason) != n || strncmp(reason, x->reason, n) ||
		    (x->read && info1))
			continue;
		if (x->kind != TRACE_MSR)
			return count(r, pc, x->kind, kind_what[x->kind]);
		if (cpu >= TRACE_CPUS)
			return count(r, pc, TRACE_MSR, "MSR");
		r->msr_pc[cpu] = pc ? pc : 1;
		break;
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
		return trace_bad(r, "kvm_msr: no \"msr_read <hex>\"");
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
int trace_read_event(struct reader *r, unsigned int cpu, const char *event,
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

int trace_read_line(struct reader *r, char *line)
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

void trace_reader_init(struct reader *r, struct trace *t, const char *name,
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
int trace_reader_done(struct reader *r, int ret)
{
	unsigned int cpu;

	for (cpu = 0; cpu < TRACE_CPUS; cpu++)
		if (flush_msr(r, cpu) && !ret)
			ret = -EINVAL;
	free(r->msr_pc);
	strmap_free(&r->index);
	return ret;
}

int trace_too_long(struct reader *r)
{
	return trace_bad(r, "a line longer than " TRACE_MAX_LINE_TEXT " bytes: "
		   "not trace text (the limit of docs/trace.md)");
}

int trace_read_text(struct trace *t, const char *name, const char *text,
		    char *err, size_t errlen)
{
	struct reader r;
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
int trace_read_text_file(struct trace *t, const char *path, FILE *f,
			  char *err, size_t errlen)
{
	char *buf = xmalloc(TRACE_MAX_LINE + 2);
	struct reader r;
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
