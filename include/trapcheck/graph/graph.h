/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole-program call graph: one node per function key, one edge per
 * distinct caller -> callee pair (at its first call site), and the sink
 * sites found in function bodies. Strings are interned in the graph.
 */
#ifndef TRAPCHECK_GRAPH_H
#define TRAPCHECK_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/model/facts.h"
#include "trapcheck/base/util.h"

/*
 * Copy the site of a record to another: the call sites and sinks of the
 * facts (facts.h), of the graph (below) and the steps of a chain
 * (finding.h) all have these members.
 */
#define SITE_COPY(to, from) do {					\
	(to)->file = (from)->file;					\
	(to)->line = (from)->line;					\
	(to)->col = (from)->col;					\
	(to)->guards = (from)->guards;					\
	(to)->loop = (from)->loop;					\
	(to)->loop_guess = (from)->loop_guess;				\
} while (0)

struct gnode {
	const char *key;
	const char *name;
	const char *file;	/* definition, or declaration if undefined */
	unsigned int line, col;
	bool defined;
	bool is_static;
	bool opaque;		/* a sink the walk does not enter */
	bool indirect_calls;	/* calls through a function pointer */
	bool cold;		/* never hot: checker/model/cold.def */
	unsigned int region_in;	/* bit k: entered with region k open */
	unsigned int region_seen; /* bit k: opens or closes region k */
	unsigned int region_out; /* bit k: returns with region k open */
	const char *params;	/* "vcpu,~reg" (facts.def), or NULL */
	int *out;		/* edge indices, sorted after graph_finish() */
	size_t nr_out, alloc_out;
	int *in;		/* edges into this node, by graph_finish() */
	size_t nr_in;
};

struct gedge {
	int caller, callee;
	const char *file;
	unsigned int line, col;
	const char *via;	/* macro alias at the call site, or NULL */
	const char *guards;	/* conditions at the site (guards.h) */
	bool boot;		/* every site is in the boot phase */
	bool periodic;		/* every site is rate-limited (guards.h):
				 * never walked from a root set */
	bool rare;		/* every site is under a rare condition
				 * (conditions.h): chains avoid it */
	bool inferred;		/* through a struct member (via: "T.m") or
				 * a registration (via: the list head) */
	bool registered;	/* resolved by registration (dispatch.h) */
	bool ruled_out;		/* a feature test the machine fails
				 * (graph.features): never walked */
	bool feature_only;	/* every site is under a feature test
				 * (conditions.h): --features may rule
				 * the pair out */
	unsigned int loop;	/* known trip counts at the site */
	unsigned int loop_guess; /* loops of unknown bound around it */
	/*
	 * What the sites pass (facts.def tu_call.consts), one variant per
	 * different site joined by '|', "" for a site that passes nothing
	 * known; NULL: every site passes nothing known (graph/args.h).
	 */
	const char *consts;
};

struct gsink {
	int func;
	int sink;		/* index into sink_table */
	const char *arg;	/* register or capability, or NULL */
	const char *mask;	/* what its value is tested with, or NULL */
	const char *feature;	/* the tree's name of that bit, or NULL */
	const char *fields;	/* the register's fields its function
				 * tests ("A,B"), or NULL (facts.def) */
	const char *file;
	unsigned int line, col;
	const char *guards;	/* conditions at the site (guards.h) */
	bool boot;		/* the site itself is in the boot phase */
	bool periodic;		/* the site is rate-limited: not hot */
	bool rare;		/* the site is under a rare condition */
	unsigned int loop;	/* known trip counts at the site */
	unsigned int loop_guess; /* loops of unknown bound around it */
	/*
	 * Its place in its function: 1 for the first site there of the
	 * same sink with the same argument in source order, 2 for the
	 * next... (graph_finish()); part of a finding's fingerprint.
	 */
	unsigned int ordinal;
};

/* A call through "struct.member", resolved to every assigned function. */
struct gicall {
	int caller;
	const char *member;
	const char *object;	/* a control block's (extract.h), or NULL */
	const char *file;
	unsigned int line, col, loop, loop_guess;
	const char *guards;
	const char *consts;	/* a static call's (facts.def), or NULL */
};

/* A root of a set found from a registration (regroots.h). */
struct groot {
	const char *set;	/* the root set's name */
	int node;
	const char *slot;	/* "request_threaded_irq()#1", "irq_chip.irq_eoi" */
	const char *file;	/* where it is registered */
	unsigned int line;
};

struct gassign {
	const char *member;	/* "struct.member", or "function()#N" */
	int fn;
	const char *object;	/* whose member, or NULL (extract.h) */
	const char *file;	/* where it is stored or passed */
	unsigned int line;
};

/*
 * A member that holds every function another one holds: a static call
 * set from an ops member (facts.def tu_assign.from_member); expanded
 * into assignments when the graph is finished.
 */
struct gcopy {
	const char *member;	/* "static_call(kvm_x86_run)" */
	const char *from;	/* "kvm_x86_ops.run" */
	const char *file;	/* where it is set */
	unsigned int line;
};

/*
 * A call with arguments of a registration type (extract.h: tu_call.args),
 * kept per site: the edges keep one site per caller/callee pair.
 */
struct gargsite {
	int caller, callee;
	const char *args;	/* "0=var:x;1=$0" */
	const char *file;
	unsigned int line, col, loop, loop_guess;
	const char *guards;
};

/* What registration-aware dispatch resolved (dispatch.c). */
struct dispatch_stats {
	size_t by_table;	/* member calls resolved through assignments */
	size_t no_target;	/* member calls with nothing assigned */
	size_t by_static;	/* static calls resolved (staticcall.def) */
	size_t static_no_target; /* static calls never set */
	size_t by_registration;	/* dispatch calls on a known list head */
	size_t through_wrapper;	/* on a head the caller was passed */
	size_t unresolved;	/* on a head that cannot be named */
	size_t registrations;	/* objects registered on a known head */
	size_t by_object;	/* control block calls on a named object */
	size_t object_unknown;	/* ... on one that cannot be named */
	const char *examples[3]; /* unresolved: "file:line in fn()" */
	size_t nr_examples;
};

/*
 * A row of a table the architecture read from the tree (facts.def
 * tu_row), its strings interned: every TU's rows, each row once.
 */
struct grow {
	unsigned int kind;
	const char *table, *key, *v[5];
	unsigned int num;
	bool flag;
	const char *file;
	unsigned int line;
};

struct pruned {
	const char *member;
	size_t targets;
};

#define GRAPH_MAX_TARGETS 32	/* default member fan-out before pruning */

struct graph {
	struct strpool pool;
	struct strmap node_index;	/* key -> node */
	struct strmap guard_class;	/* guards -> rate bits (graph.c) */
	struct gnode *nodes;
	size_t nr_nodes, alloc_nodes;
	struct gedge *edges;
	size_t nr_edges, alloc_edges;
	struct gsink *sinks;
	size_t nr_sinks, alloc_sinks;

	/* The architecture's tables, as read from the tree. */
	struct grow *rows;
	size_t nr_rows, alloc_rows;
	struct strmap row_index;	/* each row once */
	unsigned int tables_seen;	/* bit k: a table of row kind k */
	/*
	 * The architecture's view of them, resolved against the graph
	 * (arch.h tables_load(), after graph_finish()); owned here.
	 */
	void *arch_tables;

	struct gicall *icalls;
	size_t nr_icalls, alloc_icalls;
	struct gassign *assigns;
	size_t nr_assigns, alloc_assigns;
	struct gcopy *copies;
	size_t nr_copies, alloc_copies;
	/* Roots found from registrations (regroots.h). */
	struct groot *regroots;
	size_t nr_regroots, alloc_regroots;
	size_t max_targets;		/* prune members with more */
	struct pruned *pruned;
	size_t nr_pruned, alloc_pruned;
	size_t inferred_edges;
	size_t region_sites;	/* sites given a region across calls */
	struct gargsite *argsites;
	size_t nr_argsites, alloc_argsites;
	struct dispatch_stats dispatch;
	bool finished;			/* graph_finish() ran */
	/*
	 * The machine's CPU features (--features, conditions.h), or NULL:
	 * graph_finish() rules out the call sites and sinks under feature
	 * tests they fail.
	 */
	const char *features;
	size_t ruled_out;		/* how many it ruled out */

	/* caller/callee pair -> edge, open addressing */
	struct edge_slot {
		uint64_t pair;
		int edge;
	} *pairs;
	size_t pairs_mask;
};

/*
 * What the linked graph says of itself, for the summary (graph_stats()):
 * copied, so that an analysis moved keeps them.
 */
struct graph_stats {
	size_t functions, edges, sinks;
	size_t inferred;	/* calls inferred through members */
	size_t rate_limited;	/* calls and sinks under a deadline test */
	size_t ruled_out;	/* calls and sinks the --features rule out */
	const char *features;	/* --features, or NULL */
	size_t masked_across;	/* sites masked by a callee's entry */
	bool have_dispatch;	/* dispatch holds the graph's */
	struct dispatch_stats dispatch;
	const struct pruned *pruned;		/* the graph's */
	size_t nr_pruned, max_targets;
};

void graph_init(struct graph *g);
/* @g's counts into @s (its pointers: @g's). */
void graph_stats(const struct graph *g, struct graph_stats *s);
void graph_free(struct graph *g);
/* Add one TU's facts. Not thread-safe: callers serialise. */
void graph_merge(struct graph *g, const struct tu_facts *f);
/*
 * The edge @caller -> @callee at call site @c (one per pair: a direct
 * call beats an inferred one, then a steady site a boot one, then source
 * order). Returns the edge's index.
 */
int graph_add_edge(struct graph *g, int caller, int callee,
		   const struct tu_call *c, bool inferred);
/* Add row @r (its strings interned), unless the graph has it. */
void graph_add_row(struct graph *g, const struct grow *r);
/* Room for @nodes keys and @edges caller/callee pairs in the indices. */
void graph_reserve(struct graph *g, size_t nodes, size_t edges);
/*
 * Index edge @e of a graph whose arrays were filled directly (graphio.c):
 * its caller/callee pair, and its place in its caller's calls. Edges are
 * indexed in order. Returns 0, or -EEXIST for a pair indexed before.
 */
int graph_index_edge(struct graph *g, int e);
/* Sort adjacency and sinks so that every walk is deterministic. */
void graph_finish(struct graph *g);

/*
 * Interrupts masked across calls (checker/graph/graph-regions.c): a caller
 * that opens or closes no region and calls nothing that returns with
 * interrupts masked, calling a function entered with them masked, is
 * entered so up to that call; its calls and sinks there get the atom.
 * Returns how many sites got one. Called by graph_finish().
 */
size_t graph_infer_regions(struct graph *g);
/*
 * Find the register and dispatch functions (the table's and their
 * wrappers), the objects registered on each list head and the callbacks
 * stored in them, and add an inferred edge from each dispatch call on a
 * known head to each callback registered there (via: the head's name).
 * Counts what it resolved in g->dispatch. Called by graph_finish()
 * (checker/graph/graph-dispatch.c).
 */
void graph_dispatch(struct graph *g);
int graph_find(const struct graph *g, const char *key);
/* Nodes named @name (static functions can share a name), -1 ends. */
size_t graph_find_name(const struct graph *g, const char *name, int *out,
		       size_t max);

#endif /* TRAPCHECK_GRAPH_H */
