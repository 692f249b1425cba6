// SPDX-License-Identifier: GPL-2.0
/*
 * graph-regions.c - regions a function is entered in, across calls
 * (graph.h).
 *
 * The extractor marks what a function runs between an opening and a
 * closing call of checker/model/regions.def, and what runs before a close that
 * nothing in the function opened: arm64's el0_svc_common() of 6.1 runs
 * with DAIF masked until its local_daif_restore(DAIF_PROCCTX). Its
 * caller do_el0_svc() opens nothing, so it too is entered masked, and
 * so is el0_svc(), which calls the Cortex-A76 erratum 1463225 handler
 * before do_el0_svc(): the handler's this_cpu_has_cap() runs with
 * interrupts masked, not preemptible. 6.12 calls local_daif_restore() in
 * el0_svc() itself, after the handler, where one function shows it.
 *
 * Only closes whose arguments are constants mark a function entered
 * masked (clang/extract-body.c, unmasks_all()).
 *
 * A caller that opens or closes no region of any kind and calls no
 * function that returns with interrupts masked, calling a function
 * entered with them masked at a site not already known to be masked,
 * must itself be entered so: what it runs up to that site runs masked.
 * Repeated until nothing changes. Interrupts only: a function that
 * releases a lock its caller took (1,162 of them in 6.1's arm64
 * defconfig) is entered with the lock held, but its caller took the lock
 * through a helper as often as not, and saying so needs more than this.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/graph/graph.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/base/util.h"

/* Does the site (@file, @line, @col) come before the limit? */
static bool before(const char *file, unsigned int line, unsigned int col,
		   const char *lfile, unsigned int lline, unsigned int lcol)
{
	if (!file || !lfile || strcmp(file, lfile))
		return false;
	return line < lline || (line == lline && col < lcol);
}

/* Add @atom to *@guards (interned) unless it holds already; 1 if added. */
static size_t with_atom(struct graph *g, const char **guards,
			const char *atom)
{
	char *s;

	if (*guards && strstr(*guards, atom))
		return 0;
	s = *guards ? xasprintf("%s && %s", *guards, atom) : xstrdup(atom);
	*guards = strpool_intern(&g->pool, s);
	free(s);
	return 1;
}

/* The last site of a function that needs interrupts masked. */
struct until {
	const char *file;
	unsigned int line, col;
};

/* The callers of a function that returns with region @bit open. */
static bool *callers_of_openers(const struct graph *g, unsigned int bit)
{
	bool *calls = xcalloc(g->nr_nodes + 1, sizeof(*calls));
	size_t i;

	for (i = 0; i < g->nr_edges; i++)
		if (g->nodes[g->edges[i].callee].region_out & bit)
			calls[g->edges[i].caller] = true;
	return calls;
}

/*
 * The site @file:@line:@col of @func, before the last call that needs
 * interrupts masked? That call itself carries no atom: the callee
 * unmasks somewhere, and what runs after that is preemptible.
 */
static bool in_entry_region(const struct until *u, const unsigned int *inf,
			    int func, const char *file, unsigned int line,
			    unsigned int col)
{
	const unsigned int bit = 1U << REGION_IRQ;

	return (inf[func] & bit) &&
	       before(file, line, col, u[func].file, u[func].line,
		      u[func].col);
}

size_t graph_infer_regions(struct graph *g)
{
	const unsigned int bit = 1U << REGION_IRQ;
	const char *atom = guard_region_atom[REGION_IRQ];
	struct until *until = xcalloc(g->nr_nodes + 1, sizeof(*until));
	unsigned int *inferred = xcalloc(g->nr_nodes + 1, sizeof(*inferred));
	bool *opener = callers_of_openers(g, bit);
	bool changed = true;
	size_t i, added = 0;

	while (changed) {
		changed = false;
		for (i = 0; i < g->nr_edges; i++) {
			const struct gedge *e = &g->edges[i];
			struct gnode *c = &g->nodes[e->caller];
			const struct gnode *f = &g->nodes[e->callee];
			struct until *u = &until[e->caller];

			if (e->inferred || !c->defined ||
			    !(f->region_in & bit) || c->region_seen ||
			    (e->guards && strstr(e->guards, atom)) ||
			    opener[e->caller])
				continue;
			if (!(c->region_in & bit)) {
				c->region_in |= bit;
				inferred[e->caller] |= bit;
				changed = true;
			}
			if (!u->file || before(u->file, u->line, u->col,
					       e->file, e->line, e->col)) {
				u->file = e->file;
				u->line = e->line;
				u->col = e->col;
			}
		}
	}

	/* What the inferred callers run before the last such call. */
	for (i = 0; i < g->nr_edges; i++) {
		struct gedge *e = &g->edges[i];

		if (in_entry_region(until, inferred, e->caller, e->file,
				    e->line, e->col))
			added += with_atom(g, &e->guards, atom);
	}
	for (i = 0; i < g->nr_sinks; i++) {
		struct gsink *s = &g->sinks[i];

		if (in_entry_region(until, inferred, s->func, s->file,
				    s->line, s->col))
			added += with_atom(g, &s->guards, atom);
	}
	free(opener);
	free(inferred);
	free(until);
	return added;
}
