// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - text (gcc diagnostic form) and JSON (jansson) output.
 */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "trapcheck/emit.h"

static void print_chain(FILE *out, const struct chain *c)
{
	size_t i;

	for (i = 0; i < c->len; i++) {
		const struct chain_step *s = &c->steps[i];

		fprintf(out, "%s%s", i ? " -> " : "", s->function);
		if (s->via)
			fprintf(out, " (as %s)", s->via);
	}
}

int emit_text(FILE *out, const struct findings *fs,
	      const struct emit_opts *o)
{
	size_t i, j;

	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];

		fprintf(out, "%s:%u:%u: warning: %s [%s]\n", f->file, f->line,
			f->col, f->message, f->rule);
		if (f->fix_note)
			fprintf(out, "%s:%u:%u: note: %s\n", f->file, f->line,
				f->col, f->fix_note);
		if (!f->root)
			continue;	/* a site on no hot path */
		fprintf(out, "%s:%u:%u: note: reached from %s (%s phase): ",
			f->file, f->line, f->col, f->root, f->phase);
		print_chain(out, &f->chain);
		fputc('\n', out);
		for (j = 0; j < f->nr_others; j++) {
			fprintf(out, "%s:%u:%u: note: also reached from %s: ",
				f->file, f->line, f->col, f->root);
			print_chain(out, &f->others[j]);
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
				fprintf(out, " as %s()", n->via);
			if (s->guards)
				fprintf(out, " when %s", s->guards);
			fputc('\n', out);
		}
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
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
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *chain_json(const struct chain *c)
{
	json_t *chain = json_array();
	size_t i;

	for (i = 0; i < c->len; i++) {
		const struct chain_step *s = &c->steps[i];
		json_t *step = json_object();

		json_object_set_new(step, "function",
				    json_string(s->function));
		json_object_set_new(step, "file", json_string(s->file));
		json_object_set_new(step, "line", json_integer(s->line));
		json_object_set_new(step, "column", json_integer(s->col));
		if (s->via)
			json_object_set_new(step, "via", json_string(s->via));
		if (s->guards)
			json_object_set_new(step, "guards",
					    json_string(s->guards));
		json_array_append_new(chain, step);
	}
	return chain;
}

static json_t *finding_json(const struct finding *f)
{
	json_t *o = json_object(), *others = json_array();
	size_t i;

	json_object_set_new(o, "rule", json_string(f->rule));
	json_object_set_new(o, "file", json_string(f->file));
	json_object_set_new(o, "line", json_integer(f->line));
	json_object_set_new(o, "column", json_integer(f->col));
	json_object_set_new(o, "function", json_string(f->function));
	json_object_set_new(o, "sink", json_string(f->sink));
	json_object_set_new(o, "register", jstr(f->reg));
	json_object_set_new(o, "trap_class", jstr(f->trap));
	json_object_set_new(o, "capability", jstr(f->cap));
	json_object_set_new(o, "field", jstr(f->field));
	json_object_set_new(o, "sanitised", f->sanitised < 0 ? json_null() :
			    json_boolean(f->sanitised));
	json_object_set_new(o, "root", jstr(f->root));
	json_object_set_new(o, "phase", json_string(f->phase));
	json_object_set_new(o, "message", json_string(f->message));
	if (f->fix_note)
		json_object_set_new(o, "fix", json_string(f->fix_note));
	json_object_set_new(o, "chain", chain_json(&f->chain));
	for (i = 0; i < f->nr_others; i++)
		json_array_append_new(others, chain_json(&f->others[i]));
	json_object_set_new(o, "other_chains", others);
	return o;
}

int emit_json(FILE *out, const struct findings *fs,
	      const struct run_summary *sum)
{
	json_t *root = json_object(), *arr = json_array();
	json_t *s = json_object(), *probs = json_array();
	size_t i;
	int ret = 0;

	for (i = 0; i < fs->nr; i++)
		json_array_append_new(arr, finding_json(&fs->v[i]));
	for (i = 0; i < sum->nr_problems; i++) {
		const struct tu_problem *p = &sum->problems[i];
		json_t *po = json_object();

		json_object_set_new(po, "file", json_string(p->file));
		json_object_set_new(po, "errors",
				    json_integer(p->nr_errors));
		json_object_set_new(po, "first_error",
				    jstr(p->first_error));
		json_object_set_new(po, "analysed",
				    json_boolean(!p->parse_error));
		json_array_append_new(probs, po);
	}
	json_object_set_new(s, "entries", json_integer(sum->entries));
	json_object_set_new(s, "tus_analysed", json_integer(sum->tus));
	json_object_set_new(s, "tus_with_errors",
			    json_integer(sum->nr_problems));
	json_object_set_new(s, "tus_skipped", json_integer(sum->skipped));
	json_object_set_new(s, "functions", json_integer(sum->functions));
	json_object_set_new(s, "edges", json_integer(sum->edges));
	json_object_set_new(s, "sinks", json_integer(sum->sinks));
	json_object_set_new(s, "findings", json_integer(fs->nr));
	json_object_set_new(s, "errors", probs);
	json_object_set_new(s, "capabilities", json_integer(sum->caps));
	json_object_set_new(s, "capabilities_unresolved",
			    str_array(sum->unresolved_caps,
				      sum->nr_unresolved));
	json_object_set_new(s, "sanitised_registers",
			    json_integer(sum->ftr_regs));
	json_object_set_new(s, "registers_unknown",
			    str_array(sum->unknown_regs,
				      sum->nr_unknown_regs));
	json_object_set_new(root, "findings", arr);
	json_object_set_new(root, "summary", s);
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || fflush(out))
		ret = -EIO;
	json_decref(root);
	return ret || ferror(out) ? -EIO : 0;
}
