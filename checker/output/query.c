// SPDX-License-Identifier: GPL-2.0
/*
 * query.c - callers, callees, path and why over the call graph.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/output/query.h"
#include "trapcheck/graph/reach.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/base/util.h"

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Print the collected lines sorted: the same output whatever -j. */
static size_t flush_sorted(FILE *out, char **lines, size_t n)
{
	size_t i;

	sort_n(lines, n, sizeof(*lines), line_cmp);
	for (i = 0; i < n; i++) {
		fputs(lines[i], out);
		free(lines[i]);
	}
	free(lines);
	return n;
}

static void site(FILE *out, const struct gedge *e)
{
	fprintf(out, "%s:%u:%u", e->file, e->line, e->col);
	if (e->via)
		fprintf(out, " (as %s)", e->via);
	if (e->guards)
		fprintf(out, " when %s", e->guards);
}

bool query_known(const struct graph *g, const char *fn)
{
	size_t i;

	for (i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i].name, fn))
			return true;
	return false;
}

/* The callers (@in) or callees of every function named @fn, sorted. */
static int query_edges(FILE *out, const struct graph *g, const char *fn,
		       bool in)
{
	size_t i, j, n = 0, alloc = 0;
	char **lines = NULL;

	if (!query_known(g, fn))
		return -ENOENT;
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *node = &g->nodes[i];
		size_t nr = in ? node->nr_in : node->nr_out;

		if (strcmp(node->name, fn))
			continue;
		for (j = 0; j < nr; j++) {
			const struct gedge *e =
				&g->edges[in ? node->in[j] : node->out[j]];
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);

			fprintf(m, "%s\t",
				g->nodes[in ? e->caller : e->callee].name);
			site(m, e);
			fputc('\n', m);
			fclose(m);
			*PUSH(lines, n, alloc) = buf;
		}
	}
	return flush_sorted(out, lines, n) ? 0 : 1;
}

int query_callers(FILE *out, const struct graph *g, const char *fn)
{
	return query_edges(out, g, fn, true);
}

int query_callees(FILE *out, const struct graph *g, const char *fn)
{
	return query_edges(out, g, fn, false);
}

static void print_edges(FILE *out, const struct graph *g, const int *edges,
			size_t n, int last)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct gedge *e = &g->edges[edges[i]];

		fprintf(out, "%s\t", g->nodes[e->caller].name);
		site(out, e);
		fputc('\n', out);
	}
	fprintf(out, "%s\n", g->nodes[last].name);
}

int query_path(FILE *out, const struct graph *g, const char *from,
	       const char *to)
{
	char *name = xstrdup(from);
	struct root_set set = { .name = "from", .funcs = &name, .nr = 1 };
	struct reach r;
	size_t i, n;
	int best = -1, *edges;

	if (!query_known(g, from) || !query_known(g, to)) {
		free(name);
		return -ENOENT;
	}
	reach_compute(g, &set, false, NULL, NULL, &r);
	for (i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i].name, to) && reach_has(&r, (int)i) &&
		    (best < 0 || r.depth[i] < r.depth[best]))
			best = (int)i;
	if (best >= 0) {
		n = reach_chain(g, &r, best, &edges);
		print_edges(out, g, edges, n, best);
		free(edges);
	}
	reach_free(&r);
	free(name);
	return best >= 0 ? 0 : 1;
}

int query_why(FILE *out, const struct graph *g, const struct root_sets *rs,
	      const char *file_line)
{
	const char *colon = strrchr(file_line, ':');
	size_t i, j, hits = 0;
	unsigned int line;
	char *file;

	if (!colon)
		return -EINVAL;
	file = xstrndup(file_line, colon - file_line);
	line = (unsigned int)atoi(colon + 1);
	for (i = 0; i < g->nr_sinks; i++) {
		const struct gsink *s = &g->sinks[i];

		if (s->line != line || strcmp(s->file, file))
			continue;
		fprintf(out, "%s:%u:%u: %s(%s) in %s()%s%s\n", s->file, s->line,
			s->col, sink_at(s->sink)->name, s->arg ? s->arg : "",
			g->nodes[s->func].name, s->guards ? " when " : "",
			s->guards ? s->guards : "");
		for (j = 0; j < rs->nr; j++) {
			bool *stop = reach_stops(g, rs, j, NULL);
			struct reach r;
			int *edges;
			size_t n;

			reach_compute(g, &rs->sets[j], false, stop, NULL, &r);
			free(stop);
			if (reach_has(&r, s->func)) {
				fprintf(out, "reached from %s:\n",
					rs->sets[j].name);
				n = reach_chain(g, &r, s->func, &edges);
				print_edges(out, g, edges, n, s->func);
				free(edges);
				hits++;
			} else {
				fprintf(out, "not reached from %s\n",
					rs->sets[j].name);
			}
			reach_free(&r);
		}
	}
	free(file);
	return hits ? 0 : 1;
}
