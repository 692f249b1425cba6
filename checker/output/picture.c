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

static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
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
		char *l = xasprintf("%s:%u: %s [%s]", f->file, f->line,
				    f->sink, f->rule);

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
	for (i = 0; i < f->chain.len; i++) {
		const struct chain_step *s = &f->chain.steps[i];

		fprintf(out, "\tn%zu [label=", i);
		dot_str(out, s->function);
		if (i + 1 == f->chain.len)
			fputs(", fillcolor=\"#ffd6d6\"", out);
		fputs("];\n", out);
	}
	fprintf(out, "\tsink [shape=note, fillcolor=\"#ff9f9f\", label=");
	{
		char *l = xasprintf("%s%s%s%s\\n%s:%u", f->sink, f->reg ? "(" :
				    "", f->reg ? f->reg : "", f->reg ? ")" :
				    "", f->file, f->line);

		dot_str(out, l);
		free(l);
	}
	fputs("];\n", out);
	if (f->root && f->chain.len)
		fputs("\troot -> n0 [style=bold];\n", out);
	for (i = 0; i + 1 < f->chain.len; i++) {
		const struct chain_step *s = &f->chain.steps[i];
		const struct chain_step *n = &f->chain.steps[i + 1];
		bool boot = guards_boot(s->guards);
		char *label = xasprintf("%s:%u%s%s%s%s", s->file, s->line,
					!n->via ? "" : n->inferred ?
					"\\nvia " : "\\nas ",
					n->via ? n->via : "",
					s->guards ? "\\nwhen " : "",
					s->guards ? s->guards : "");

		fprintf(out, "\tn%zu -> n%zu [label=", i, i + 1);
		dot_str(out, label);
		fprintf(out, "%s%s];\n", n->inferred ? ", style=dotted" :
			n->via ? ", style=dashed" : "",
			boot ? ", color=\"#d97706\", fontcolor=\"#d97706\"" :
			"");
		free(label);
	}
	if (f->chain.len) {
		const struct chain_step *last = &f->chain.steps[f->chain.len - 1];

		fprintf(out, "\tn%zu -> sink [color=\"#dc2626\"", f->chain.len - 1);
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
	return xasprintf("%s/%04zu-%s-%s%s", dir, i + 1, f->rule, f->function,
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
	char *path = path_join(root, f->file), buf[1024];
	FILE *in = fopen(path, "r");
	unsigned int n = 0;

	free(path);
	if (!in)
		return;
	fputs("<pre class=\"src\">", out);
	while (fgets(buf, sizeof(buf), in)) {
		n++;
		if (n + 4 < f->line || n > f->line + 3)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(out, "<span class=\"%s\"><b>%5u</b> ",
			n == f->line ? "hit" : "ln", n);
		html_str(out, buf);
		fputs("</span>", out);
	}
	fputs("</pre>\n", out);
	fclose(in);
}

/* The chain as boxes and arrows, in plain HTML and CSS. */
static void html_chain(FILE *out, const struct finding *f)
{
	size_t i;

	fputs("<div class=\"chain\">", out);
	if (f->root) {
		fputs("<span class=\"root\">", out);
		html_str(out, f->root);
		fputs("</span><span class=\"arrow\">&rarr;</span>", out);
	}
	for (i = 0; i < f->chain.len; i++) {
		const struct chain_step *s = &f->chain.steps[i];

		if (i) {
			const struct chain_step *p = &f->chain.steps[i - 1];

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
			i + 1 == f->chain.len ? " sinkfn" : "");
		html_str(out, s->function);
		if (s->via) {
			fputs(s->inferred ? "<small> via " : "<small> as ", out);
			html_str(out, s->via);
			fputs("</small>", out);
		}
		fputs("</span>", out);
	}
	fputs("<span class=\"arrow\">&rarr;</span><span class=\"sink\">", out);
	html_str(out, f->sink);
	if (f->cap || f->reg) {
		fputs("(", out);
		html_str(out, f->cap ? f->cap : f->reg);
		fputs(")", out);
	}
	fputs("</span></div>\n", out);
}

int picture_html(const char *path, const struct findings *fs,
		 const struct run_summary *sum, const char *root, char *err,
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
	      "body{font-family:sans-serif;margin:2em;color:#111}\n"
	      "h1{font-size:1.4em}.f{border:1px solid #ccc;border-radius:6px;"
	      "padding:1em;margin:1em 0}\n"
	      ".loc{font-family:monospace;font-weight:bold}\n"
	      ".rule{background:#eee;border-radius:4px;padding:0 .4em;"
	      "font-family:monospace}\n"
	      ".phase{border-radius:4px;padding:0 .4em;margin-left:.5em}\n"
	      ".boot{background:#fde68a}.steady{background:#bbf7d0}\n"
	      ".chain{margin:.8em 0;line-height:2.2em}\n"
	      ".chain span{font-family:monospace;white-space:nowrap}\n"
	      ".root{background:#dbe9ff;border-radius:1em;padding:.3em .8em}\n"
	      ".fn{background:#f4f4f4;border:1px solid #bbb;border-radius:4px;"
	      "padding:.2em .5em}\n.sinkfn{background:#ffd6d6}\n"
	      ".sink{background:#ff9f9f;padding:.2em .5em}\n"
	      ".arrow{margin:0 .3em;color:#555}.arrow.boot{color:#d97706}\n"
	      ".src{background:#fafafa;border:1px solid #eee;padding:.5em}\n"
	      ".hit{background:#fff3b0;display:block}.ln{display:block}\n"
	      "</style></head><body>\n<h1>trapcheck findings</h1>\n", out);
	fprintf(out, "<p>%zu findings; %zu TUs analysed, %zu functions, %zu "
		"call edges%s.</p>\n", fs->nr, sum->tus, sum->functions,
		sum->edges, sum->waived ? "; some waived" : "");
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];

		fprintf(out, "<div class=\"f\" id=\"f%zu\"><div><span "
			"class=\"loc\">", i + 1);
		html_str(out, f->file);
		fprintf(out, ":%u:%u</span> <span class=\"rule\">", f->line,
			f->col);
		html_str(out, f->rule);
		fprintf(out, "</span><span class=\"phase %s\">%s phase</span>"
			"</div>\n<p>", f->phase, f->phase);
		html_str(out, f->message);
		fputs("</p>\n", out);
		html_chain(out, f);
		html_excerpt(out, root, f);
		fputs("</div>\n", out);
	}
	fputs("</body></html>\n", out);
	ret = out_close(&o);
	if (ret) {
		snprintf(err, errlen, "%s: write failed: %s", path,
			 strerror(-ret));
		return -EIO;
	}
	return 0;
}
