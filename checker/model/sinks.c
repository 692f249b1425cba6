// SPDX-License-Identifier: GPL-2.0
/*
 * sinks.c - lookups over the run's architecture's sink and register
 * tables (include/trapcheck/model/arch.h).
 */
#include <ctype.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/sinks.h"
#include "trapcheck/base/util.h"

const struct sink_def *sink_at(int i)
{
	return &arch_current()->sinks[i];
}

size_t sink_count(void)
{
	return arch_current()->nr_sinks;
}

const char *sink_insn(const struct sink_def *def)
{
	const char *c = strchr(def->name, ':');

	return c ? c + 1 : def->name;
}

int sink_lookup(enum sink_how how, const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_sinks; i++)
		if (a->sinks[i].how == how &&
		    !strcmp(how == SINK_ASM || how == SINK_INSN ?
			    sink_insn(&a->sinks[i]) :
			    a->sinks[i].name, name))
			return (int)i;
	return -1;
}

int sink_lookup_name(const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; name && i < a->nr_sinks; i++)
		if (!strcmp(a->sinks[i].name, name))
			return (int)i;
	return -1;
}

bool sink_is_opaque(const char *name)
{
	int i = sink_lookup(SINK_CALL, name);

	return i >= 0 && sink_at(i)->opaque;
}

const struct reg_def *reg_lookup(const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_regs; i++)
		if (!strcmp(a->regs[i].name, name))
			return &a->regs[i];
	return NULL;
}

const struct reg_def *reg_lookup_arg(const struct sink_def *def,
				     const char *arg)
{
	char buf[64];
	size_t i;

	if (def->reg)
		return reg_lookup(def->reg);
	if (!arg)
		return NULL;
	switch (def->arg) {
	case SINK_ARG_REG_PREFIXED: {
		/* The tables' spelling: the architecture's reg_prefix. */
		const char *p = arch_current()->reg_prefix;

		if (!p || strncmp(arg, p, strlen(p)))
			return NULL;
		return reg_lookup(arg + strlen(p));
	}
	case SINK_ARG_REG_LOWER:
		for (i = 0; arg[i] && i < sizeof(buf) - 1; i++)
			buf[i] = (char)toupper((unsigned char)arg[i]);
		buf[i] = '\0';
		return reg_lookup(buf);
	case SINK_ARG_REG_BARE:
		return reg_lookup(arg);
	default:
		return NULL;
	}
}

const char *reg_trap_name(unsigned int trap)
{
	const struct arch *a = arch_current();

	return trap < a->nr_trap_names && a->trap_names[trap] ?
	       a->trap_names[trap] : "none";
}

unsigned int reg_idreg_trap(const char *name)
{
	const struct arch *a = arch_current();
	size_t n = a->idreg_prefix ? strlen(a->idreg_prefix) : 0;

	if (!name)
		return a->idreg_trap;
	return n && !strncmp(name, a->idreg_prefix, n) ? a->idreg_trap :
							 TRAP_NONE;
}
