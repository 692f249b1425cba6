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

#include <jansson.h>

#include "prog.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/input/dwsym.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/input/trace.h"
#include "trapcheck/base/util.h"
#include "trapcheck/output/json.h"

/* A trapped source line: the trace's sites at PCs of one line, summed. */
struct msite {
	const char *file, *func, *what;
	int line;
	enum trace_kind kind;
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

struct join {
	struct msite *v;
	size_t nr, alloc;
	unsigned long total, unplaced;
};

static const char *const kind_names[] = {
	[TRACE_SYSREG] = "sysreg", [TRACE_CPUID] = "cpuid",
	[TRACE_MSR] = "msr",
};

/*
 * A DWARF file name relative to the tree: "/build/linux/mm/memory.c" ->
 * "mm/memory.c" when the tree is /build/linux, else as the compiler
 * wrote it ("./arch/..." loses its "./").
 */
static const char *relative(const char *root, const char *file)
{
	size_t n = root ? strlen(root) : 0;

	if (n && !strncmp(file, root, n) && file[n] == '/')
		file += n + 1;
	while (!strncmp(file, "./", 2))
		file += 2;
	return file;
}

static struct msite *site_of(struct join *j, const char *file, int line,
			     const char *func, const char *what,
			     enum trace_kind kind)
{
	struct msite *m;
	size_t i;

	for (i = 0; i < j->nr; i++) {
		m = &j->v[i];
		if (m->line == line && !strcmp(m->file, file) &&
		    !strcmp(m->what, what))
			return m;
	}
	m = PUSH(j->v, j->nr, j->alloc);
	memset(m, 0, sizeof(*m));
	m->file = file;
	m->line = line;
	m->func = func ? func : "?";
	m->what = what;
	m->kind = kind;
	return m;
}

static const struct finding *finding_at(const struct findings *fs,
					const char *file, int line)
{
	size_t i;

	for (i = 0; i < fs->nr; i++)
		if (fs->v[i].line == (unsigned int)line &&
		    !strcmp(fs->v[i].file, file))
			return &fs->v[i];
	return NULL;
}

/* Why trapcheck did not report a trapped line, as far as it can tell. */
static const char *why_missed(const struct analysis *a, const struct msite *m)
{
	const struct graph *g = &a->graph;
	size_t i;
	int n[1];

	for (i = 0; i < g->nr_sinks; i++) {
		const struct gsink *s = &g->sinks[i];

		if (s->line != (unsigned int)m->line ||
		    strcmp(s->file, m->file))
			continue;
		if (g->nodes[s->func].cold)
			return "inside cold code";
		if (s->periodic)
			return "rate-limited (a deadline test)";
		if (s->boot)
			return "in the boot phase";
		return "not reachable from any root set";
	}
	if (sink_is_opaque(m->func))
		return "inside a sink function that trapcheck reports at its "
		       "calls, not inlined here: a trace without call stacks "
		       "does not say which call";
	if (graph_find_name(g, m->func, n, 1))
		return "no sink rule for this read";
	return "its function is in no analysed TU";
}

static void join(struct join *j, const struct trace *t, struct dwsym *d,
		 const struct analysis *a, unsigned long long kaslr)
{
	size_t i;

	j->total = t->total;
	for (i = 0; i < t->nr; i++) {
		const struct trace_site *s = &t->sites[i];
		struct dwsym_frame fr[16];
		struct msite *m;
		size_t n, k = 0;

		n = dwsym_frames(d, s->pc - kaslr, fr, ARRAY_SIZE(fr));
		if (!n) {
			j->unplaced += s->count;
			continue;
		}
		/*
		 * A sink wrapper inlined into its caller (cpuid_ebx() into
		 * fault_has_smap()): trapcheck reports the call, so the
		 * trap is placed at the line that called it.
		 */
		while (k + 1 < n && fr[k].func && sink_is_opaque(fr[k].func))
			k++;
		m = site_of(j, relative(a->root, fr[k].file), fr[k].line,
			    fr[k].func, s->what, s->kind);
		m->count += s->count;
	}
	for (i = 0; i < j->nr; i++) {
		struct msite *m = &j->v[i];
		const struct finding *f;

		f = finding_at(&a->findings, m->file, m->line);
		if (!f) {
			f = finding_at(&a->low, m->file, m->line);
			m->note = f != NULL;
		}
		m->reported = f != NULL;
		if (f) {
			m->rule = f->rule;
			m->root = f->root;
		} else {
			m->why = why_missed(a, m);
		}
	}
}

static int by_count(const void *x, const void *y)
{
	const struct msite *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if (strcmp(a->file, b->file))
		return strcmp(a->file, b->file);
	return a->line - b->line;
}

static double share(const struct join *j, unsigned long n)
{
	return j->total ? 100.0 * (double)n / (double)j->total : 0;
}

/* How often the trace saw finding @f's line. */
static unsigned long measured(const struct join *j, const struct finding *f)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < j->nr; i++)
		if (j->v[i].line == (int)f->line &&
		    !strcmp(j->v[i].file, f->file))
			n += j->v[i].count;
	return n;
}

static bool reported_here(const struct msite *m)
{
	return m->reported;
}

static void trace_text(FILE *out, const struct join *j,
		       const struct analysis *a)
{
	size_t i;

	for (i = 0; i < j->nr; i++) {
		const struct msite *m = &j->v[i];

		fprintf(out, "%s:%d: trapped %lu time%s (%.1f%%): %s in %s(): ",
			m->file, m->line, m->count, m->count == 1 ? "" : "s",
			share(j, m->count), m->what, m->func);
		if (reported_here(m))
			fprintf(out, "reported%s [%s, %s]\n",
				m->note ? " as a note" : "", m->rule,
				m->root ? m->root : "no root set");
		else
			fprintf(out, "missed: %s\n", m->why);
	}
	for (i = 0; i < a->findings.nr; i++) {
		const struct finding *f = &a->findings.v[i];

		if (!f->read.trap)
			continue;	/* preempt-guard, slow-entropy */
		if (f->trace.measured)
			fprintf(out,
				"%s:%u: measured %lu trap%s (%.1f%%): %s "
				"in %s() [%s]\n",
				f->file, f->line, f->trace.measured,
				f->trace.measured == 1 ? "" : "s",
				100 * f->trace.measured_share, f->rule,
				f->function, f->root ? f->root : "-");
		else
			fprintf(out, "%s:%u: not observed: %s in %s() [%s]\n",
				f->file, f->line, f->rule, f->function,
				f->root ? f->root : "-");
	}
}

/* The run's one line on stderr, whatever the format. */
static void trace_summary(const struct join *j, const struct analysis *a)
{
	size_t i, reported = 0, missed = 0, seen = 0, trapping = 0;
	unsigned long traps_reported = 0;

	for (i = 0; i < j->nr; i++) {
		if (reported_here(&j->v[i])) {
			reported++;
			traps_reported += j->v[i].count;
		} else {
			missed++;
		}
	}
	for (i = 0; i < a->findings.nr; i++) {
		if (!a->findings.v[i].read.trap)
			continue;	/* preempt-guard, slow-entropy */
		trapping++;
		seen += measured(j, &a->findings.v[i]) != 0;
	}
	diag_info("%lu traps at %zu source lines (%lu at addresses the "
		  "vmlinux does not place); %zu reported (%.1f%% of the "
		  "traps), %zu missed; %zu of %zu trapping warnings observed",
		  j->total, j->nr, j->unplaced, reported,
		  share(j, traps_reported), missed, seen, trapping);
}

static json_t *jstr(const char *s)
{
	return s ? json_text(s) : json_null();
}

static int trace_json(FILE *out, const struct join *j,
		      const struct analysis *a)
{
	json_t *root = json_object(), *sites = json_array();
	json_t *fs = json_array(), *sum = json_object();
	size_t i;
	int ret = 0;

	for (i = 0; i < j->nr; i++) {
		const struct msite *m = &j->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "file", json_text(m->file));
		json_object_set_new(o, "line", json_integer(m->line));
		json_object_set_new(o, "function", json_text(m->func));
		json_object_set_new(o, "kind",
				    json_text(kind_names[m->kind]));
		json_object_set_new(o, "what", json_text(m->what));
		json_object_set_new(o, "count",
				    json_integer((json_int_t)m->count));
		json_object_set_new(o, "share", json_real(share(j, m->count) /
							  100));
		json_object_set_new(o, "status", json_text(
			m->reported ? (m->note ? "note" : "reported") :
			"missed"));
		json_object_set_new(o, "rule", jstr(m->rule));
		json_object_set_new(o, "root", jstr(m->root));
		json_object_set_new(o, "reason", jstr(m->why));
		json_array_append_new(sites, o);
	}
	for (i = 0; i < a->findings.nr + a->low.nr; i++) {
		const struct finding *f = i < a->findings.nr ?
			&a->findings.v[i] : &a->low.v[i - a->findings.nr];
		unsigned long n = measured(j, f);
		json_t *o = json_object();

		json_object_set_new(o, "rule", json_text(f->rule));
		json_object_set_new(o, "file", json_text(f->file));
		json_object_set_new(o, "line", json_integer(f->line));
		json_object_set_new(o, "function", json_text(f->function));
		json_object_set_new(o, "root", jstr(f->root));
		json_object_set_new(o, "confidence",
				    json_text(f->doubt.low ? "low" : "high"));
		if (n) {
			json_t *mo = json_object();

			json_object_set_new(mo, "count",
					    json_integer((json_int_t)n));
			json_object_set_new(mo, "share",
					    json_real(share(j, n) / 100));
			json_object_set_new(o, "measured", mo);
		} else {
			json_object_set_new(o, "measured", json_null());
		}
		json_array_append_new(fs, o);
	}
	json_object_set_new(sum, "traps", json_integer((json_int_t)j->total));
	json_object_set_new(sum, "unplaced",
			    json_integer((json_int_t)j->unplaced));
	json_object_set_new(sum, "sites", json_integer((json_int_t)j->nr));
	json_object_set_new(root, "sites", sites);
	json_object_set_new(root, "findings", fs);
	json_object_set_new(root, "summary", sum);
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || fflush(out))
		ret = -EIO;
	json_decref(root);
	return ret;
}

static int cmp_ull(const void *x, const void *y)
{
	unsigned long long a = *(const unsigned long long *)x;
	unsigned long long b = *(const unsigned long long *)y;

	return a < b ? -1 : a > b;
}

static int by_trap_count(const void *x, const void *y)
{
	const struct trace_site *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return cmp_ull(&a->pc, &b->pc);
}

/* The sites an inference looks at: the busiest ones. */
#define KASLR_SITES 64

/*
 * The KASLR offset that puts the most of the trace's busiest PCs on a
 * trapping instruction of the vmlinux (an MRS of an op0=3 register,
 * CPUID, RDMSR): each PC votes for every offset, a multiple of the
 * randomisation's granularity (arm64 64 KiB, x86 2 MiB), that places it
 * on one. 0 when the trace has no trap or the PCs are where the vmlinux
 * has them; -EINVAL with a message when no offset stands out.
 */
static int kaslr_infer(const struct trace *t, struct dwsym *d,
		       unsigned long long *off, char *err, size_t errlen)
{
	unsigned long long *ins[3] = { NULL }, *votes = NULL;
	size_t nins[3] = { 0 }, nv = 0, av = 0, i, k, used = 0;
	size_t best = 0, second = 0, zero = 0;
	unsigned long long best_off = 0;
	struct trace_site *v;
	int ret = 0;

	*off = 0;
	if (!t->nr)
		return 0;
	v = xmalloc(t->nr * sizeof(*v));
	memcpy(v, t->sites, t->nr * sizeof(*v));
	qsort(v, t->nr, sizeof(*v), by_trap_count);
	for (i = 0; i < t->nr && used < KASLR_SITES; i++) {
		enum dwsym_insn kind = v[i].kind == TRACE_SYSREG ? DWSYM_MRS :
				       v[i].kind == TRACE_CPUID ? DWSYM_CPUID :
				       DWSYM_RDMSR;
		unsigned long long align = kind == DWSYM_MRS ? 0x10000 :
					   0x200000;

		/* One vote a PC: a PC traced twice (two registers) once. */
		if (i && v[i].pc == v[i - 1].pc)
			continue;
		if (!ins[kind])
			nins[kind] = dwsym_insns(d, kind, &ins[kind]);
		used++;
		for (k = 0; k < nins[kind]; k++) {
			unsigned long long delta = v[i].pc - ins[kind][k];

			if (!(delta % align))
				*PUSH(votes, nv, av) = delta;
		}
	}
	qsort(votes, nv, sizeof(*votes), cmp_ull);
	for (i = 0; i < nv; i = k) {
		for (k = i; k < nv && votes[k] == votes[i]; k++)
			;
		if (!votes[i])
			zero = k - i;
		if (k - i > best) {
			second = best;
			best = k - i;
			best_off = votes[i];
		} else if (k - i > second) {
			second = k - i;
		}
	}
	if (best && zero == best) {
		*off = 0;	/* where the vmlinux has them */
	} else if (best > second && best * 2 > used &&
		   (best >= 2 || used == 1)) {
		*off = best_off;
		diag_info("KASLR offset 0x%llx inferred: %zu of the trace's "
			  "%zu busiest PCs are trapping instructions of the "
			  "vmlinux there", best_off, best, used);
	} else {
		snprintf(err, errlen, "cannot infer the guest's KASLR offset "
			 "from the trace (%zu PCs, best offset 0x%llx places "
			 "%zu): give --kaslr-offset or --guest-text",
			 used, best_off, best);
		ret = -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(ins); i++)
		free(ins[i]);
	free(votes);
	free(v);
	return ret;
}

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
	if (kaslr_infer(t, d, off, err, sizeof(err))) {
		diag_error("%s: %s", p->words[0], err);
		return -EINVAL;
	}
	return 0;
}

/* Each finding's measured count; with --rank=measured, the busiest first. */
static void measure(struct findings *fs, const struct join *j, bool rank)
{
	size_t i, k;

	for (i = 0; i < fs->nr; i++) {
		struct finding *f = &fs->v[i];

		f->trace.has_measured = true;
		f->trace.measured = measured(j, f);
		f->trace.measured_share = share(j, f->trace.measured) / 100;
	}
	/* Insertion sort: stable, the estimate's order among equals. */
	for (i = 1; rank && i < fs->nr; i++) {
		struct finding f = fs->v[i];

		for (k = i; k && fs->v[k - 1].trace.measured < f.trace.measured;
		     k--)
			fs->v[k] = fs->v[k - 1];
		fs->v[k] = f;
	}
}

/* SARIF: each missed line a note of the rule "trace-missed". */
static void trace_sarif_missed(const struct join *j, json_t **rules,
			       json_t **results)
{
	json_t *r = json_object();
	size_t i;

	json_object_set_new(r, "id", json_text("trace-missed"));
	json_object_set_new(r, "name", json_text("TraceMissed"));
	json_object_set_new(r, "shortDescription", json_pack("{s:s}", "text",
		"A line the hypervisor trace saw trap that trapcheck does "
		"not report"));
	json_object_set_new(r, "defaultConfiguration",
			    json_pack("{s:s}", "level", "note"));
	*rules = json_array();
	json_array_append_new(*rules, r);
	*results = json_array();
	for (i = 0; i < j->nr; i++) {
		const struct msite *m = &j->v[i];
		char *msg;

		if (m->reported)
			continue;
		msg = xasprintf("trapped %lu time%s (%.1f%%): %s in %s(); "
				"missed: %s", m->count, m->count == 1 ? "" :
				"s", share(j, m->count), m->what, m->func,
				m->why);
		json_array_append_new(*results, json_pack(
			"{s:s, s:s, s:{s:s}, s:[{s:{s:{s:s, s:s}, s:{s:i}}}], "
			"s:{s:I, s:f, s:s}}",
			"ruleId", "trace-missed", "level", "note",
			"message", "text", msg,
			"locations", "physicalLocation", "artifactLocation",
			"uri", m->file, "uriBaseId", "SRCROOT", "region",
			"startLine", m->line,
			"properties", "count", (json_int_t)m->count, "share",
			share(j, m->count) / 100, "reason", m->why));
		free(msg);
	}
}

static int trace_mode(struct prog *p, struct analysis *a)
{
	struct trace t = { 0 };
	struct join j = { 0 };
	struct dwsym *d = NULL;
	struct out_file of = { 0 };
	unsigned long long kaslr = 0;
	char err[1024];
	FILE *out = stdout;
	int ret;

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
	join(&j, &t, d, a, kaslr);
	sort_n(j.v, j.nr, sizeof(*j.v), by_count);
	measure(&a->findings, &j, p->rank_measured);
	measure(&a->low, &j, p->rank_measured);
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
	if (!strcmp(p->format, "json")) {
		ret = trace_json(out, &j, a);
	} else if (!strcmp(p->format, "sarif")) {
		json_t *rules, *results;

		trace_sarif_missed(&j, &rules, &results);
		ret = emit_sarif_more(out, &a->findings, &a->low,
				      &a->summary, a->root, rules, results);
		json_decref(rules);
		json_decref(results);
	} else {
		trace_text(out, &j, a);
		ret = ferror(out) ? -EIO : 0;
	}
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
	trace_summary(&j, a);
out_close:
	free(j.v);
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
