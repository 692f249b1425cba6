/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRAPCHECK_CLAIMS_H
#define TRAPCHECK_CLAIMS_H

#include <pthread.h>
#include <stdbool.h>

#include "trapcheck/base/util.h"

/*
 * Functions defined outside a TU's main file (static inline functions in
 * headers) are extracted once per run: the first TU to claim one visits
 * its body, the others skip it.
 */
struct claims {
	pthread_mutex_t lock;
	struct strmap set;
};

void claims_init(struct claims *c);
void claims_free(struct claims *c);
/* True when @key is unclaimed (it becomes @owner's) or @owner's already. */
bool claims_take(struct claims *c, const char *key, int owner);
/* The owner of @key, or -1. */
int claims_owner(struct claims *c, const char *key);

#endif /* TRAPCHECK_CLAIMS_H */
