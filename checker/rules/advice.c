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

char *idreg_advice(const struct cap_table *t, const char *reg,
		   const char *field, const char *file, int *sanitised)
{
	const struct arch_rules *r = arch_current()->rules;

	if (r && r->read_advice)
		return r->read_advice(t, reg, field, file, sanitised);
	*sanitised = -1;
	return xasprintf("cache the value of %s at boot or CPU bring-up",
			 reg);
}

const char *idreg_any_advice(void)
{
	const struct arch_rules *r = arch_current()->rules;

	return r && r->any_read_advice ? r->any_read_advice :
	       "cache the value at boot or CPU bring-up";
}

const char *idreg_serialize_advice(void)
{
	const struct arch_rules *r = arch_current()->rules;

	return r && r->serialize_advice ? r->serialize_advice :
	       "serialize with an instruction that does not exit";
}

const char *msr_advice(void)
{
	const struct arch_rules *r = arch_current()->rules;

	return r && r->msr_advice ? r->msr_advice :
	       "keep the value in memory and read that";
}

bool arch_fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		   char **why)
{
	const struct arch_rules *r = arch_current()->rules;

	if (r && r->fix_read)
		return r->fix_read(ctx, e, why);
	*why = xasprintf("no rewrite of this read for %s",
			 arch_current()->name);
	return false;
}
