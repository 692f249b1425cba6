/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hot-path root sets: data files, one function name per line, each with
 * a one-line reason after "#"; a "weight: N" line gives the set's events
 * per second class (for ranking). The set is named after the file
 * (roots/crng.roots: "crng").
 *
 * Roots from registrations: "register: FUNC N" makes a root of every
 * function the tree passes to FUNC as argument N (from 0: "register:
 * request_threaded_irq 1", the handler), "member: STRUCT.MEMBER" of every
 * function stored in that member ("member: irq_chip.irq_eoi"); found in
 * the graph (graph/regroots.h), each with where it was registered.
 * "user: FUNC ..." marks listed ones that user space enters (struct
 * root_set.user).
 */
#ifndef TRAPCHECK_ROOTS_H
#define TRAPCHECK_ROOTS_H

#include <stdbool.h>
#include <stddef.h>

/* A registration slot: "FUNC()#N" or "STRUCT.MEMBER", and why. */
struct root_reg {
	char *slot;
	char *reason;
};

struct root_set {
	char *name;
	char *path;
	char **funcs;
	char **reasons;		/* per function: its "# comment", or "" */
	size_t nr, alloc, alloc_reasons;
	double weight;		/* events a second ("weight: N"), default 1000 */
	char *per;		/* the operation one event is ("per: page
				 * fault"), or NULL */
	bool atomic;		/* "context: atomic": preemption disabled */
	/*
	 * "config: CONFIG_ZRAM ...": the options that build its entry
	 * points; none: the kernel always has them.
	 */
	char **configs;
	size_t nr_configs, alloc_configs;
	struct root_reg *regs;		/* "register:" and "member:" lines */
	size_t nr_regs, alloc_regs;
	/*
	 * "user: FUNC ...": listed entry points that run only on behalf
	 * of user space (a system call, a read of a device), so never
	 * before the first process: "user: all" for every listed one. A
	 * read that runs only before the capabilities are finalized is
	 * not shown from them (rules.c).
	 */
	char **user;
	size_t nr_user, alloc_user;
	bool all_user;
};

struct root_sets {
	struct root_set *sets;
	size_t nr, alloc;
};

/*
 * Load one roots file into @rs (a set of the same name gains its
 * functions). Returns 0, or a negative errno with a message in @err.
 */
int roots_load_file(struct root_sets *rs, const char *path, char *err,
		    size_t errlen);
/* Load every *.roots file of @dir, in name order. */
int roots_load_dir(struct root_sets *rs, const char *dir, char *err,
		   size_t errlen);
void roots_free(struct root_sets *rs);
/* Is @func, one of @s's listed entry points, a user-space entry? */
bool roots_user_entry(const struct root_set *s, const char *func);
/* Keep only the sets named in @names (comma-separated); -ENOENT if any
 * name is unknown (named in @err). */
int roots_select(struct root_sets *rs, const char *names, char *err,
		 size_t errlen);

#endif /* TRAPCHECK_ROOTS_H */
