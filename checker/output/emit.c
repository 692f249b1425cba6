// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - text (gcc diagnostic form) and JSON (jansson) output; SARIF
 * is emit-sarif.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "trapcheck/output/emit.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"
#include "trapcheck/output/json.h"

#include "emit-internal.h"

static void print_chain(FILE *out, const struct chain *c)
{
	char *t = chain_text(c, false);

	fputs(t, out);
	free(t);
}

/* "about N a second: ..." or the boot phase's "N reads per call". */
static void print_estimate(FILE *out, const struct finding *f)
{
	fprintf(out, "%s:%u:%u: note: ", f->file, f->line, f->col);
	if (f->per_boot)
		fprintf(out, "boot phase: about %.0f read%s per call from %s "
			"until the guard flips (loops %.0f%s); not a rate",
			f->estimate, f->estimate == 1 ? "" : "s", f->root,
			f->loops, f->loop_guess ? ", a guess" : "");
	else
		fprintf(out, "about %.0f a second: %s weight %.0f x loops "
			"%.0f%s", f->estimate, f->root, f->weight, f->loops,
			f->loop_guess ? " (a guess: a loop of unknown bound)" :
			"");
	fputc('\n', out);
}

int emit_text(FILE *out, const struct findings *fs,
	      const struct emit_opts *o)
{
	size_t i, j;

	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];
		char *only = finding_configs_text(f);

		fprintf(out, "%s:%u:%u: warning: %s%s [%s]\n", f->file,
			f->line, f->col, f->message, only, f->rule);
		free(only);
		if (f->fix_note)
			fprintf(out, "%s:%u:%u: note: %s\n", f->file, f->line,
				f->col, f->fix_note);
		if (f->waiver)
			fprintf(out, "%s:%u:%u: note: waived: %s\n", f->file,
				f->line, f->col, f->waiver);
		if (!f->root)
			continue;	/* a site on no hot path */
		fprintf(out, "%s:%u:%u: note: reached from %s (%s phase%s): ",
			f->file, f->line, f->col, f->root, f->phase,
			f->low ? ", low confidence" : "");
		print_chain(out, &f->chain);
		fputc('\n', out);
		print_estimate(out, f);
		for (j = 0; j < f->nr_others; j++) {
			fprintf(out, "%s:%u:%u: note: also reached from %s: ",
				f->file, f->line, f->col, f->root);
			print_chain(out, &f->others[j]);
			fputc('\n', out);
		}
		for (j = 0; j < f->nr_also; j++) {
			const struct finding *a = &f->also[j];

			fprintf(out, "%s:%u:%u: note: also reached from %s "
				"(%s phase%s%s): ", f->file, f->line, f->col,
				a->root, a->phase,
				strcmp(a->context, "nested") ? "" :
				", on a KVM host", a->low ?
				", low confidence" : "");
			print_chain(out, &a->chain);
			fputc('\n', out);
		}
		if (!o->verbose)
			continue;
		for (j = 0; j + 1 < f->chain.len; j++) {
			const struct chain_step *s = &f->chain.steps[j];
			const struct chain_step *n = &f->chain.steps[j + 1];

			fprintf(out, "%s:%u:%u: note: %s() calls %s()",
				s->file, s->line, s->col, s->function,
				n->function);
			if (n->via)
				fprintf(out, n->inferred ? " through %s" :
					" as %s()", n->via);
			if (s->guards)
				fprintf(out, " when %s", s->guards);
			fputc('\n', out);
		}
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

void emit_low(FILE *out, const struct findings *low)
{
	size_t i;

	for (i = 0; i < low->nr; i++) {
		const struct finding *f = &low->v[i];
		char *arg = guards_find(f->only_when, GUARD_ARGUMENT);

		if (f->unless)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s, but %s: ",
				f->file, f->line, f->col, f->function,
				f->root, f->unless);
		else if (arg)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s only when "
				"%s (argument values are not followed): ",
				f->file, f->line, f->col, f->function,
				f->root, arg);
		else
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s through %u "
				"inferred calls: ", f->file, f->line, f->col,
				f->function, f->root, f->inferred);
		free(arg);
		print_chain(out, &f->chain);
		fprintf(out, " [%s]\n", f->rule);
	}
	fflush(out);
}

void emit_summary(FILE *diag, const struct run_summary *sum,
		  size_t nr_findings)
{
	size_t i;

	for (i = 0; i < sum->nr_problems; i++) {
		const struct tu_problem *p = &sum->problems[i];

		if (p->parse_error)
			fprintf(diag, "%s: note: not analysed: %s\n", p->file,
				p->first_error);
		else
			fprintf(diag, "%s: note: parsed with %u error%s, "
				"first: %s\n", p->file, p->nr_errors,
				p->nr_errors == 1 ? "" : "s", p->first_error);
	}
	if (sum->have_caps || sum->have_ftr) {
		fprintf(diag, "trapcheck: from the tree: %zu capabilities (%zu "
			"unresolved", sum->caps, sum->nr_unresolved);
		for (i = 0; i < sum->nr_unresolved; i++)
			fprintf(diag, "%s%s", i ? ", " : ": ",
				sum->unresolved_caps[i]);
		fprintf(diag, "), %zu sanitised registers (%zu unknown",
			sum->ftr_regs, sum->nr_unknown_regs);
		for (i = 0; i < sum->nr_unknown_regs; i++)
			fprintf(diag, "%s%s", i ? ", " : ": ",
				sum->unknown_regs[i]);
		fputs(")\n", diag);
	}
	if (sum->nr_pruned) {
		fprintf(diag, "trapcheck: %zu call%s through struct members "
			"not followed (more than %zu targets):", sum->nr_pruned,
			sum->nr_pruned == 1 ? "" : "s", sum->max_targets);
		for (i = 0; i < sum->nr_pruned; i++)
			fprintf(diag, "%s %s (%zu)", i ? "," : "",
				sum->pruned[i].member, sum->pruned[i].targets);
		fputc('\n', diag);
	}
	if (sum->dispatch) {
		const struct dispatch_stats *d = sum->dispatch;

		fprintf(diag, "trapcheck: calls through struct members: %zu "
			"by ops table, %zu with no target; by object: %zu on "
			"a named control block, %zu on an unnamed one; by "
			"registration: %zu on a known list head (%zu "
			"registrations), %zu in wrappers, %zu unresolved",
			d->by_table, d->no_target, d->by_object,
			d->object_unknown, d->by_registration,
			d->registrations, d->through_wrapper, d->unresolved);
		for (i = 0; i < d->nr_examples; i++)
			fprintf(diag, "%s%s", i ? ", " : " (", d->examples[i]);
		fputs(d->nr_examples ? ")\n" : "\n", diag);
	}
	if (sum->rate_limited)
		fprintf(diag, "trapcheck: %zu call and sink site%s under a "
			"deadline test (rate-limited) not walked from the root "
			"sets\n", sum->rate_limited,
			sum->rate_limited == 1 ? "" : "s");
	if (sum->masked_across)
		fprintf(diag, "trapcheck: %zu call and sink site%s run with "
			"interrupts masked, known across calls\n",
			sum->masked_across, sum->masked_across == 1 ? "" : "s");
	if (sum->stopped)
		fprintf(diag, "trapcheck: %zu calls into another root set's "
			"entry point left to that root set\n", sum->stopped);
	if (sum->low)
		fprintf(diag, "trapcheck: %zu site%s of low confidence "
			"(more than one inferred call, one argument value, "
			"or a read that may not exit): notes, not warnings "
			"(--all-chains warns of "
			"them)\n", sum->low, sum->low == 1 ? "" : "s");
	if (sum->baseline)
		fprintf(diag, "trapcheck: baseline: %zu new, %zu known, %zu "
			"fixed\n", nr_findings, sum->known, sum->fixed);
	if (sum->waived)
		fprintf(diag, "trapcheck: %zu waived\n", sum->waived);
	if (sum->from_db)
		fprintf(diag, "trapcheck: %zu TUs parsed, %zu from the database"
			"%s\n", sum->parsed, sum->from_db,
			sum->removed ? " (some removed from it)" : "");
	fprintf(diag, "trapcheck: %zu TUs analysed (%zu with errors, %zu "
		"skipped), %zu functions, %zu edges, %zu sink sites, %zu "
		"findings\n", sum->tus, sum->nr_problems, sum->skipped,
		sum->functions, sum->edges, sum->sinks, nr_findings);
	fflush(diag);
}

static json_t *str_array(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
}

json_t *jstr(const char *s)
{
	return s ? json_text(s) : json_null();
}

/* The @n elements of @size bytes at @v, each made an object by @one. */
static json_t *objects_json(const void *v, size_t n, size_t size,
			    json_t *(*one)(const void *elem))
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, one((const char *)v + i * size));
	return a;
}

static json_t *step_json(const void *elem)
{
	const struct chain_step *s = elem;
	json_t *step = json_object();

	json_object_set_new(step, "function", json_text(s->function));
	json_object_set_new(step, "file", json_text(s->file));
	json_object_set_new(step, "line", json_integer(s->line));
	json_object_set_new(step, "column", json_integer(s->col));
	if (s->via)
		json_object_set_new(step, "via", json_text(s->via));
	if (s->inferred)
		json_object_set_new(step, "inferred", json_true());
	if (s->loop > 1)
		json_object_set_new(step, "loop", json_integer(s->loop));
	if (s->guards)
		json_object_set_new(step, "guards", json_text(s->guards));
	return step;
}

static json_t *chain_json(const struct chain *c)
{
	return objects_json(c->steps, c->len, sizeof(*c->steps), step_json);
}

static json_t *estimate_json(const struct finding *f)
{
	json_t *est = json_object();

	json_object_set_new(est, "unit", json_text(f->per_boot ?
		"reads_per_call_until_guard" : "reads_per_second"));
	if (!f->per_boot)
		json_object_set_new(est, "per_second",
				    json_real(f->estimate));
	json_object_set_new(est, "value", json_real(f->estimate));
	json_object_set_new(est, "root_weight", json_real(f->weight));
	json_object_set_new(est, "loop_factor", json_real(f->loops));
	json_object_set_new(est, "loop_factor_guessed",
			    json_boolean(f->loop_guess));
	json_object_set_new(est, "reads_per_call", json_integer(1));
	return est;
}

static json_t *finding_json(const struct finding *f)
{
	json_t *o = json_object(), *others = json_array();
	size_t i;

	json_object_set_new(o, "rule", json_text(f->rule));
	json_object_set_new(o, "file", json_text(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->col));
	json_object_set_new(o, "function", json_text(f->function));
	json_object_set_new(o, "sink", json_text(f->sink));
	json_object_set_new(o, "register", jstr(f->reg));
	json_object_set_new(o, "trap_class", jstr(f->trap));
	json_object_set_new(o, "capability", jstr(f->cap));
	json_object_set_new(o, "field", jstr(f->field));
	json_object_set_new(o, "sanitised", f->sanitised < 0 ? json_null() :
			    json_boolean(f->sanitised));
	if (f->mask)
		json_object_set_new(o, "mask", json_text(f->mask));
	if (f->feature)
		json_object_set_new(o, "feature", json_text(f->feature));
	if (f->unless)
		json_object_set_new(o, "may_not_exit", json_text(f->unless));
	json_object_set_new(o, "root", jstr(f->root));
	json_object_set_new(o, "phase", json_text(f->phase));
	json_object_set_new(o, "context", json_text(f->context));
	json_object_set_new(o, "confidence", json_text(f->low ? "low" :
							     "high"));
	json_object_set_new(o, "inferred_calls", json_integer(f->inferred));
	if (f->nr_configs)
		json_object_set_new(o, "configs", finding_configs_json(f));
	if (f->nr_config_syms)
		json_object_set_new(o, "config_symbols",
				    finding_config_syms_json(f));
	if (f->only_when) {
		char *arg = guards_find(f->only_when, GUARD_ARGUMENT);

		json_object_set_new(o, "only_when", jstr(arg));
		free(arg);
	}
	if (f->root)
		json_object_set_new(o, "estimate", estimate_json(f));
	json_object_set_new(o, "message", json_text(f->message));
	if (f->fix_note)
		json_object_set_new(o, "fix", json_text(f->fix_note));
	if (f->waiver)
		json_object_set_new(o, "waived", json_text(f->waiver));
	{
		char *fp = finding_fingerprint(f);
		json_t *fps = json_array(), *roots = json_array();
		json_t *reached = json_array();

		json_object_set_new(o, "fingerprint", json_text(fp));
		json_array_append_new(fps, json_text(fp));
		free(fp);
		if (f->root)
			json_array_append_new(roots, json_text(f->root));
		for (i = 0; i < f->nr_also; i++) {
			const struct finding *a = &f->also[i];
			json_t *r = json_object();

			fp = finding_fingerprint(a);
			json_array_append_new(fps, json_text(fp));
			free(fp);
			json_array_append_new(roots, jstr(a->root));
			json_object_set_new(r, "root", jstr(a->root));
			json_object_set_new(r, "phase", json_text(a->phase));
			json_object_set_new(r, "context",
					    json_text(a->context));
			json_object_set_new(r, "confidence", json_text(
						    a->low ? "low" : "high"));
			json_object_set_new(r, "inferred_calls",
					    json_integer(a->inferred));
			if (a->root)
				json_object_set_new(r, "estimate",
						    estimate_json(a));
			json_object_set_new(r, "chain", chain_json(&a->chain));
			json_array_append_new(reached, r);
		}
		json_object_set_new(o, "fingerprints", fps);
		json_object_set_new(o, "roots", roots);
		json_object_set_new(o, "also_reached", reached);
	}
	json_object_set_new(o, "chain", chain_json(&f->chain));
	for (i = 0; i < f->nr_others; i++)
		json_array_append_new(others, chain_json(&f->others[i]));
	json_object_set_new(o, "other_chains", others);
	return o;
}

/* A count (a size_t member) of a struct, and its name in the JSON. */
struct json_count {
	const char *name;
	size_t offset;
};

#define SUMMARY_COUNT(name, field) \
	{ name, offsetof(struct run_summary, field) }
#define DISPATCH_COUNT(name, field) \
	{ name, offsetof(struct dispatch_stats, field) }

/* The summary's counts, in the order they are written. */
static const struct json_count run_counts[] = {
	SUMMARY_COUNT("entries", entries),
	SUMMARY_COUNT("tus_analysed", tus),
	SUMMARY_COUNT("tus_parsed", parsed),
	SUMMARY_COUNT("tus_with_errors", nr_problems),
	SUMMARY_COUNT("tus_skipped", skipped),
	SUMMARY_COUNT("functions", functions),
	SUMMARY_COUNT("edges", edges),
	SUMMARY_COUNT("sinks", sinks),
};
static const struct json_count link_counts[] = {
	SUMMARY_COUNT("waived", waived),
	SUMMARY_COUNT("inferred_edges", inferred),
	SUMMARY_COUNT("root_entries_left", stopped),
	SUMMARY_COUNT("rate_limited_sites", rate_limited),
	SUMMARY_COUNT("masked_across_calls", masked_across),
	SUMMARY_COUNT("low_confidence_sites", low),
};
static const struct json_count baseline_counts[] = {
	SUMMARY_COUNT("baseline_known", known),
	SUMMARY_COUNT("baseline_fixed", fixed),
};
static const struct json_count dispatch_counts[] = {
	DISPATCH_COUNT("by_ops_table", by_table),
	DISPATCH_COUNT("no_target", no_target),
	DISPATCH_COUNT("by_object", by_object),
	DISPATCH_COUNT("object_unknown", object_unknown),
	DISPATCH_COUNT("by_registration", by_registration),
	DISPATCH_COUNT("registrations", registrations),
	DISPATCH_COUNT("in_wrappers", through_wrapper),
	DISPATCH_COUNT("unresolved", unresolved),
};

static void put_counts(json_t *o, const void *base,
		       const struct json_count *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, json_integer(
			*(const size_t *)((const char *)base + c[i].offset)));
}

static json_t *problem_json(const void *elem)
{
	const struct tu_problem *p = elem;
	json_t *po = json_object();

	json_object_set_new(po, "file", json_text(p->file));
	json_object_set_new(po, "errors", json_integer(p->nr_errors));
	json_object_set_new(po, "first_error", jstr(p->first_error));
	json_object_set_new(po, "analysed", json_boolean(!p->parse_error));
	return po;
}

static json_t *pruned_json(const void *elem)
{
	const struct pruned *p = elem;
	json_t *o = json_object();

	json_object_set_new(o, "member", json_text(p->member));
	json_object_set_new(o, "targets", json_integer(p->targets));
	return o;
}

/* The "summary" object; @findings: how many findings were reported. */
static json_t *summary_json(const struct run_summary *sum, size_t findings)
{
	json_t *s = json_object();

	put_counts(s, sum, run_counts, ARRAY_SIZE(run_counts));
	json_object_set_new(s, "findings", json_integer(findings));
	json_object_set_new(s, "errors",
			    objects_json(sum->problems, sum->nr_problems,
					 sizeof(*sum->problems),
					 problem_json));
	put_counts(s, sum, link_counts, ARRAY_SIZE(link_counts));
	if (sum->dispatch) {
		const struct dispatch_stats *d = sum->dispatch;
		json_t *o = json_object();

		put_counts(o, d, dispatch_counts, ARRAY_SIZE(dispatch_counts));
		json_object_set_new(o, "unresolved_examples",
				    str_array(d->examples, d->nr_examples));
		json_object_set_new(s, "dispatch", o);
	}
	json_object_set_new(s, "pruned",
			    objects_json(sum->pruned, sum->nr_pruned,
					 sizeof(*sum->pruned), pruned_json));
	if (sum->baseline)
		put_counts(s, sum, baseline_counts,
			   ARRAY_SIZE(baseline_counts));
	json_object_set_new(s, "capabilities", json_integer(sum->caps));
	json_object_set_new(s, "capabilities_unresolved",
			    str_array(sum->unresolved_caps,
				      sum->nr_unresolved));
	json_object_set_new(s, "sanitised_registers",
			    json_integer(sum->ftr_regs));
	json_object_set_new(s, "registers_unknown",
			    str_array(sum->unknown_regs,
				      sum->nr_unknown_regs));
	return s;
}

int emit_json(FILE *out, const struct findings *fs,
	      const struct findings *low, const struct run_summary *sum)
{
	json_t *root = json_object(), *arr = json_array();
	json_t *lows = json_array();
	size_t i;
	int ret = 0;

	for (i = 0; i < fs->nr; i++)
		json_array_append_new(arr, finding_json(&fs->v[i]));
	for (i = 0; low && i < low->nr; i++)
		json_array_append_new(lows, finding_json(&low->v[i]));
	json_object_set_new(root, "findings", arr);
	json_object_set_new(root, "low_confidence", lows);
	json_object_set_new(root, "summary", summary_json(sum, fs->nr));
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || fflush(out))
		ret = -EIO;
	json_decref(root);
	return ret || ferror(out) ? -EIO : 0;
}
