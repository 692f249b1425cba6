// SPDX-License-Identifier: GPL-2.0
/*
 * emit-trace.c - trapcheck trace's report as text, JSON and SARIF
 * (include/trapcheck/output/trace-report.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/base/util.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/output/json.h"
#include "trapcheck/output/trace-report.h"

struct trace_line *trace_report_line(struct trace_report *j,
				     const char *file, int line,
				     const char *func, const char *what,
				     const char *kind)
{
	struct trace_line *m;
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

static int by_count(const void *x, const void *y)
{
	const struct trace_line *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if (strcmp(a->file, b->file))
		return strcmp(a->file, b->file);
	return a->line - b->line;
}

void trace_report_sort(struct trace_report *r)
{
	sort_n(r->v, r->nr, sizeof(*r->v), by_count);
}

double trace_report_share(const struct trace_report *j, unsigned long n)
{
	return j->total ? 100.0 * (double)n / (double)j->total : 0;
}

/* How often the trace saw finding @f's line. */
unsigned long trace_report_count(const struct trace_report *j,
				 const struct finding *f)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < j->nr; i++)
		if (j->v[i].line == (int)f->site->line &&
		    !strcmp(j->v[i].file, f->site->file))
			n += j->v[i].count;
	return n;
}

int trace_report_text(FILE *out, const struct trace_report *j,
		      const struct findings *fs)
{
	size_t i;

	for (i = 0; i < j->nr; i++) {
		const struct trace_line *m = &j->v[i];

		fprintf(out, "%s:%d: trapped %lu time%s (%.1f%%): %s in %s(): ",
			m->file, m->line, m->count, m->count == 1 ? "" : "s",
			trace_report_share(j, m->count), m->what, m->func);
		if (m->reported)
			fprintf(out, "reported%s [%s, %s]\n",
				m->note ? " as a note" : "", m->rule,
				m->root ? m->root : "no root set");
		else
			fprintf(out, "missed: %s\n", m->why);
	}
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];
		const struct finding_note *n = finding_note_of(fs, f);

		if (!f->read.trap)
			continue;	/* preempt-guard, slow-entropy */
		if (n && n->measured)
			fprintf(out,
				"%s:%u: measured %lu trap%s (%.1f%%): %s "
				"in %s() [%s]\n",
				f->site->file, f->site->line, n->measured,
				n->measured == 1 ? "" : "s",
				100 * n->measured_share, f->rule,
				f->fn->name, f->root ? f->root : "-");
		else
			fprintf(out, "%s:%u: not observed: %s in %s() [%s]\n",
				f->site->file, f->site->line, f->rule,
				f->fn->name, f->root ? f->root : "-");
	}
	return ferror(out) ? -EIO : 0;
}

void trace_report_summary(const struct trace_report *j,
			  const struct findings *fs)
{
	size_t i, reported = 0, missed = 0, seen = 0, trapping = 0;
	unsigned long traps_reported = 0;

	for (i = 0; i < j->nr; i++) {
		if (j->v[i].reported) {
			reported++;
			traps_reported += j->v[i].count;
		} else {
			missed++;
		}
	}
	for (i = 0; i < fs->nr; i++) {
		if (!fs->v[i].read.trap)
			continue;	/* preempt-guard, slow-entropy */
		trapping++;
		seen += trace_report_count(j, &fs->v[i]) != 0;
	}
	diag_info("%lu traps at %zu source lines (%lu at addresses the "
		  "vmlinux does not place); %zu reported (%.1f%% of the "
		  "traps), %zu missed; %zu of %zu trapping warnings observed",
		  j->total, j->nr, j->unplaced, reported,
		  trace_report_share(j, traps_reported), missed, seen,
		  trapping);
}


int trace_report_json(FILE *out, const struct trace_report *j,
		      const struct findings *warn, const struct findings *low)
{
	json_t *root = json_object(), *sites = json_array();
	json_t *fs = json_array(), *sum = json_object();
	size_t i;
	int ret = 0;

	for (i = 0; i < j->nr; i++) {
		const struct trace_line *m = &j->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "file", json_path(m->file));
		json_object_set_new(o, "line", json_integer(m->line));
		json_object_set_new(o, "function", json_text(m->func));
		json_object_set_new(o, "kind",
				    json_text(m->kind));
		json_object_set_new(o, "what", json_text(m->what));
		json_object_set_new(o, "count",
				    json_integer((json_int_t)m->count));
		json_object_set_new(
			o, "share",
			json_real(trace_report_share(j, m->count) / 100));
		json_object_set_new(o, "status", json_text(
			m->reported ? (m->note ? "note" : "reported") :
			"missed"));
		json_object_set_new(o, "rule", json_text(m->rule));
		json_object_set_new(o, "root", json_text(m->root));
		json_object_set_new(o, "reason", json_text(m->why));
		json_array_append_new(sites, o);
	}
	for (i = 0; i < warn->nr + low->nr; i++) {
		const struct finding *f = i < warn->nr ?
			&warn->v[i] : &low->v[i - warn->nr];
		unsigned long n = trace_report_count(j, f);
		json_t *o = json_object();

		json_object_set_new(o, "rule", json_text(f->rule));
		json_object_set_new(o, "file", json_path(f->site->file));
		json_object_set_new(o, "line", json_integer(f->site->line));
		json_object_set_new(o, "function", json_text(f->fn->name));
		json_object_set_new(o, "root", json_text(f->root));
		json_object_set_new(o, "confidence",
				    json_text(finding_low(f) ? "low" : "high"));
		if (n) {
			json_t *mo = json_object();

			json_object_set_new(mo, "count",
					    json_integer((json_int_t)n));
			json_object_set_new(
				mo, "share",
				json_real(trace_report_share(j, n) / 100));
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

/* SARIF: each missed line a note of the rule "trace-missed". */
static void trace_sarif_missed(const struct trace_report *j, json_t **rules,
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
		const struct trace_line *m = &j->v[i];
		char *msg;

		if (m->reported)
			continue;
		msg = xasprintf("trapped %lu time%s (%.1f%%): %s in %s(); "
				"missed: %s",
				m->count, m->count == 1 ? "" : "s",
				trace_report_share(j, m->count), m->what,
				m->func, m->why);
		json_array_append_new(*results, json_pack(
			"{s:s, s:s, s:{s:s}, "
			"s:[{s:{s:{s:s, s:s}, s:{s:i}}}], s:{s:I, s:f, s:s}}",
			"ruleId", "trace-missed", "level", "note",
			"message", "text", msg, "locations",
			"physicalLocation", "artifactLocation", "uri",
			m->file, "uriBaseId", "SRCROOT", "region",
			"startLine", m->line, "properties", "count",
			(json_int_t)m->count, "share",
			trace_report_share(j, m->count) / 100, "reason",
			m->why));
		free(msg);
	}
}

int trace_report_sarif(FILE *out, const struct trace_report *r,
		       const struct findings *fs, const struct findings *low,
		       const struct summary *sum, const char *root)
{
	json_t *rules, *results;
	int ret;

	trace_sarif_missed(r, &rules, &results);
	ret = emit_sarif_more(out, fs, low, sum, root, rules, results);
	json_decref(rules);
	json_decref(results);
	return ret;
}

void trace_report_free(struct trace_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
