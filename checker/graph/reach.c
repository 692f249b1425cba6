// SPDX-License-Identifier: GPL-2.0
/*
 * reach.c - reachability from a root set, by the most believable chains.
 *
 * A chain's cost is (calls under a rare condition on it, inferred calls
 * on it, calls on it), compared in that order: a chain that runs in the
 * common case beats one that needs a rare branch (conditions.h), a chain
 * of direct calls beats any chain through an ops table or a
 * registration, and among equals the shorter one wins. The walk is
 * Dijkstra's over that cost with a binary heap; ties go to the node
 * found first, and nodes and edges are visited in key and call-site
 * order, so every chain is the same for any -j. With no inferred edges it
 * is the breadth-first walk.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/graph/reach.h"
#include "trapcheck/graph/regroots.h"

static int key_cmp(const void *a, const void *b, void *g)
{
	const struct graph *gr = g;

	return strcmp(gr->nodes[*(const int *)a].key,
		      gr->nodes[*(const int *)b].key);
}

struct heap_item {
	unsigned int rare, inferred, depth;
	size_t seq;		/* insertion order: ties to the first */
	int node;
};

struct heap {
	struct heap_item *v;
	size_t nr, alloc;
};

static bool before(const struct heap_item *a, const struct heap_item *b)
{
	if (a->rare != b->rare)
		return a->rare < b->rare;
	if (a->inferred != b->inferred)
		return a->inferred < b->inferred;
	if (a->depth != b->depth)
		return a->depth < b->depth;
	return a->seq < b->seq;
}

static void heap_push(struct heap *h, struct heap_item it)
{
	size_t i = h->nr;

	PUSH(h->v, h->nr, h->alloc);
	while (i && before(&it, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = it;
}

static struct heap_item heap_pop(struct heap *h)
{
	struct heap_item top = h->v[0], last = h->v[--h->nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->nr)
		h->v[i] = last;
	return top;
}

bool *reach_members(const struct graph *g, const struct root_set *set)
{
	bool *in = regroots_of(g, set->name);
	struct strmap names;
	size_t i;

	if (!in)
		in = xcalloc(g->nr_nodes + 1, sizeof(*in));
	strmap_init(&names);
	for (i = 0; i < set->nr; i++)
		strmap_put(&names, set->funcs[i], 1);
	for (i = 0; i < g->nr_nodes && set->nr; i++)
		in[i] |= strmap_get(&names, g->nodes[i].name) >= 0;
	strmap_free(&names);
	return in;
}

/*
 * What a walk reads of an edge, in the callers' out order, 12 bytes
 * instead of the edge's and its callee's records (a warm run's walks
 * were bound by those loads): made once for the walks of a run.
 */
struct walk_edge {
	int edge, callee;
	unsigned char flags;
};

/* An opaque or cold callee, a periodic or ruled-out call: not followed. */
#define WE_NEVER	0x01
#define WE_BOOT		0x02	/* every site in the boot phase */
#define WE_RARE		0x04
#define WE_INFERRED	0x08

struct walk_view {
	size_t *start;		/* per node and one more: its first out edge */
	struct walk_edge *e;
};

static void view_make(const struct graph *g, struct walk_view *v)
{
	size_t i, j, k = 0;

	v->start = xmalloc((g->nr_nodes + 1) * sizeof(*v->start));
	v->e = xmalloc((g->nr_edges + 1) * sizeof(*v->e));
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *n = &g->nodes[i];

		v->start[i] = k;
		for (j = 0; j < n->nr_out; j++, k++) {
			const struct gedge *e = &g->edges[n->out[j]];
			const struct gnode *c = &g->nodes[e->callee];

			v->e[k].edge = n->out[j];
			v->e[k].callee = e->callee;
			v->e[k].flags =
				(c->opaque || c->cold || e->periodic ||
				 e->ruled_out ? WE_NEVER : 0) |
				(e->boot ? WE_BOOT : 0) |
				(e->rare ? WE_RARE : 0) |
				(e->inferred ? WE_INFERRED : 0);
		}
	}
	v->start[i] = k;
}

static void view_free(struct walk_view *v)
{
	free(v->start);
	free(v->e);
}

static void walk(const struct graph *g, const struct walk_view *view,
		 const struct root_set *set, bool steady, const bool *stop,
		 const bool *members, struct reach *r)
{
	int *roots = xmalloc((g->nr_nodes + 1) * sizeof(*roots));
	bool *done = xcalloc(g->nr_nodes + 1, sizeof(*done));
	struct heap h = { 0 };
	size_t nr = 0, seq = 0, i;
	bool *own = members ? NULL : reach_members(g, set);
	const bool *in = members ? members : own;
	unsigned char never = WE_NEVER | (steady ? WE_BOOT : 0);

	r->set = set;
	r->steady = steady;
	r->parent = xmalloc((g->nr_nodes + 1) * sizeof(*r->parent));
	r->depth = xcalloc(g->nr_nodes + 1, sizeof(*r->depth));
	r->inferred = xcalloc(g->nr_nodes + 1, sizeof(*r->inferred));
	r->rare = xcalloc(g->nr_nodes + 1, sizeof(*r->rare));
	r->nr_roots = 0;
	r->stopped = 0;
	for (i = 0; i < g->nr_nodes; i++)
		r->parent[i] = REACH_NONE;

	/*
	 * Roots: every defined function of a listed name, and every one
	 * registered as the set's lines say (regroots.h), in key order.
	 */
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *n = &g->nodes[i];

		if (!n->defined || n->opaque || n->cold || !in[i])
			continue;
		roots[nr++] = (int)i;
		r->parent[i] = REACH_ROOT;
	}
	free(own);
	r->nr_roots = nr;
	sort_r(roots, nr, sizeof(*roots), key_cmp, (void *)g);
	for (i = 0; i < nr; i++)
		heap_push(&h, (struct heap_item){ 0, 0, 0, seq++, roots[i] });

	while (h.nr) {
		struct heap_item it = heap_pop(&h);
		size_t end = view->start[it.node + 1];

		if (done[it.node])
			continue;
		done[it.node] = true;
		for (i = view->start[it.node]; i < end; i++) {
			const struct walk_edge *e = &view->e[i];
			int v = e->callee;
			struct heap_item next = {
				.rare = it.rare + !!(e->flags & WE_RARE),
				.inferred = it.inferred +
					    !!(e->flags & WE_INFERRED),
				.depth = it.depth + 1,
				.node = v,
			};

			/* Opaque sinks are reported at the call, not entered. */
			if ((e->flags & never) || done[v] ||
			    r->parent[v] == REACH_ROOT)
				continue;
			/*
			 * Another root set's entry point: what runs from
			 * there is that set's (a page fault that schedules
			 * does not own what the scheduler runs).
			 */
			if (stop && stop[v]) {
				r->stopped++;
				continue;
			}
			if (r->parent[v] != REACH_NONE &&
			    !before(&next, &(struct heap_item){
					.rare = r->rare[v],
					.inferred = r->inferred[v],
					.depth = r->depth[v], .seq = 0 }))
				continue;
			r->parent[v] = e->edge;
			r->depth[v] = next.depth;
			r->inferred[v] = next.inferred;
			r->rare[v] = next.rare;
			next.seq = seq++;
			heap_push(&h, next);
		}
	}
	free(h.v);
	free(done);
	free(roots);
}

void reach_compute(const struct graph *g, const struct root_set *set,
		   bool steady, const bool *stop, const bool *members,
		   struct reach *r)
{
	struct walk_view v;

	view_make(g, &v);
	walk(g, &v, set, steady, stop, members, r);
	view_free(&v);
}

void reach_free(struct reach *r)
{
	free(r->parent);
	free(r->depth);
	free(r->inferred);
	free(r->rare);
	memset(r, 0, sizeof(*r));
}

size_t reach_chain(const struct graph *g, const struct reach *r, int node,
		   int **edges)
{
	size_t n = r->depth[node], i = n;
	int *out = xmalloc((n + 1) * sizeof(*out));
	int v = node;

	while (i > 0) {
		int e = r->parent[v];

		out[--i] = e;
		v = g->edges[e].caller;
	}
	*edges = out;
	return n;
}

bool *reach_stops(const struct graph *g, const struct root_sets *sets,
		  size_t set, bool *const *members)
{
	bool *stop = xcalloc(g->nr_nodes + 1, sizeof(*stop));
	bool **in = xcalloc(sets->nr + 1, sizeof(*in));
	size_t i, j;

	for (j = 0; j < sets->nr; j++)
		in[j] = members ? members[j] : reach_members(g, &sets->sets[j]);
	for (i = 0; i < g->nr_nodes; i++) {
		bool other = false;

		for (j = 0; j < sets->nr && !other; j++)
			other = j != set && in[j][i];
		stop[i] = other && !in[set][i];
	}
	for (j = 0; j < sets->nr && !members; j++)
		free(in[j]);
	free(in);
	return stop;
}

/* The walks of every set, shared by the threads that take them in turn. */
struct walks {
	const struct graph *g;
	const struct root_sets *sets;
	bool **in, **stop;
	bool **early;		/* per set: its kernel entries, or NULL */
	struct walk_view view;
	struct reach *out;
	atomic_size_t next;
};

static void *take_walks(void *arg)
{
	struct walks *w = arg;
	size_t k;

	while ((k = atomic_fetch_add(&w->next, 1)) <
	       REACH_WALKS * w->sets->nr) {
		size_t j = k / REACH_WALKS, kind = k % REACH_WALKS;

		if (kind == REACH_EARLY && !w->early[j])
			continue;
		walk(w->g, &w->view, &w->sets->sets[j],
		     kind == REACH_STEADY, w->stop[j],
		     kind == REACH_EARLY ? w->early[j] : w->in[j], &w->out[k]);
	}
	return NULL;
}

/*
 * @in without the set's user-space entries (roots_user_entry()), or NULL
 * when it has none: the early walk would be the any-phase one.
 */
static bool *early_members(const struct graph *g, const struct root_set *set,
			   const bool *in)
{
	bool *early = NULL;
	size_t i;

	if (!set->nr_user && !set->all_user)
		return NULL;
	for (i = 0; i < g->nr_nodes; i++) {
		if (!in[i] || !roots_user_entry(set, g->nodes[i].name))
			continue;
		if (!early) {
			early = xmalloc((g->nr_nodes + 1) * sizeof(*early));
			memcpy(early, in, (g->nr_nodes + 1) * sizeof(*early));
		}
		early[i] = false;
	}
	return early;
}

void reach_compute_sets(const struct graph *g, const struct root_sets *sets,
			struct reach *out)
{
	struct walks w = { .g = g, .sets = sets, .out = out };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	size_t j, nr_threads = 0, want;
	pthread_t t[REACH_MAX_THREADS];

	w.in = xcalloc(sets->nr + 1, sizeof(*w.in));
	w.stop = xcalloc(sets->nr + 1, sizeof(*w.stop));
	w.early = xcalloc(sets->nr + 1, sizeof(*w.early));
	for (j = 0; j < sets->nr; j++) {
		w.in[j] = reach_members(g, &sets->sets[j]);
		w.early[j] = early_members(g, &sets->sets[j], w.in[j]);
	}
	for (j = 0; j < sets->nr; j++)
		w.stop[j] = reach_stops(g, sets, j, w.in);
	view_make(g, &w.view);
	atomic_init(&w.next, 0);
	/* The CPUs this process may run on (taskset, a container's). */
	if (!sched_getaffinity(0, sizeof(set), &set))
		cpus = CPU_COUNT(&set);
	/* This thread walks too; a thread that cannot start is not needed. */
	want = cpus > 1 ? (size_t)cpus - 1 : 0;
	if (want > REACH_MAX_THREADS)
		want = REACH_MAX_THREADS;
	if (want > REACH_WALKS * sets->nr)
		want = REACH_WALKS * sets->nr;
	while (nr_threads < want &&
	       !pthread_create(&t[nr_threads], NULL, take_walks, &w))
		nr_threads++;
	take_walks(&w);
	for (j = 0; j < nr_threads; j++)
		pthread_join(t[j], NULL);
	for (j = 0; j < sets->nr; j++) {
		free(w.in[j]);
		free(w.stop[j]);
		free(w.early[j]);
	}
	free(w.in);
	free(w.stop);
	free(w.early);
	view_free(&w.view);
}
