// SPDX-License-Identifier: GPL-2.0
/*
 * picture.c - DOT, SVG and HTML views of the findings.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trapcheck/model/guards.h"
#include "trapcheck/output/picture.h"
#include "trapcheck/base/util.h"

extern char **environ;

/* @s as a DOT string: a newline as DOT's line break, "\n". */
static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '\n') {
			fputs("\\n", out);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void picture_dot(FILE *out, const struct finding *f)
{
	size_t i;

	fputs("digraph trapcheck {\n\trankdir=LR;\n"
	      "\tnode [shape=box, style=\"rounded,filled\", "
	      "fillcolor=\"#f4f4f4\", fontname=\"monospace\"];\n"
	      "\tedge [fontname=\"monospace\", fontsize=10];\n", out);
	fputs("\tlabel=", out);
	{
		char *l = xasprintf("%s:%u: %s [%s]", f->site->file,
				    f->site->line, finding_sink(f), f->rule);

		dot_str(out, l);
		free(l);
	}
	fputs(";\n\tlabelloc=t;\n", out);
	if (f->root) {
		fputs("\troot [shape=ellipse, fillcolor=\"#dbe9ff\", label=",
		      out);
		dot_str(out, f->root);
		fputs("];\n", out);
	}
	for (i = 0; i < f->chains[0].len; i++) {
		const struct chain_step *s = &f->chains[0].steps[i];

		fprintf(out, "\tn%zu [label=", i);
		dot_str(out, s->function);
		if (i + 1 == f->chains[0].len)
			fputs(", fillcolor=\"#ffd6d6\"", out);
		fputs("];\n", out);
	}
	fprintf(out, "\tsink [shape=note, fillcolor=\"#ff9f9f\", label=");
	{
		char *l = xasprintf("%s%s%s%s\n%s:%u", finding_sink(f),
				    f->read.reg ? "(" : "",
				    f->read.reg ? f->read.reg : "",
				    f->read.reg ? ")" : "", f->site->file,
				    f->site->line);

		dot_str(out, l);
		free(l);
	}
	fputs("];\n", out);
	if (f->root && f->chains[0].len)
		fputs("\troot -> n0 [style=bold];\n", out);
	for (i = 0; i + 1 < f->chains[0].len; i++) {
		const struct chain_step *s = &f->chains[0].steps[i];
		const struct chain_step *n = &f->chains[0].steps[i + 1];
		bool boot = guards_boot(s->guards);
		char *label = xasprintf("%s:%u%s%s%s%s", s->file, s->line,
					!n->via ? "" : n->inferred ?
					"\nvia " : "\nas ",
					n->via ? n->via : "",
					s->guards ? "\nwhen " : "",
					s->guards ? s->guards : "");

		fprintf(out, "\tn%zu -> n%zu [label=", i, i + 1);
		dot_str(out, label);
		fprintf(out, "%s%s];\n", n->inferred ? ", style=dotted" :
			n->via ? ", style=dashed" : "",
			boot ? ", color=\"#d97706\", fontcolor=\"#d97706\"" :
			"");
		free(label);
	}
	if (f->chains[0].len) {
		const struct chain *c = &f->chains[0];
		const struct chain_step *last = &c->steps[c->len - 1];

		fprintf(out, "\tn%zu -> sink [color=\"#dc2626\"",
			f->chains[0].len - 1);
		if (last->guards) {
			fputs(", label=", out);
			dot_str(out, last->guards);
		}
		fputs("];\n", out);
	}
	fputs("}\n", out);
}

/*
 * dot -Tsvg IN -o OUT; 0 on success, -ENOENT when graphviz's dot is not
 * there (then no SVG is tried again).
 */
static int run_dot(const char *in, const char *out)
{
	char *argv[] = { "dot", "-Tsvg", (char *)in, "-o", (char *)out, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, r;

	/* Its messages are not ours: the failure is said in one line. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		return -ENOENT;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * The SVG of @dot into @svg (taken), written by dot under a temporary
 * name and renamed when dot succeeded; *@svg_on false when graphviz is
 * not there. A failure (a full disk) is the run's.
 */
static int make_svg(const char *dot, char *svg, bool *svg_on, char *err,
		    size_t errlen)
{
	char *tmp = xasprintf("%s.tmp.%d", svg, (int)getpid());
	int ret = run_dot(dot, tmp);

	if (ret == -ENOENT) {
		*svg_on = false;
		ret = 0;
	} else if (ret || rename(tmp, svg)) {
		snprintf(err, errlen, "%s: cannot write (graphviz's dot "
			 "failed)", svg);
		ret = -EIO;
	}
	unlink(tmp);
	free(tmp);
	free(svg);
	return ret;
}

static char *graph_name(const char *dir, size_t i, const struct finding *f,
			const char *ext)
{
	return xasprintf("%s/%04zu-%s-%s%s", dir, i + 1, f->rule, f->fn->name,
			 ext);
}

int picture_graphs(const char *dir, const struct findings *fs, char *err,
		   size_t errlen)
{
	bool svg = true;
	size_t i;

	int ret = mkdir_parents(dir, 0755);

	if (ret) {
		snprintf(err, errlen, "%s: cannot create: %s", dir,
			 strerror(-ret));
		return ret;
	}
	for (i = 0; !ret && i < fs->nr; i++) {
		char *path = graph_name(dir, i, &fs->v[i], ".dot");
		struct out_file o;

		/* Through a temporary name: a failed write leaves no file. */
		ret = out_open(&o, path);
		if (ret) {
			snprintf(err, errlen, "%s: cannot write: %s", path,
				 strerror(-ret));
			free(path);
			return ret;
		}
		picture_dot(o.f, &fs->v[i]);
		ret = out_close(&o);
		if (ret) {
			snprintf(err, errlen, "%s: write failed: %s", path,
				 strerror(-ret));
			free(path);
			return ret;
		}
		if (svg)
			ret = make_svg(path, graph_name(dir, i, &fs->v[i],
							".svg"), &svg, err,
				       errlen);
		free(path);
	}
	return ret;
}

/* @s, the characters that mean something to HTML written as entities. */
static void html_str(FILE *out, const char *s)
{
	static const char special[] = "<>&\"";
	static const char *const entity[] = {
		"&lt;", "&gt;", "&amp;", "&quot;",
	};

	for (; s && *s; s++) {
		const char *c = strchr(special, *s);

		if (c)
			fputs(entity[c - special], out);
		else
			fputc(*s, out);
	}
}

/* A few lines around the sink, the sink's line marked. */
static void html_excerpt(FILE *out, const char *root, const struct finding *f)
{
	char *path = path_join(root, f->site->file), buf[1024];
	FILE *in = fopen(path, "r");
	unsigned int n = 0;

	free(path);
	if (!in)
		return;
	fputs("<pre class=\"src\">", out);
	while (fgets(buf, sizeof(buf), in)) {
		n++;
		if (n + 4 < f->site->line || n > f->site->line + 3)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(out, "<span class=\"%s\"><b>%5u</b> ",
			n == f->site->line ? "hit" : "ln", n);
		html_str(out, buf);
		fputs("</span>", out);
	}
	fputs("</pre>\n", out);
	fclose(in);
}

/* One chain as boxes and arrows, in plain HTML and CSS; @root may be NULL. */
static void html_chain(FILE *out, const struct finding *f, const char *root,
		       const struct chain *c)
{
	size_t i;

	fputs("<div class=\"chain\">", out);
	if (root) {
		fputs("<span class=\"root\">", out);
		html_str(out, root);
		fputs("</span><span class=\"arrow\">&rarr;</span>", out);
	}
	for (i = 0; i < c->len; i++) {
		const struct chain_step *s = &c->steps[i];

		if (i) {
			const struct chain_step *p = &c->steps[i - 1];

			fprintf(out, "<span class=\"arrow%s\" title=\"",
				guards_boot(p->guards) ? " boot" : "");
			html_str(out, p->file);
			fprintf(out, ":%u", p->line);
			if (p->guards) {
				fputs(" when ", out);
				html_str(out, p->guards);
			}
			fputs("\">&rarr;</span>", out);
		}
		fprintf(out, "<span class=\"fn%s\">",
			i + 1 == c->len ? " sinkfn" : "");
		html_str(out, s->function);
		if (s->via) {
			fputs(s->inferred ? "<small> via " : "<small> as ", out);
			html_str(out, s->via);
			fputs("</small>", out);
		}
		fputs("</span>", out);
	}
	fputs("<span class=\"arrow\">&rarr;</span><span class=\"sink\">", out);
	html_str(out, finding_sink(f));
	if (f->read.cap || f->read.reg) {
		fputs("(", out);
		html_str(out, f->read.cap ? f->read.cap : f->read.reg);
		fputs(")", out);
	}
	fputs("</span></div>\n", out);
}

/* The tests the chain passes: "fn(): guards", one a line. */
static void html_conditions(FILE *out, const struct chain *c)
{
	size_t i;
	bool any = false;

	for (i = 0; i < c->len; i++) {
		const struct chain_step *s = &c->steps[i];

		if (!s->guards)
			continue;
		fputs(any ? "" : "<ul class=\"cond\">", out);
		any = true;
		fprintf(out, "<li%s>under <code>", s->rare ?
			" class=\"rare\"" : "");
		html_str(out, s->guards);
		fputs("</code> in <code>", out);
		html_str(out, s->function);
		fputs("()</code></li>", out);
	}
	if (any)
		fputs("</ul>\n", out);
}

/* The rate as the text output words it, then how it was found. */
static void html_rate(FILE *out, const struct finding *f)
{
	char *rate = finding_rate_text(f);

	html_str(out, rate);
	free(rate);
	if (f->root && !finding_per_boot(f))
		fputs(", modelled", out);
}

/* The fix's fate, when fixes were asked for. */
static void html_fix(FILE *out, const struct finding_note *n)
{
	html_str(out, n && n->fix_note ? n->fix_note :
		      n && n->waiver   ? "waived" :
					 "not asked for (--fix, --fix-dir)");
}

/* The index: one row per finding, linking to it. */
static void html_index(FILE *out, const struct findings *fs)
{
	size_t i;

	fputs("<table class=\"index\"><tr><th>#</th><th>where</th>"
	      "<th>rule</th><th>root set</th><th>rate</th><th>fix</th></tr>\n",
	      out);
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];

		fprintf(out, "<tr><td><a href=\"#f%zu\">%zu</a></td><td>", i + 1,
			i + 1);
		html_str(out, f->site->file);
		fprintf(out, ":%u</td><td>", f->site->line);
		html_str(out, f->rule);
		fputs("</td><td>", out);
		html_str(out, f->root ? f->root : "-");
		fputs("</td><td>", out);
		html_rate(out, f);
		fputs("</td><td>", out);
		html_fix(out, finding_note_of(fs, f));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* One finding: its place, message, rate, fix, chains and source. */
static void html_finding(FILE *out, const struct findings *fs,
			 const struct finding *f, size_t n, const char *root)
{
	size_t j;

	fprintf(out, "<div class=\"f\" id=\"f%zu\"><div><span "
		"class=\"loc\">", n);
	html_str(out, f->site->file);
	fprintf(out, ":%u:%u</span> <span class=\"rule\">", f->site->line,
		f->site->col);
	html_str(out, f->rule);
	fprintf(out, "</span><span class=\"phase %s\">%s phase</span>"
		"</div>\n<p>", f->phase, f->phase);
	html_str(out, f->message);
	fputs("</p>\n<p class=\"rate\">", out);
	html_rate(out, f);
	fputs("</p>\n<p class=\"fix\">fix: ", out);
	html_fix(out, finding_note_of(fs, f));
	fputs("</p>\n", out);
	html_chain(out, f, f->root, &f->chains[0]);
	html_conditions(out, &f->chains[0]);
	for (j = 1; j < f->nr_chains; j++) {
		fputs("<p class=\"other\">another way in:</p>\n", out);
		html_chain(out, f, f->root, &f->chains[j]);
	}
	for (j = 0; j < f->nr_also; j++) {
		fputs("<p class=\"other\">also reached from ", out);
		html_str(out, f->also[j].root);
		fputs(":</p>\n", out);
		html_chain(out, f, f->also[j].root, &f->also[j].chains[0]);
	}
	html_excerpt(out, root, f);
	fputs("</div>\n", out);
}

int picture_html(const char *path, const struct findings *fs,
		 const struct summary *sum, const char *root, char *err,
		 size_t errlen)
{
	struct out_file o;
	FILE *out;
	size_t i;
	int ret = out_open(&o, path);

	if (ret) {
		snprintf(err, errlen, "%s: cannot write: %s", path,
			 strerror(-ret));
		return ret;
	}
	out = o.f;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>trapcheck findings</title><style>\n"
	      "body{font-family:sans-serif;margin:2em;color:#111;"
	      "overflow-wrap:anywhere}\n"
	      "table.index{border-collapse:collapse;width:100%;"
	      "table-layout:fixed;font-size:.9em}\n"
	      ".index td,.index th{border:1px solid #ddd;padding:.2em .4em;"
	      "text-align:left;vertical-align:top}\n"
	      ".index th:nth-child(1){width:3em}"
	      ".index th:nth-child(2){width:30%}"
	      ".index th:nth-child(3){width:14%}"
	      ".index th:nth-child(4){width:9%}\n"
	      ".rate{color:#333}.fix{color:#555;font-size:.9em}\n"
	      ".other{margin:.4em 0 0;color:#555;font-size:.9em}\n"
	      ".cond{margin:.2em 0;font-size:.9em}.cond .rare{color:#b45309}\n"
	      "h1{font-size:1.4em}.f{border:1px solid #ccc;border-radius:6px;"
	      "padding:1em;margin:1em 0}\n"
	      ".loc{font-family:monospace;font-weight:bold}\n"
	      ".rule{background:#eee;border-radius:4px;padding:0 .4em;"
	      "font-family:monospace}\n"
	      ".phase{border-radius:4px;padding:0 .4em;margin-left:.5em}\n"
	      ".boot{background:#fde68a}.steady{background:#bbf7d0}\n"
	      ".chain{margin:.8em 0;display:flex;flex-wrap:wrap;"
	      "align-items:center;row-gap:.5em}\n"
	      ".chain span{font-family:monospace}\n"
	      ".root{background:#dbe9ff;border-radius:1em;padding:.3em .8em}\n"
	      ".fn{background:#f4f4f4;border:1px solid #bbb;border-radius:4px;"
	      "padding:.2em .5em}\n.sinkfn{background:#ffd6d6}\n"
	      ".sink{background:#ff9f9f;padding:.2em .5em}\n"
	      ".arrow{margin:0 .3em;color:#555}.arrow.boot{color:#d97706}\n"
	      ".src{background:#fafafa;border:1px solid #eee;padding:.5em;"
	      "white-space:pre-wrap}\n"
	      ".hit{background:#fff3b0;display:block}.ln{display:block}\n"
	      "</style></head><body>\n<h1>trapcheck findings</h1>\n", out);
	fprintf(out, "<p>%zu findings; %zu TUs analysed, %zu functions, %zu "
		"call edges%s.</p>\n", fs->nr, sum->tus ? sum->tus->tus : 0,
		sum->graph ? sum->graph->functions : 0,
		sum->graph ? sum->graph->edges : 0,
		sum->baseline && sum->baseline->waived ? "; some waived" : "");
	html_index(out, fs);
	for (i = 0; i < fs->nr; i++)
		html_finding(out, fs, &fs->v[i], i + 1, root);
	fputs("</body></html>\n", out);
	ret = out_close(&o);
	if (ret) {
		snprintf(err, errlen, "%s: write failed: %s", path,
			 strerror(-ret));
		return -EIO;
	}
	return 0;
}
