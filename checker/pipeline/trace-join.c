// SPDX-License-Identifier: GPL-2.0
/*
 * trace-join.c - a hypervisor trace joined with the analysis
 * (include/trapcheck/pipeline/tracejoin.h).
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/base/util.h"
#include "trapcheck/input/dwsym.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/pipeline/tracejoin.h"

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

static const struct finding *finding_at(const struct findings *fs,
					const char *file, int line)
{
	size_t i;

	for (i = 0; i < fs->nr; i++)
		if (fs->v[i].site->line == (unsigned int)line &&
		    !strcmp(fs->v[i].site->file, file))
			return &fs->v[i];
	return NULL;
}

/* Why trapcheck did not report a trapped line, as far as it can tell. */
static const char *why_missed(const struct analysis *a,
			      const struct trace_line *m)
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

void tracejoin_run(struct trace_report *j, const struct trace *t,
		struct dwsym *d, const struct analysis *a,
		unsigned long long kaslr)
{
	size_t i;

	j->total = t->total;
	for (i = 0; i < t->nr; i++) {
		const struct trace_site *s = &t->sites[i];
		struct dwsym_frame fr[16];
		struct trace_line *m;
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
		m = trace_report_line(j, relative(a->root, fr[k].file),
				      fr[k].line, fr[k].func, s->what,
				      t->kinds[s->kind].name);
		m->count += s->count;
	}
	for (i = 0; i < j->nr; i++) {
		struct trace_line *m = &j->v[i];
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
	trace_report_sort(j);
}

void tracejoin_measure(struct findings *fs, const struct trace_report *j,
		       bool rank)
{
	unsigned long *count;
	size_t i, k;

	count = xcalloc(fs->nr ? fs->nr : 1, sizeof(*count));
	for (i = 0; i < fs->nr; i++) {
		struct finding_note *n = finding_note(fs, &fs->v[i]);

		n->has_measured = true;
		n->measured = trace_report_count(j, &fs->v[i]);
		n->measured_share = trace_report_share(j, n->measured) / 100;
		count[i] = n->measured;
	}
	/* Insertion sort: stable, the estimate's order among equals. */
	for (i = 1; rank && i < fs->nr; i++) {
		struct finding f = fs->v[i];
		unsigned long c = count[i];

		for (k = i; k && count[k - 1] < c; k--) {
			fs->v[k] = fs->v[k - 1];
			count[k] = count[k - 1];
		}
		fs->v[k] = f;
		count[k] = c;
	}
	free(count);
}
