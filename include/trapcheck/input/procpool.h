/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work items done in worker processes, so that a crash (a signal) or a
 * hang (past a timeout) in one item costs that item only: the parent
 * reports it and goes on with a new worker. libclang can crash or loop
 * on odd code; parsing each TU in a worker keeps the run alive.
 *
 * Workers are forked from the caller, which must have no other threads
 * at that point. A worker reads item numbers from a pipe, calls
 * ops->work() and writes the bytes it produced back; the parent passes
 * them to ops->done(), in the order items finish.
 */
#ifndef TRAPCHECK_PROCPOOL_H
#define TRAPCHECK_PROCPOOL_H

#include <signal.h>
#include <stddef.h>

#include "trapcheck/base/util.h"

/* The stack of the thread doing a worker's items (also for threads). */
#define PROCPOOL_STACK	(256UL << 20)

struct procpool_ops {
	void *ctx;
	/* In each new worker, before its first item (may be NULL). */
	void (*start)(void *ctx);
	/* In a worker: do @item and append its result to @out. */
	void (*work)(void *ctx, size_t item, struct bytes *out);
	/* In the parent: @item's result, @len bytes at @msg. */
	void (*done)(void *ctx, size_t item, const void *msg, size_t len);
	/* In the parent: @item's worker died or ran past the timeout. */
	void (*failed)(void *ctx, size_t item, const char *why);
	/* In a worker with no more items (may be NULL). */
	void (*stop)(void *ctx);
};

struct procpool_opts {
	int jobs;			/* worker processes, >= 1 */
	unsigned int timeout;		/* seconds per item; 0: none */
	unsigned long memory_mib;	/* resident MiB a worker may use
					 * on an item; 0: no bound */
	volatile sig_atomic_t *stop;	/* set by a signal: stop early */
};

/*
 * Do the @nr items of @items. Returns 0 when every item was done or
 * failed, -EINTR when *o->stop was set (workers are killed; items
 * already done were passed to ops->done()), or a negative errno when no
 * worker could be started.
 */
int procpool_run(const size_t *items, size_t nr, const struct procpool_opts *o,
		 const struct procpool_ops *ops);

#endif /* TRAPCHECK_PROCPOOL_H */
