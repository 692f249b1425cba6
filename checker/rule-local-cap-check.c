// SPDX-License-Identifier: GPL-2.0
/*
 * local-cap-check: this_cpu_has_cap() resolves a SCOPE_LOCAL_CPU
 * capability by reading the ID register from hardware on every call.
 * Seed 000: __cpu_has_rng() on every early get_random_*().
 */
#include "trapcheck/rules.h"
#include "trapcheck/util.h"

bool rule_local_cap_check(const struct rule_ctx *ctx, struct finding *f)
{
	if (ctx->def->class != SINK_LOCAL_CAP)
		return false;
	f->cap = ctx->site->arg;
	f->trap = trap_class_name(TRAP_TID3);
	f->message = xasprintf("%s(%s) reads an ID register from hardware on "
			       "a hot path: each call traps to the "
			       "hypervisor (%s); test the sanitised "
			       "register field instead",
			       ctx->def->name, f->cap ? f->cap : "...",
			       f->trap);
	return true;
}
