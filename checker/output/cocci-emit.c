// SPDX-License-Identifier: GPL-2.0
/*
 * cocci-emit.c - the verified fixes as a position-pinned semantic patch.
 *
 * A fix replaces lines [first, last] of a file (struct fix_edit). The rule
 * for it removes the code of those lines and adds the new lines as they
 * are, inside a pattern for the function that holds the site, whose name
 * carries a position checked by a script:python constraint against the
 * file's path: the same code in another function or another file is left
 * alone. Two shapes are expressed:
 *
 *  - whole statements: the old lines hold complete statements (the fix of
 *    local-cap-check and trapping-idreg-read); minus all, plus all;
 *  - an if or while header: one line becomes one line (slow-entropy); the
 *    header is rewritten, its body is a statement metavariable.
 *
 * What spatch 1.1.1 needs (docs/coccinelle.md): a blank line at the end of
 * added code only comes out right when the statement after it is removed
 * and added back, so the region grows by that statement; two calls without
 * arguments on one line fail ("index ... already used"), so minus code
 * writes them f(...) and added code takes them from expression
 * metavariables bound in the minus code; lower-case names in the code are
 * declared as symbols and declared types as typedefs, so spatch does not
 * ask whether they are metavariables.
 *
 * This file writes the semantic patch; cocci-rule.c makes each rule's
 * code and cocci-lex.c reads the lines it is made of.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapcheck/output/cocci-emit.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/base/util.h"

#include "cocci-internal.h"

#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

/*
 * @s as a Python string literal; "Options:" and "Requires:" (which
 * scripts/coccicheck greps the whole file for) with the colon escaped.
 */
static void put_py_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!strncmp(s, "Options:", 8) || !strncmp(s, "Requires:", 9)) {
			size_t w = strcspn(s, ":");

			fprintf(out, "%.*s\\x3a", (int)w, s);
			s += w;
		} else if (c == '\\' || c == '"')
			fprintf(out, "\\%c", c);
		else if (c == '\'')
			fputs("\\x27", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/*
 * @s for a comment line: one line, and never the "Options:" or
 * "Requires:" that scripts/coccicheck greps the whole file for.
 */
static char *comment_safe(const char *s)
{
	char *t = xmalloc(2 * strlen(s) + 1), *q = t;

	for (; *s; s++) {
		if (!strncmp(s, "Options:", 8) || !strncmp(s, "Requires:", 9)) {
			size_t w = strcspn(s, ":");

			memcpy(q, s, w);
			q += w;
			memcpy(q, " -", 2);
			q += 2;
			s += w;
			continue;
		}
		*q++ = *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s;
	}
	*q = '\0';
	return t;
}

/*
 * Words of @text on comment lines of at most 80 columns: the first starts
 * with @lead, the others with @cont.
 */
static void put_wrapped(FILE *out, const char *lead, const char *cont,
			const char *text)
{
	char *safe = comment_safe(text);

	text_wrap(out, lead, cont, 80, safe);
	free(safe);
}

static void put_decls(FILE *out, const struct site_rule *r, bool find)
{
	size_t i, nt = find ? r->nr_minus_typedefs : r->typedefs.nr;
	size_t ns = find ? r->nr_minus_symbols : r->symbols.nr;

	if (r->header)
		fputs(r->is_if ? "statement tc_S1, tc_S2;\n" :
		      "statement tc_S1;\n", out);
	for (i = 0; i < nt; i++)
		fprintf(out, "typedef %s;\n", r->typedefs.v[i]);
	for (i = 0; i < ns; i++)
		fprintf(out, "%s%s%s", i ? ", " : "symbol ", r->symbols.v[i],
			i + 1 == ns ? ";\n" : "");
}

/* The body of the rule: minus and plus (@find: the context form). */
static void put_body(FILE *out, const struct site_rule *r, bool find)
{
	const struct strs *m = find ? &r->find : &r->minus;
	size_t i, alt, nr_alt = r->header && r->is_if ? 2 : 1;

	if (nr_alt > 1)
		fputs("(\n", out);
	for (alt = 0; alt < nr_alt; alt++) {
		if (alt)
			fputs("|\n", out);
		for (i = 0; i < m->nr; i++)
			fprintf(out, "%c%s\n", find ? '*' : '-', m->v[i]);
		for (i = 0; !find && i < r->plus.nr; i++)
			fprintf(out, "+%s\n", r->plus.v[i]);
		if (r->header)
			fputs(alt || !r->is_if ? "\ttc_S1\n" :
			      "\ttc_S1 else tc_S2\n",
			      out);
	}
	if (nr_alt > 1)
		fputs(")\n", out);
}

static void put_rule(FILE *out, unsigned int n, const struct fix_site *site,
		     const struct site_rule *r)
{
	const struct finding *f = site->f;
	const char *iso;
	char *msg, *chain;
	size_t i;

	/* One line, whatever its length: "// fixN: <file>:<line>:<col>". */
	msg = xasprintf("fix%u: %s:%u:%u in %s() [%s]", n, f->file, f->line,
			f->col, f->function, f->rule);
	chain = comment_safe(msg);
	fprintf(out, "// %s\n", chain);
	free(chain);
	free(msg);
	msg = xstrdup(f->message ? f->message : "");
	put_wrapped(out, "//   ", "//   ", msg);
	if (f->root) {
		chain = chain_text(&f->chain, false);
		msg = (free(msg), xasprintf("%s: %s", f->root, chain));
		put_wrapped(out, "//   ", "//   ", msg);
		free(chain);
	}
	free(msg);

	/*
	 * The drop_cast isomorphism would match "(u32)x" as "x" and warn
	 * that the cast's type is no pure metavariable: the lines are
	 * exact, so it is off where they hold a cast.
	 */
	iso = r->casts ? " disable drop_cast" : "";
	fprintf(out, "@fix%u depends on patch%s@\n"
		"position tc_fn : script:python() { trapcheck_in(tc_fn, ",
		n, iso);
	put_py_string(out, f->file);
	fputs(") };\ntype tc_T;\n", out);
	for (i = 0; i < r->nr_z; i++)
		fprintf(out, "%s%s%s", i ? ", " : "expression ", r->z[i].meta,
			i + 1 == r->nr_z ? ";\n" : "");
	put_decls(out, r, false);
	fprintf(out, "@@\n\ntc_T %s@tc_fn(...)\n{\n<...\n", f->function);
	put_body(out, r, false);
	fputs("...>\n}\n\n", out);

	fprintf(out, "@find%u depends on !patch%s@\n"
		"position tc_fn : script:python() { trapcheck_in(tc_fn, ",
		n, iso);
	put_py_string(out, f->file);
	fputs(") };\nposition tc_sink;\ntype tc_T;\n", out);
	put_decls(out, r, true);
	fprintf(out, "@@\n\ntc_T %s@tc_fn(...)\n{\n<...\n", f->function);
	put_body(out, r, true);
	fputs("...>\n}\n\n", out);

	msg = xasprintf("WARNING: %s [%s]", f->message ? f->message : "",
			f->rule);
	one_line(msg);
	fprintf(out, "@script:python depends on report@\n"
		"p << find%u.%s;\n@@\n\ncoccilib.report.print_report(p[0], ",
		n, r->have_q ? "tc_sink" : "tc_fn");
	put_py_string(out, msg);
	fprintf(out, ")\n\n@script:python depends on org@\n"
		"p << find%u.%s;\n@@\n\ncoccilib.org.print_todo(p[0], ",
		n, r->have_q ? "tc_sink" : "tc_fn");
	put_py_string(out, msg);
	fputs(")\n\n", out);
	free(msg);
}

static bool is_header_file(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && !strcmp(path + n - 2, ".h");
}

static int year_of(time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	return tm.tm_year + 1900;
}

static void put_header(FILE *out, const struct fix_sites *sites, char **why,
		       const struct cocci_opts *o)
{
	bool headers = false;
	size_t i, n = 0;
	const char *base = NULL;
	struct strs names = { 0 };
	char *t;

	for (i = 0; i < sites->nr; i++) {
		if (why[i])
			continue;
		n++;
		headers |= is_header_file(sites->v[i].f->file);
		if (!strs_has(&names, sites->v[i].f->function))
			strs_push(&names, xstrdup(sites->v[i].f->function));
	}
	if (o->tree) {
		base = strrchr(o->tree, '/');
		base = base && base[1] ? base + 1 : o->tree;
	}
	fputs("// SPDX-License-Identifier: GPL-2.0-only\n", out);
	put_wrapped(out, "/// ", "/// ", "Avoid the trapping ID register "
		    "reads, local-CPU capability checks and slow entropy "
		    "instructions that trapcheck found on hot paths, with the "
		    "fixes it verified:");
	for (i = 0; i < sites->nr; i++)
		if (!why[i] && sites->v[i].e.subject)
			put_wrapped(out, "/// - ", "///   ",
				    sites->v[i].e.subject);
	if (!n)
		fputs("/// (none)\n", out);
	fputs("///\n", out);
	t = xasprintf("Generated by trapcheck %s --emit-cocci%s%s. One rule "
		      "per fix site, pinned to its function and its file (a "
		      "script:python constraint on the position of the "
		      "function name): the same code elsewhere is not changed. "
		      "Patch mode makes the change trapcheck --fix makes; "
		      "report, context and org modes point at the sinks. "
		      "Regenerate it after the tree changes rather than edit "
		      "it.", TRAPCHECK_VERSION,
		      base ? " from the analysis of " : "", base ? base : "");
	put_wrapped(out, "//# ", "//# ", t);
	free(t);
	for (i = 0; i < sites->nr; i++) {
		const struct finding *f = sites->v[i].f;

		if (!why[i])
			continue;
		t = xasprintf("Left out: %s:%u:%u in %s(): %s", f->file,
			      f->line, f->col, f->function, why[i]);
		put_wrapped(out, "//# ", "//#   ", t);
		free(t);
	}
	fputs("//\n// Confidence: High\n", out);
	fprintf(out, "// Copyright: (C) %d The trapcheck authors.\n",
		year_of(o->date));
	fprintf(out, "// Options: --no-includes%s\n",
		headers ? " --include-headers" : "");
	fputs("// Requires: 1.1.1\n// Keywords:", out);
	for (i = 0; i < names.nr; i++)
		fprintf(out, "%s %s", i ? "," : "", names.v[i]);
	fputs("\n\nvirtual patch\nvirtual context\nvirtual org\n"
	      "virtual report\n\n", out);
	fputs("@initialize:python@\n@@\nimport os.path\n\n"
	      "def trapcheck_in(p, rel):\n"
	      "\tf = os.path.normpath(p[0].file)\n"
	      "\treturn f == rel or f.endswith(\"/\" + rel)\n\n", out);
	strs_free(&names);
}

/* Two rules must not rewrite overlapping lines of one file. */
static char *overlap(const struct fix_sites *sites, struct site_rule *rules,
		     char **why, size_t k)
{
	const struct fix_site *s = &sites->v[k];
	size_t i;

	for (i = 0; i < k; i++) {
		const struct fix_site *t = &sites->v[i];

		if (why[i] || strcmp(s->f->file, t->f->file))
			continue;
		if (s->e.first <= rules[i].last && t->e.first <= rules[k].last)
			return xasprintf("its lines overlap the fix of %s:%u",
					 t->f->file, t->f->line);
	}
	return NULL;
}

int cocci_emit(const char *path, const struct fix_sites *sites,
	       const struct cocci_opts *o, char *err, size_t errlen)
{
	struct site_rule *rules = xcalloc(sites->nr + 1, sizeof(*rules));
	char **why = xcalloc(sites->nr + 1, sizeof(*why));
	char *buf = NULL;
	size_t len = 0, i;
	unsigned int n = 0;
	struct out_file of;
	FILE *out;
	int ret;

	for (i = 0; i < sites->nr; i++) {
		why[i] = build_rule(&sites->v[i], &rules[i]);
		if (!why[i])
			why[i] = overlap(sites, rules, why, i);
	}
	out = open_memstream(&buf, &len);
	put_header(out, sites, why, o);
	for (i = 0; i < sites->nr; i++)
		if (!why[i])
			put_rule(out, ++n, &sites->v[i], &rules[i]);
	/* spatch fails on a semantic patch with no code ("No rules apply"). */
	if (!n)
		fputs("// Nothing to fix: a rule that matches nothing, so that "
		      "spatch runs.\n@nothing@\n@@\n\n"
		      "- trapcheck_found_nothing_to_fix();\n", out);
	fclose(out);
	while (len > 1 && buf[len - 1] == '\n' && buf[len - 2] == '\n')
		buf[--len] = '\0';

	ret = out_open(&of, path);
	if (!ret) {
		fwrite(buf, 1, len, of.f);
		ret = out_close(&of);
	}
	if (ret) {
		snprintf(err, errlen, "%s: cannot write: %s", path,
			 strerror(-ret));
		goto out_free;
	}
	for (i = 0; i < sites->nr; i++) {
		struct finding *f = sites->v[i].f;

		if (!why[i])
			continue;
		free(f->report.fix_note);
		f->report.fix_note =
			xasprintf("fix not in %s: %s", path, why[i]);
	}
	ret = (int)n;
out_free:
	for (i = 0; i < sites->nr; i++) {
		site_rule_free(&rules[i]);
		free(why[i]);
	}
	free(rules);
	free(why);
	free(buf);
	return ret;
}
