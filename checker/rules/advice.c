// SPDX-License-Identifier: GPL-2.0
/*
 * advice.c - what the rules ask of the run's architecture (its struct
 * arch_rules, model/arch.h): the cached alternative to a trapping read,
 * and its rewrite. The rules call these, never the engine (rules.c),
 * which calls the rules.
 */
#include <stdlib.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"

char *advice_read(const struct graph *g, const struct read_ask *q,
		  int *cached)
{
	const struct arch_rules *r = arch_current()->rules;

	if (r && r->read_advice)
		return r->read_advice(g->arch_tables, q, cached);
	*cached = -1;
	return xasprintf("cache the value of %s at boot or CPU bring-up",
			 q->reg);
}

const char *advice_any_read(void)
{
	const struct arch_rules *r = arch_current()->rules;

	return r && r->any_read_advice ? r->any_read_advice :
	       "cache the value at boot or CPU bring-up";
}

char *advice_any_read_at(const char *guards, const char *fn)
{
	const struct arch_rules *r = arch_current()->rules;
	char *s = r && r->any_read_advice_at ?
		  r->any_read_advice_at(guards, fn) : NULL;

	return s ? s : xstrdup(advice_any_read());
}

const char *advice_serialize(void)
{
	const struct arch_rules *r = arch_current()->rules;

	return r && r->serialize_advice ? r->serialize_advice :
	       "serialize with an instruction that does not exit";
}

bool advice_fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		   char **why)
{
	const struct arch_rules *r = arch_current()->rules;

	if (!r || !r->fix_read) {
		*why = xasprintf("no rewrite of this read for %s",
				 arch_current()->name);
		return false;
	}
	if (ctx->attempt && !r->fix_read_again) {
		*why = xasprintf("no second rewrite of this read for %s",
				 arch_current()->name);
		return false;
	}
	return r->fix_read(ctx, e, why);
}
