// SPDX-License-Identifier: GPL-2.0
/*
 * emit-text.c - findings as gcc's diagnostics, the notes of low
 * confidence and the summary (emit.h); JSON is emit.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/rules/switches.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/model/conditions.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"


static void print_chain(FILE *out, const struct chain *c)
{
	char *t = finding_chain_text(c, false);

	fputs(t, out);
	free(t);
}

/*
 * "about N reads per <operation>" (the root set's, or the rare event's
 * when every chain needs one), or the boot phase's "N reads per call".
 */
static void print_estimate(FILE *out, const struct finding *f)
{
	char *rate = finding_rate_text(f);

	fprintf(out, "%s:%u:%u: note: %s\n", f->file, f->line, f->col, rate);
	free(rate);
}

/*
 * "under: !likely(src) in __wp_page_copy_user() [rare]; ...": the
 * conditions of a chain that say when it runs (not the "other" ones).
 */
static void print_conditions(FILE *out, const struct finding *f,
			     const struct chain *c, bool rare_mode_only)
{
	const char *label, *sep = "";
	size_t i, j, n;
	char **atoms;
	bool any = false;

	for (i = 0; i < c->len; i++) {
		const struct chain_step *st = &c->steps[i];

		n = cond_atoms(st->guards, &atoms);
		for (j = 0; j < n; j++) {
			enum cond_kind k = cond_classify_at(atoms[j],
							    st->guards,
							    &label);
			char *text;

			if (k == COND_OTHER || (rare_mode_only &&
						 k != COND_RARE &&
						 k != COND_MODE))
				continue;
			if (!any)
				fprintf(out, "%s:%u:%u: note: under: ",
					f->file, f->line, f->col);
			any = true;
			text = cond_text(atoms[j]);
			fprintf(out, "%s%s in %s() [%s%s%s]", sep, text,
				st->function, cond_kind_names[k],
				label ? ": " : "", label ? label : "");
			free(text);
			sep = "; ";
		}
		strv_free(atoms, n);
	}
	if (any)
		fputc('\n', out);
}

/*
 * "by mode: nVHE host: 2 chains from kvm-run (per world switch); VHE
 * host: ...", when a chain of the site runs in one mode only.
 */
static void print_modes(FILE *out, const struct finding *f)
{
	size_t i, nr;
	struct mode_count *v = finding_modes(f, &nr);
	bool any = false;

	for (i = 0; i < nr; i++)
		any |= v[i].mode != NULL;
	if (any) {
		fprintf(out, "%s:%u:%u: note: by mode:", f->file, f->line,
			f->col);
		for (i = 0; i < nr; i++)
			fprintf(out, "%s %s: %u chain%s from %s (per %s)",
				i ? ";" : "", v[i].mode ? v[i].mode :
				"any mode", v[i].chains,
				v[i].chains == 1 ? "" : "s", v[i].root,
				v[i].per);
		fputc('\n', out);
	}
	free(v);
}

int emit_text(FILE *out, const struct findings *fs,
	      const struct emit_opts *o)
{
	size_t i, j;

	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];
		char *only = finding_configs_text(f);
		bool error = o && o->errors &&
			     switches_level(o->errors, f->rule) == RULE_ERROR;

		fprintf(out, "%s:%u:%u: %s: %s%s [%s]\n", f->file, f->line,
			f->col, error ? "error" : "warning", f->message, only,
			f->rule);
		free(only);
		if (f->report.patch)
			fprintf(out, "%s:%u:%u: note: brought by %s\n",
				f->file, f->line, f->col, f->report.patch);
		if (f->report.fix_note)
			fprintf(out, "%s:%u:%u: note: %s\n", f->file, f->line,
				f->col, f->report.fix_note);
		if (f->report.waiver)
			fprintf(out, "%s:%u:%u: note: waived: %s\n", f->file,
				f->line, f->col, f->report.waiver);
		if (!f->root)
			continue;	/* a site on no hot path */
		fprintf(out, "%s:%u:%u: note: reached from %s (%s phase%s): ",
			f->file, f->line, f->col, f->root, f->phase,
			f->doubt.low ? ", low confidence" : "");
		print_chain(out, &f->chain);
		fputc('\n', out);
		print_conditions(out, f, &f->chain, false);
		print_estimate(out, f);
		print_modes(out, f);
		for (j = 0; j < f->nr_others; j++) {
			fprintf(out, "%s:%u:%u: note: also reached from %s: ",
				f->file, f->line, f->col, f->root);
			print_chain(out, &f->others[j]);
			fputc('\n', out);
			print_conditions(out, f, &f->others[j], true);
		}
		for (j = 0; j < f->nr_also; j++) {
			const struct finding *a = &f->also[j];

			fprintf(out, "%s:%u:%u: note: also reached from %s "
				"(%s phase%s%s): ", f->file, f->line, f->col,
				a->root, a->phase,
				strcmp(a->context, "nested") ? "" :
				", on a KVM host", a->doubt.low ?
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
		char *arg = guards_find(f->doubt.only_when, GUARD_ARGUMENT);

		if (f->doubt.unless)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s, but %s: ",
				f->file, f->line, f->col, f->function,
				f->root, f->doubt.unless);
		else if (f->doubt.not_offered)
			fprintf(out, "%s:%u:%u: note: not on a nested host, "
				"not warned of: %s() reached from %s, but %s: ",
				f->file, f->line, f->col, f->function,
				f->root, f->doubt.not_offered);
		else if (f->rate.rare_only)
			fprintf(out, "%s:%u:%u: note: rare, not warned of: "
				"%s() reached from %s only under a rare "
				"condition (%s): about %.0f read%s per %s: ",
				f->file, f->line, f->col, f->function, f->root,
				f->chain.rare_label, f->rate.value,
				f->rate.value == 1 ? "" : "s", f->rate.per);
		else if (arg)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s only when "
				"%s (no way in is known to pass it): ",
				f->file, f->line, f->col, f->function,
				f->root, arg);
		else
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s through %u "
				"inferred calls: ", f->file, f->line, f->col,
				f->function, f->root, f->doubt.inferred);
		free(arg);
		print_chain(out, &f->chain);
		fprintf(out, " [%s]\n", f->rule);
	}
	fflush(out);
}

/* The TUs with errors, each a note naming the file. */
static void emit_problems(FILE *diag, const struct run_summary *sum)
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
}

void emit_summary(FILE *diag, const struct run_summary *sum,
		  size_t nr_findings)
{
	const struct tables_stats *t = &sum->tables;
	size_t i;

	emit_problems(diag, sum);
	if (sum->ruled_out)
		fprintf(diag, "trapcheck: %zu call and sink site%s under a "
			"feature test the machine fails (--features) ruled "
			"out\n", sum->ruled_out,
			sum->ruled_out == 1 ? "" : "s");
	if (t->seen && t->caps_label) {
		fprintf(diag, "trapcheck: from the tree: %zu %s (%zu %s",
			t->caps, t->caps_label, t->nr_unresolved,
			t->unresolved_label);
		for (i = 0; i < t->nr_unresolved; i++)
			fprintf(diag, "%s%s", i ? ", " : ": ",
				t->unresolved[i]);
		fprintf(diag, "), %zu %s (%zu %s", t->copies, t->copies_label,
			t->nr_unknown, t->unknown_label);
		for (i = 0; i < t->nr_unknown; i++)
			fprintf(diag, "%s%s", i ? ", " : ": ", t->unknown[i]);
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
	if (sum->args_refuted) {
		size_t i;

		fprintf(diag, "trapcheck: %zu site%s not reported: every way "
			"in passes a value that makes its condition false",
			sum->args_refuted, sum->args_refuted == 1 ? "" : "s");
		for (i = 0; i < sum->nr_refuted_ex; i++)
			fprintf(diag, "%s%s", i ? ", " : " (",
				sum->refuted_ex[i]);
		fprintf(diag, "%s\n", i ? ")" : "");
	}
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
			"%s%s\n", sum->parsed, sum->from_db,
			sum->stored_link ? ", linked as stored" : "",
			sum->removed ? " (some removed from it)" : "");
	fprintf(diag, "trapcheck: %zu TUs analysed (%zu with errors, %zu "
		"skipped), %zu functions, %zu edges, %zu sink sites, %zu "
		"findings\n", sum->tus, sum->nr_problems, sum->skipped,
		sum->functions, sum->edges, sum->sinks, nr_findings);
	fflush(diag);
}
