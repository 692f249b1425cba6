// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - JSON output (jansson): each finding with its chains, their
 * conditions, its rate and modes, and the summary; text is emit-text.c's,
 * SARIF emit-sarif.c's.
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
#include "trapcheck/model/arch.h"
#include "trapcheck/model/conditions.h"


static json_t *str_array(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
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

/*
 * The conditions at a step's site, each {kind, text} (with @where: and
 * function, file, line).
 */
static json_t *conditions_json(const struct chain_step *s, bool where)
{
	json_t *a = json_array();
	const char *label;
	size_t i, n;
	char **atoms;

	n = cond_atoms(s->guards, &atoms);
	for (i = 0; i < n; i++) {
		enum cond_kind k = cond_classify_at(atoms[i], s->guards,
						    &label);
		char *text = cond_text(atoms[i]);
		json_t *c = json_object();

		json_object_set_new(c, "kind", json_text(cond_kind_names[k]));
		json_object_set_new(c, "text", json_text(text));
		if (label)
			json_object_set_new(c, "means", json_text(label));
		if (where) {
			json_object_set_new(c, "function",
					    json_text(s->function));
			json_object_set_new(c, "file", json_path(s->file));
			json_object_set_new(c, "line", json_integer(s->line));
		}
		json_array_append_new(a, c);
		free(text);
	}
	strv_free(atoms, n);
	return a;
}

/* Every condition on a chain, step by step. */
static json_t *chain_conditions_json(const struct chain *c)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < c->len; i++) {
		json_t *step = conditions_json(&c->steps[i], true);

		/* json_array_extend() copies: the step's array is ours. */
		json_array_extend(a, step);
		json_decref(step);
	}
	return a;
}

static json_t *step_json(const void *elem)
{
	const struct chain_step *s = elem;
	json_t *step = json_object();

	json_object_set_new(step, "function", json_text(s->function));
	json_object_set_new(step, "file", json_path(s->file));
	json_object_set_new(step, "line", json_integer(s->line));
	json_object_set_new(step, "column", json_integer(s->col));
	if (s->via)
		json_object_set_new(step, "via", json_text(s->via));
	if (s->inferred)
		json_object_set_new(step, "inferred", json_true());
	if (s->loop > 1)
		json_object_set_new(step, "loop", json_integer(s->loop));
	if (s->guards) {
		json_object_set_new(step, "guards", json_text(s->guards));
		json_object_set_new(step, "conditions",
				    conditions_json(s, false));
	}
	return step;
}

static json_t *chain_json(const struct chain *c)
{
	return objects_json(c->steps, c->len, sizeof(*c->steps), step_json);
}

static json_t *modes_json(const struct finding *f)
{
	json_t *a = json_array();
	size_t i, nr;
	struct mode_count *v = finding_modes(f, &nr);

	for (i = 0; i < nr; i++) {
		json_t *m = json_object();

		json_object_set_new(m, "mode", json_text(v[i].mode));
		json_object_set_new(m, "root", json_text(v[i].root));
		json_object_set_new(m, "per", json_text(v[i].per));
		json_object_set_new(m, "chains", json_integer(v[i].chains));
		json_array_append_new(a, m);
	}
	free(v);
	return a;
}

/* {per, value, how}: reads per operation of the root set. */
static json_t *rate_json(const struct finding *f)
{
	json_t *r = json_object();

	json_object_set_new(r, "per", json_text(finding_per_boot(f) ?
		"call until the guard flips" : f->rate.per));
	json_object_set_new(r, "value", json_real(f->rate.value));
	json_object_set_new(r, "how", json_text("modelled"));
	if (finding_rare_only(f))
		json_object_set_new(r, "rare",
				    json_text(f->chains[0].rare_label));
	else if (finding_subset(f))
		json_object_set_new(r, "subset", json_true());
	return r;
}

static json_t *estimate_json(const struct finding *f)
{
	json_t *est = json_object();

	json_object_set_new(est, "unit", json_text(finding_per_boot(f) ?
		"reads_per_call_until_guard" : "reads_per_second"));
	if (!finding_per_boot(f))
		json_object_set_new(est, "per_second",
				    json_real(finding_estimate(f)));
	json_object_set_new(est, "value", json_real(finding_estimate(f)));
	json_object_set_new(est, "root_weight", json_real(f->rate.weight));
	json_object_set_new(est, "loop_factor", json_real(f->rate.loops));
	json_object_set_new(est, "loop_factor_guessed",
			    json_boolean(f->rate.loop_guess));
	json_object_set_new(est, "reads_per_call",
			    json_integer(f->rate.paths ? f->rate.paths : 1));
	return est;
}

/* Why a note of low confidence is one: the reasons that are strings. */
static void why_low_json(json_t *o, const struct finding *f)
{
	if (f->doubt.unless)
		json_object_set_new(o, "may_not_exit",
				    json_text(f->doubt.unless));
	if (f->doubt.not_offered)
		json_object_set_new(o, "not_offered",
				    json_text(f->doubt.not_offered));
	if (f->doubt.not_in_kvm)
		json_object_set_new(o, "not_in_kvm",
				    json_text(f->doubt.not_in_kvm));
	if (f->doubt.not_then)
		json_object_set_new(o, "not_then",
				    json_text(f->doubt.not_then));
	if (f->doubt.no_device)
		json_object_set_new(o, "no_device",
				    json_text(f->doubt.no_device));
	if (f->doubt.machine_doubt)
		json_object_set_new(o, "machine_doubt",
				    json_text(f->doubt.machine_doubt));
	if (finding_only_when(f)) {
		char *arg = guards_find(finding_only_when(f), GUARD_ARGUMENT);

		json_object_set_new(o, "only_when", json_text(arg));
		free(arg);
	}
}

/* @f of list @fs (its note is there). */
static json_t *finding_json(const struct findings *fs,
			    const struct finding *f)
{
	const struct finding_note *n = finding_note_of(fs, f);
	json_t *o = json_object(), *others = json_array();
	size_t i;

	json_object_set_new(o, "rule", json_text(f->rule));
	json_object_set_new(o, "file", json_path(f->site->file));
	json_object_set_new(o, "line", json_integer(f->site->line));
	json_object_set_new(o, "column", json_integer(f->site->col));
	json_object_set_new(o, "function", json_text(f->fn->name));
	json_object_set_new(o, "sink", json_text(finding_sink(f)));
	json_object_set_new(o, "register", json_text(f->read.reg));
	json_object_set_new(o, "trap_class", json_text(f->read.trap));
	json_object_set_new(o, "capability", json_text(f->read.cap));
	json_object_set_new(o, "field", json_text(f->read.field));
	json_object_set_new(o, "sanitised",
			    f->read.cached < 0 ?
				    json_null() :
				    json_boolean(f->read.cached));
	if (f->read.mask)
		json_object_set_new(o, "mask", json_text(f->read.mask));
	if (f->read.feature)
		json_object_set_new(o, "feature", json_text(f->read.feature));
	why_low_json(o, f);
	json_object_set_new(o, "root", json_text(f->root));
	json_object_set_new(o, "phase", json_text(f->phase));
	json_object_set_new(o, "context", json_text(finding_context(f)));
	json_object_set_new(o, "confidence", json_text(finding_low(f) ? "low" :
							     "high"));
	json_object_set_new(o, "inferred_calls",
			    json_integer(f->doubt.inferred));
	if (n && n->nr_configs)
		json_object_set_new(o, "configs", json_finding_configs(n));
	if (n && n->nr_config_syms)
		json_object_set_new(o, "config_symbols",
				    json_finding_config_syms(n));
	if (f->root) {
		json_object_set_new(o, "estimate", estimate_json(f));
		json_object_set_new(o, "rate", rate_json(f));
		json_object_set_new(o, "mode", json_text(f->chains[0].mode));
		json_object_set_new(o, "modes", modes_json(f));
		json_object_set_new(o, "conditions",
				    chain_conditions_json(&f->chains[0]));
	}
	json_object_set_new(o, "message", json_text(f->message));
	if (n && n->patch)
		json_object_set_new(o, "patch", json_text(n->patch));
	if (n && n->fix_note)
		json_object_set_new(o, "fix", json_text(n->fix_note));
	if (n && n->waiver)
		json_object_set_new(o, "waived", json_text(n->waiver));
	{
		char *fp = finding_fingerprint(f);
		json_t *fps = json_array(), *roots = json_array();
		json_t *reached = json_array();

		json_object_set_new(o, "fingerprint", json_path(fp));
		json_array_append_new(fps, json_path(fp));
		free(fp);
		if (f->root)
			json_array_append_new(roots, json_text(f->root));
		for (i = 0; i < f->nr_also; i++) {
			const struct finding *a = &f->also[i];
			json_t *r = json_object();

			fp = finding_fingerprint(a);
			json_array_append_new(fps, json_path(fp));
			free(fp);
			json_array_append_new(roots, json_text(a->root));
			json_object_set_new(r, "root", json_text(a->root));
			json_object_set_new(r, "phase", json_text(a->phase));
			json_object_set_new(r, "context",
					    json_text(finding_context(a)));
			json_object_set_new(r, "confidence",
					    json_text(finding_low(a) ? "low" :
								     "high"));
			json_object_set_new(r, "inferred_calls",
					    json_integer(a->doubt.inferred));
			if (a->root) {
				json_object_set_new(r, "estimate",
						    estimate_json(a));
				json_object_set_new(r, "rate", rate_json(a));
				json_object_set_new(r, "conditions",
					chain_conditions_json(&a->chains[0]));
			}
			json_object_set_new(r, "chain",
					    chain_json(&a->chains[0]));
			json_array_append_new(reached, r);
		}
		json_object_set_new(o, "fingerprints", fps);
		json_object_set_new(o, "roots", roots);
		json_object_set_new(o, "also_reached", reached);
	}
	json_object_set_new(o, "chain", chain_json(&f->chains[0]));
	for (i = 1; i < f->nr_chains; i++)
		json_array_append_new(others, chain_json(&f->chains[i]));
	json_object_set_new(o, "other_chains", others);
	return o;
}

/* A count (a size_t member) of a struct, and its name in the JSON. */
struct json_count {
	const char *name;
	size_t offset;
};

#define DISPATCH_COUNT(name, field) \
	{ name, offsetof(struct dispatch_stats, field) }

static const struct json_count dispatch_counts[] = {
	DISPATCH_COUNT("by_ops_table", by_table),
	DISPATCH_COUNT("no_target", no_target),
	DISPATCH_COUNT("static_calls", by_static),
	DISPATCH_COUNT("static_never_set", static_no_target),
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

	json_object_set_new(po, "file", json_path(p->file));
	json_object_set_new(po, "errors", json_integer(p->nr_errors));
	json_object_set_new(po, "first_error", json_text(p->first_error));
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

static void count(json_t *o, const char *name, size_t n)
{
	json_object_set_new(o, name, json_integer((json_int_t)n));
}

/*
 * The "summary" object, the stages' counts in the order they are written
 * (a stage that did not run counts nothing); @findings: how many findings
 * were reported.
 */
static json_t *summary_json(const struct summary *sum, size_t findings)
{
	static const struct tu_stats no_tus;
	static const struct graph_stats no_graph;
	static const struct rules_stats no_rules;
	static const struct tables_stats no_tables;
	static const struct baseline_stats no_baseline;
	const struct tu_stats *t = sum->tus ? sum->tus : &no_tus;
	const struct graph_stats *g = sum->graph ? sum->graph : &no_graph;
	const struct rules_stats *r = sum->rules ? sum->rules : &no_rules;
	const struct tables_stats *tb = sum->tables ? sum->tables : &no_tables;
	const struct baseline_stats *b = sum->baseline ? sum->baseline :
							 &no_baseline;
	json_t *s = json_object(), *ex = json_array();
	size_t i;

	count(s, "entries", t->entries);
	count(s, "tus_analysed", t->tus);
	count(s, "tus_parsed", t->parsed);
	count(s, "tus_with_errors", t->nr_problems);
	count(s, "tus_skipped", t->skipped);
	count(s, "functions", g->functions);
	count(s, "edges", g->edges);
	count(s, "sinks", g->sinks);
	count(s, "findings", findings);
	json_object_set_new(s, "errors",
			    objects_json(t->problems, t->nr_problems,
					 sizeof(*t->problems), problem_json));
	count(s, "waived", b->waived);
	count(s, "inferred_edges", g->inferred);
	count(s, "root_entries_left", r->stopped);
	count(s, "argument_refuted_sites", r->args_refuted);
	count(s, "rate_limited_sites", g->rate_limited);
	count(s, "masked_across_calls", g->masked_across);
	count(s, "low_confidence_sites", r->low);
	for (i = 0; i < r->nr_refuted_ex; i++)
		json_array_append_new(ex, json_text(r->refuted_ex[i]));
	json_object_set_new(s, "argument_refuted_examples", ex);
	/* An architecture with CPU families (cpus.def): what they ruled out. */
	if (arch_current()->nr_cpu_names) {
		count(s, "no_cpu_sites", r->cpu_refuted);
		ex = json_array();
		for (i = 0; i < r->nr_cpu_refuted_ex; i++)
			json_array_append_new(ex,
					      json_text(r->cpu_refuted_ex[i]));
		json_object_set_new(s, "no_cpu_examples", ex);
	}
	if (g->have_dispatch) {
		const struct dispatch_stats *d = &g->dispatch;
		json_t *o = json_object();

		put_counts(o, d, dispatch_counts, ARRAY_SIZE(dispatch_counts));
		json_object_set_new(o, "unresolved_examples",
				    str_array(d->examples, d->nr_examples));
		json_object_set_new(s, "dispatch", o);
	}
	json_object_set_new(s, "pruned",
			    objects_json(g->pruned, g->nr_pruned,
					 sizeof(*g->pruned), pruned_json));
	/* What the rates are for: the machine's features (--features). */
	if (g->features) {
		json_object_set_new(s, "features", json_text(g->features));
		count(s, "ruled_out_sites", g->ruled_out);
	}
	if (b->baseline) {
		count(s, "baseline_known", b->known);
		count(s, "baseline_fixed", b->fixed);
	}
	count(s, "capabilities", tb->caps);
	json_object_set_new(s, "capabilities_unresolved",
			    str_array(tb->unresolved, tb->nr_unresolved));
	count(s, "sanitised_registers", tb->copies);
	json_object_set_new(s, "registers_unknown",
			    str_array(tb->unknown, tb->nr_unknown));
	return s;
}

int emit_json(FILE *out, const struct findings *fs,
	      const struct findings *low, const struct summary *sum)
{
	json_t *root = json_object(), *arr = json_array();
	json_t *lows = json_array();
	size_t i;
	int ret = 0;

	for (i = 0; i < fs->nr; i++)
		json_array_append_new(arr, finding_json(fs, &fs->v[i]));
	for (i = 0; low && i < low->nr; i++)
		json_array_append_new(lows, finding_json(low, &low->v[i]));
	json_object_set_new(root, "findings", arr);
	json_object_set_new(root, "low_confidence", lows);
	json_object_set_new(root, "summary", summary_json(sum, fs->nr));
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || fflush(out))
		ret = -EIO;
	json_decref(root);
	return ret || ferror(out) ? -EIO : 0;
}
