// SPDX-License-Identifier: GPL-2.0
/*
 * claims.c - which TU extracts a header function's body (claims.h).
 */
#include "trapcheck/model/claims.h"

void claims_init(struct claims *c)
{
	pthread_mutex_init(&c->lock, NULL);
	strmap_init(&c->set);
}

void claims_free(struct claims *c)
{
	strmap_free(&c->set);
	pthread_mutex_destroy(&c->lock);
}

bool claims_take(struct claims *c, const char *key, int owner)
{
	int cur;

	pthread_mutex_lock(&c->lock);
	cur = strmap_put(&c->set, key, owner);
	pthread_mutex_unlock(&c->lock);
	return cur == owner;
}

int claims_owner(struct claims *c, const char *key)
{
	int cur;

	pthread_mutex_lock(&c->lock);
	cur = strmap_get(&c->set, key);
	pthread_mutex_unlock(&c->lock);
	return cur;
}
