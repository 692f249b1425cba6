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

/*
 * A file name as a diagnostic line can hold it: a control byte (a
 * newline in a name would start a forged line of its own) written as
 * \xHH. The name itself when it has none; else a string kept until the
 * program ends (such names are rare).
 */
static const char *text_name(const char *name)
{
	static char **kept;
	static size_t nr_kept, alloc_kept;
	const unsigned char *p;
	struct bytes b = { 0 };
	char hex[5];
	size_t i;

	for (p = (const unsigned char *)name; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			break;
	if (!p || !*p)
		return name;
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			bytes_put(&b, p, 1);
			continue;
		}
		snprintf(hex, sizeof(hex), "\\x%02x", *p);
		bytes_put(&b, hex, 4);
	}
	bytes_put(&b, "", 1);
	for (i = 0; i < nr_kept; i++)
		if (!strcmp(kept[i], (char *)b.data)) {
			bytes_free(&b);
			return kept[i];
		}
	*PUSH(kept, nr_kept, alloc_kept) = (char *)b.data;
	return kept[nr_kept - 1];
}

#undef FINDING_AT
#define FINDING_AT(f)	text_name((f)->site->file), (f)->site->line,	\
			(f)->site->col


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

	fprintf(out, "%s:%u:%u: note: %s\n", FINDING_AT(f), rate);
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
					FINDING_AT(f));
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
		fprintf(out, "%s:%u:%u: note: by mode:", FINDING_AT(f));
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
		const struct finding_note *n = finding_note_of(fs, f);
		char *only = finding_configs_text(n);
		bool error = o && o->errors &&
			     switches_level(o->errors, f->rule) == RULE_ERROR;

		fprintf(out, "%s:%u:%u: %s: %s%s [%s]\n", FINDING_AT(f),
			error ? "error" : "warning", f->message, only,
			f->rule);
		free(only);
		if (n && n->patch)
			fprintf(out, "%s:%u:%u: note: brought by %s\n",
				FINDING_AT(f), n->patch);
		if (n && n->fix_note)
			fprintf(out, "%s:%u:%u: note: %s\n", FINDING_AT(f),
				n->fix_note);
		if (n && n->waiver)
			fprintf(out, "%s:%u:%u: note: waived: %s\n",
				FINDING_AT(f), n->waiver);
		if (!f->root)
			continue;	/* a site on no hot path */
		fprintf(out, "%s:%u:%u: note: reached from %s (%s phase%s): ",
			FINDING_AT(f), f->root, f->phase,
			finding_low(f) ? ", low confidence" : "");
		print_chain(out, &f->chains[0]);
		fputc('\n', out);
		print_conditions(out, f, &f->chains[0], false);
		print_estimate(out, f);
		print_modes(out, f);
		for (j = 1; j < f->nr_chains; j++) {
			fprintf(out, "%s:%u:%u: note: also reached from %s: ",
				FINDING_AT(f), f->root);
			print_chain(out, &f->chains[j]);
			fputc('\n', out);
			print_conditions(out, f, &f->chains[j], true);
		}
		for (j = 0; j < f->nr_also; j++) {
			const struct finding *a = &f->also[j];

			fprintf(out, "%s:%u:%u: note: also reached from %s "
				"(%s phase%s%s): ", FINDING_AT(f),
				a->root, a->phase,
				strcmp(finding_context(a), "nested") ? "" :
				", on a KVM host", finding_low(a) ?
				", low confidence" : "");
			print_chain(out, &a->chains[0]);
			fputc('\n', out);
		}
		if (!o->verbose)
			continue;
		for (j = 0; j + 1 < f->chains[0].len; j++) {
			const struct chain_step *s = &f->chains[0].steps[j];
			const struct chain_step *n = &f->chains[0].steps[j + 1];

			fprintf(out, "%s:%u:%u: note: %s() calls %s()",
				text_name(s->file), s->line, s->col,
				s->function,
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
		char *arg = guards_find(finding_only_when(f), GUARD_ARGUMENT);

		if (f->doubt.unless)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s, but %s: ",
				FINDING_AT(f), f->fn->name,
				f->root, f->doubt.unless);
		else if (f->doubt.not_offered)
			fprintf(out, "%s:%u:%u: note: not on a nested host, "
				"not warned of: %s() reached from %s, but %s: ",
				FINDING_AT(f), f->fn->name,
				f->root, f->doubt.not_offered);
		else if (f->doubt.not_in_kvm)
			fprintf(out, "%s:%u:%u: note: not under KVM, not "
				"warned of: %s() reached from %s, but %s: ",
				FINDING_AT(f), f->fn->name, f->root,
				f->doubt.not_in_kvm);
		else if (f->doubt.no_device)
			fprintf(out, "%s:%u:%u: note: not on the guest's "
				"machine, not warned of: %s() reached from %s, "
				"but %s: ", FINDING_AT(f), f->fn->name,
				f->root, f->doubt.no_device);
		else if (f->doubt.machine_doubt)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s, but %s: ",
				FINDING_AT(f), f->fn->name, f->root,
				f->doubt.machine_doubt);
		else if (f->doubt.not_then)
			fprintf(out, "%s:%u:%u: note: not in its phase, not "
				"warned of: %s() reached from %s, but %s: ",
				FINDING_AT(f), f->fn->name, f->root,
				f->doubt.not_then);
		else if (finding_rare_only(f))
			fprintf(out, "%s:%u:%u: note: rare, not warned of: "
				"%s() reached from %s only under a rare "
				"condition (%s): about %.0f read%s per %s: ",
				FINDING_AT(f), f->fn->name, f->root,
				f->chains[0].rare_label, f->rate.value,
				f->rate.value == 1 ? "" : "s", f->rate.per);
		else if (arg)
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s only when "
				"%s (no way in is known to pass it): ",
				FINDING_AT(f), f->fn->name,
				f->root, arg);
		else
			fprintf(out, "%s:%u:%u: note: low confidence, not "
				"warned of: %s() reached from %s through %u "
				"inferred calls: ", FINDING_AT(f),
				f->fn->name, f->root, f->doubt.inferred);
		free(arg);
		print_chain(out, &f->chains[0]);
		fprintf(out, " [%s]\n", f->rule);
	}
	fflush(out);
}

/* The TUs with errors, each a note naming the file. */
static void emit_problems(FILE *diag, const struct tu_stats *tu)
{
	size_t i;

	for (i = 0; i < tu->nr_problems; i++) {
		const struct tu_problem *p = &tu->problems[i];

		if (p->parse_error)
			fprintf(diag, "%s: note: not analysed: %s\n",
				text_name(p->file), p->first_error);
		else
			fprintf(diag, "%s: note: parsed with %u error%s, "
				"first: %s\n", text_name(p->file), p->nr_errors,
				p->nr_errors == 1 ? "" : "s", p->first_error);
	}
}

void emit_summary(FILE *diag, const struct summary *s, size_t nr_findings)
{
	static const struct tu_stats no_tus;
	static const struct graph_stats no_graph;
	static const struct rules_stats no_rules;
	static const struct tables_stats no_tables;
	static const struct baseline_stats no_baseline;
	const struct tu_stats *tu = s->tus ? s->tus : &no_tus;
	const struct graph_stats *g = s->graph ? s->graph : &no_graph;
	const struct rules_stats *r = s->rules ? s->rules : &no_rules;
	const struct tables_stats *t = s->tables ? s->tables : &no_tables;
	const struct baseline_stats *b = s->baseline ? s->baseline :
						       &no_baseline;
	size_t i;

	emit_problems(diag, tu);
	if (g->ruled_out)
		fprintf(diag, "trapcheck: %zu call and sink site%s under a "
			"feature test the machine fails (--features) ruled "
			"out\n", g->ruled_out,
			g->ruled_out == 1 ? "" : "s");
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
	if (g->nr_pruned) {
		fprintf(diag, "trapcheck: %zu call%s through struct members "
			"not followed (more than %zu targets):", g->nr_pruned,
			g->nr_pruned == 1 ? "" : "s", g->max_targets);
		for (i = 0; i < g->nr_pruned; i++)
			fprintf(diag, "%s %s (%zu)", i ? "," : "",
				g->pruned[i].member, g->pruned[i].targets);
		fputc('\n', diag);
	}
	if (g->have_dispatch) {
		const struct dispatch_stats *d = &g->dispatch;

		fprintf(diag, "trapcheck: calls through struct members: %zu "
			"by ops table, %zu with no target; static calls: %zu "
			"resolved, %zu never set; by object: %zu on "
			"a named control block, %zu on an unnamed one; by "
			"registration: %zu on a known list head (%zu "
			"registrations), %zu in wrappers, %zu unresolved",
			d->by_table, d->no_target, d->by_static,
			d->static_no_target, d->by_object,
			d->object_unknown, d->by_registration,
			d->registrations, d->through_wrapper, d->unresolved);
		for (i = 0; i < d->nr_examples; i++)
			fprintf(diag, "%s%s", i ? ", " : " (", d->examples[i]);
		fputs(d->nr_examples ? ")\n" : "\n", diag);
	}
	if (g->rate_limited)
		fprintf(diag, "trapcheck: %zu call and sink site%s under a "
			"deadline test (rate-limited) not walked from the root "
			"sets\n", g->rate_limited,
			g->rate_limited == 1 ? "" : "s");
	if (g->masked_across)
		fprintf(diag, "trapcheck: %zu call and sink site%s run with "
			"interrupts masked, known across calls\n",
			g->masked_across, g->masked_across == 1 ? "" : "s");
	if (r->stopped)
		fprintf(diag, "trapcheck: %zu calls into another root set's "
			"entry point left to that root set\n", r->stopped);
	if (r->args_refuted) {
		size_t i;

		fprintf(diag, "trapcheck: %zu site%s not reported: every way "
			"in passes a value that makes its condition false",
			r->args_refuted, r->args_refuted == 1 ? "" : "s");
		for (i = 0; i < r->nr_refuted_ex; i++)
			fprintf(diag, "%s%s", i ? ", " : " (",
				r->refuted_ex[i]);
		fprintf(diag, "%s\n", i ? ")" : "");
	}
	if (r->cpu_refuted) {
		size_t i;

		fprintf(diag, "trapcheck: %zu site%s not reported: every "
			"chain runs code, or reads a register, of two CPU "
			"families", r->cpu_refuted,
			r->cpu_refuted == 1 ? "" : "s");
		for (i = 0; i < r->nr_cpu_refuted_ex; i++)
			fprintf(diag, "%s%s", i ? "; " : " (",
				r->cpu_refuted_ex[i]);
		fprintf(diag, "%s\n", i ? ")" : "");
	}
	if (r->low)
		fprintf(diag, "trapcheck: %zu site%s of low confidence "
			"(more than one inferred call, one argument value, "
			"or a read that may not exit): notes, not warnings "
			"(--all-chains warns of "
			"them)\n", r->low, r->low == 1 ? "" : "s");
	if (b->baseline)
		fprintf(diag, "trapcheck: baseline: %zu new, %zu known, %zu "
			"fixed\n", nr_findings, b->known, b->fixed);
	if (b->waived)
		fprintf(diag, "trapcheck: %zu waived\n", b->waived);
	if (tu->from_db)
		fprintf(diag, "trapcheck: %zu TUs parsed, %zu from the database"
			"%s%s\n", tu->parsed, tu->from_db,
			tu->stored_link ? ", linked as stored" : "",
			tu->removed ? " (some removed from it)" : "");
	fprintf(diag, "trapcheck: %zu TUs analysed (%zu with errors, %zu "
		"skipped), %zu functions, %zu edges, %zu sink sites, %zu "
		"finding%s\n", tu->tus, tu->nr_problems, tu->skipped,
		g->functions, g->edges, g->sinks, nr_findings,
		nr_findings == 1 ? "" : "s");
	fflush(diag);
}
