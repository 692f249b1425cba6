// SPDX-License-Identifier: GPL-2.0
/*
 * patchlint.c - lint a unified diff against the analysed tree.
 *
 * Hunks are read with their function context (git's "@@ ... @@ func"
 * header, or a definition line inside the hunk). Added lines are scanned
 * for the macro and call sinks of checker/sinks.def; a sink whose
 * function the graph reaches from a root set is reported with the chain
 * the tree already has. A hunk taken before capabilities are finalized
 * that drops "!preemptible()" is reported as preempt-guard.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/patchlint.h"
#include "trapcheck/reach.h"
#include "trapcheck/rules.h"
#include "trapcheck/sinks.h"
#include "trapcheck/util.h"

struct hunk {
	char *file;		/* new path, "b/" dropped */
	char *func;		/* enclosing function, or NULL */
	unsigned int line;	/* new-file line of the first added line */
	bool removes_guard, adds_guard, unfinalized;
};

/* The last identifier before a '(' in @s: a function's name. */
static char *function_in(const char *s)
{
	const char *p = strchr(s, '('), *end, *start;

	if (!p)
		return NULL;
	end = p;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	start = end;
	while (start > s && (isalnum((unsigned char)start[-1]) ||
			     start[-1] == '_'))
		start--;
	if (start == end || isdigit((unsigned char)*start))
		return NULL;
	return xstrndup(start, end - start);
}

/* A line that starts a definition at column 0: "static bool f(void)". */
static bool is_definition(const char *code)
{
	return code[0] && !isspace((unsigned char)code[0]) &&
	       code[0] != '#' && code[0] != '}' && code[0] != '{' &&
	       strchr(code, '(') && !strchr(code, ';') && !strstr(code, "=");
}

static int root_of(const struct graph *g, struct reach *reach, size_t nr,
		   const char *func, int *node)
{
	size_t i, j;

	for (i = 0; i < g->nr_nodes; i++) {
		if (!g->nodes[i].defined || strcmp(g->nodes[i].name, func))
			continue;
		for (j = 0; j < nr; j++) {
			if (reach_has(&reach[j], (int)i)) {
				*node = (int)i;
				return (int)j;
			}
		}
	}
	return -1;
}

static void fill_chain(const struct graph *g, const struct reach *r,
		       int node, const char *file, unsigned int line,
		       struct finding *f)
{
	int *edges;
	size_t n = reach_chain(g, r, node, &edges), i;

	f->chain.len = n + 1;
	f->chain.steps = xcalloc(n + 1, sizeof(*f->chain.steps));
	for (i = 0; i < n; i++) {
		const struct gedge *e = &g->edges[edges[i]];

		f->chain.steps[i].function = g->nodes[e->caller].name;
		f->chain.steps[i].file = e->file;
		f->chain.steps[i].line = e->line;
		f->chain.steps[i].col = e->col;
		f->chain.steps[i].guards = e->guards;
		f->chain.steps[i + 1].via = e->via;
	}
	f->chain.steps[n].function = g->nodes[node].name;
	f->chain.steps[n].file = file;
	f->chain.steps[n].line = line;
	free(edges);
}

struct lint {
	const struct graph *g;
	const struct root_sets *roots;
	struct reach *reach;
	struct findings *out;
	struct strpool *pool;	/* the findings' own: strings they point to */
};

static struct finding *add(struct lint *l, const char *rule,
			   const char *file, unsigned int line,
			   unsigned int col, const char *func)
{
	struct finding *f = PUSH(l->out->v, l->out->nr, l->out->alloc);

	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->file = strpool_intern(l->pool, file);
	f->line = line;
	f->col = col;
	f->function = func ? strpool_intern(l->pool, func) : "?";
	f->phase = "steady";
	f->sanitised = -1;
	return f;
}

/* Sinks written on an added line of @h. */
static void scan_added(struct lint *l, const struct hunk *h,
		       const char *code, unsigned int line)
{
	size_t i;

	for (i = 0; i < sink_table_size; i++) {
		const struct sink_def *d = &sink_table[i];
		const char *p = code;
		size_t n = strlen(d->name);

		if (d->class != SINK_IDREG && d->class != SINK_LOCAL_CAP)
			continue;
		while ((p = strstr(p, d->name))) {
			const char *a = p + n;
			char arg[128];
			size_t k = 0;
			const struct reg_def *reg = NULL;
			struct finding *f;
			int node = -1, r;

			if ((p > code && (isalnum((unsigned char)p[-1]) ||
					  p[-1] == '_')) || *a != '(') {
				p += n;
				continue;
			}
			for (a++; *a == ' '; a++)
				;
			while ((isalnum((unsigned char)*a) || *a == '_') &&
			       k < sizeof(arg) - 1)
				arg[k++] = *a++;
			arg[k] = '\0';
			if (d->class == SINK_IDREG) {
				reg = reg_lookup_arg(d, arg);
				if (!reg || reg->trap == TRAP_NONE) {
					p += n;
					continue;
				}
			} else {
				const struct cap *c = caps_find(&l->g->caps,
								arg);

				if (c && c->how && c->trap == TRAP_NONE) {
					p += n;
					continue;
				}
				reg = c && c->reads ? reg_lookup(c->reads) :
						      NULL;
			}
			r = h->func ? root_of(l->g, l->reach, l->roots->nr,
					      h->func, &node) : -1;
			if (r < 0) {
				p += n;
				continue;	/* not on a hot path */
			}
			f = add(l, d->class == SINK_IDREG ?
				"trapping-idreg-read" : "local-cap-check",
				h->file, line, (unsigned int)(p - code) + 1,
				h->func);
			f->sink = d->name;
			f->reg = reg ? reg->name : NULL;
			f->trap = reg ? trap_class_name(reg->trap) : NULL;
			f->cap = d->class == SINK_LOCAL_CAP ?
				 strpool_intern(l->pool, arg) : NULL;
			f->root = l->roots->sets[r].name;
			f->message = xasprintf("this patch adds %s(%s) to %s(), "
					       "which the tree already reaches "
					       "from %s: each call traps to "
					       "the hypervisor%s%s%s",
					       d->name, arg, h->func, f->root,
					       reg ? " (" : "",
					       reg ? trap_class_name(reg->trap)
						   : "",
					       reg ? ")" : "");
			fill_chain(l->g, &l->reach[r], node, f->file, line, f);
			p += n;
		}
	}
}

static void end_hunk(struct lint *l, struct hunk *h)
{
	if (h->file && h->removes_guard && !h->adds_guard &&
	    h->unfinalized) {
		struct finding *f = add(l, "preempt-guard", h->file, h->line,
					1, h->func);

		f->sink = "preemptible";
		f->message = xasprintf("this patch removes the !preemptible() "
				       "guard from a branch taken before "
				       "capabilities are finalized%s%s%s: a "
				       "per-CPU answer needs it (seed 000's "
				       "review)", h->func ? " in " : "",
				       h->func ? h->func : "",
				       h->func ? "()" : "");
		f->chain.len = 1;
		f->chain.steps = xcalloc(1, sizeof(*f->chain.steps));
		f->chain.steps[0].function = f->function;
		f->chain.steps[0].file = f->file;
		f->chain.steps[0].line = f->line;
	}
	free(h->func);
	h->func = NULL;
	h->removes_guard = h->adds_guard = h->unfinalized = false;
	h->line = 0;
}

int patchlint_run(const char *patch, const struct graph *g,
		  const struct root_sets *roots, struct findings *out,
		  char *err, size_t errlen)
{
	struct lint l = { .g = g, .roots = roots, .out = out };
	struct hunk h = { 0 };
	char *line = NULL;
	size_t cap = 0, j;
	unsigned int newline = 0, lineno = 0;
	bool in_hunk = false;
	int ret = 0;
	FILE *f = fopen(patch, "r");

	if (!f) {
		snprintf(err, errlen, "%s: cannot read patch: %s", patch,
			 strerror(errno));
		return -errno;
	}
	if (!out->pool) {
		out->pool = xmalloc(sizeof(*out->pool));
		strpool_init(out->pool);
	}
	l.pool = out->pool;
	l.reach = xcalloc(roots->nr + 1, sizeof(*l.reach));
	for (j = 0; j < roots->nr; j++) {
		bool *stop = reach_stops(g, roots, j);

		reach_compute(g, &roots->sets[j], false, stop, &l.reach[j]);
		free(stop);
	}

	while (getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "+++ ", 4)) {
			char *norm;

			end_hunk(&l, &h);
			free(h.file);
			h.file = xstrdup(!strncmp(line + 4, "b/", 2) ?
					 line + 6 : line + 4);
			/* diff -u adds "\t<date>" after the name. */
			h.file[strcspn(h.file, "\t")] = '\0';
			in_hunk = false;
			/* A file of the tree, as git apply would insist. */
			norm = path_normalize(h.file);
			if (strcmp(h.file, "/dev/null") &&
			    (norm[0] == '/' || !strcmp(norm, "..") ||
			     !strncmp(norm, "../", 3))) {
				snprintf(err, errlen, "%s:%u: a path outside "
					 "the tree: %s", patch, lineno, h.file);
				free(norm);
				ret = -EINVAL;
				break;
			}
			free(norm);
		} else if (!strncmp(line, "@@ ", 3)) {
			char *ctx = strstr(line + 3, "@@");
			char *plus = strchr(line, '+');

			end_hunk(&l, &h);
			newline = plus ? (unsigned int)atoi(plus + 1) : 0;
			h.func = ctx ? function_in(ctx + 2) : NULL;
			in_hunk = true;
		} else if (in_hunk && (line[0] == '+' || line[0] == '-' ||
				       line[0] == ' ')) {
			const char *code = line + 1;

			if (line[0] != '-' && is_definition(code)) {
				free(h.func);
				h.func = function_in(code);
			}
			if (strstr(code, "system_capabilities_finalized"))
				h.unfinalized = true;
			if (line[0] == '-' && strstr(code, "!preemptible()"))
				h.removes_guard = true;
			if (line[0] == '+' && strstr(code, "!preemptible()"))
				h.adds_guard = true;
			if (line[0] == '+') {
				if (!h.line)
					h.line = newline;
				scan_added(&l, &h, code, newline);
			}
			if (line[0] != '-')
				newline++;
		} else if (in_hunk && strncmp(line, "\\ ", 2)) {
			end_hunk(&l, &h);
			in_hunk = false;
		}
	}
	if (!ret)
		end_hunk(&l, &h);
	free(h.file);
	free(line);
	fclose(f);
	for (j = 0; j < roots->nr; j++)
		reach_free(&l.reach[j]);
	free(l.reach);
	findings_sort(out);
	return ret;
}
