// SPDX-License-Identifier: GPL-2.0
/*
 * sinks.c - the sink and register tables.
 */
#include <ctype.h>
#include <string.h>

#include "trapcheck/sinks.h"
#include "trapcheck/util.h"

#define MACRO SINK_MACRO
#define CALL SINK_CALL
#define IDREG SINK_IDREG
#define LOCAL_CAP SINK_LOCAL_CAP
#define ENTROPY SINK_ENTROPY
#define SANITISED SINK_SANITISED
#define REG_BARE SINK_ARG_REG_BARE
#define REG_SYS SINK_ARG_REG_SYS
#define REG_LOWER SINK_ARG_REG_LOWER
#define CAP SINK_ARG_CAP
#define NONE SINK_ARG_NONE
const struct sink_def sink_table[] = {
#define SINK(how, name, class, arg, opaque) { how, name, class, arg, opaque },
#include "sinks.def"
#undef SINK
};
#undef NONE
const size_t sink_table_size = ARRAY_SIZE(sink_table);

static const struct reg_def reg_table[] = {
#define REG(name, trap) { #name, TRAP_ ## trap },
#include "registers.def"
#undef REG
};

int sink_lookup(enum sink_how how, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sink_table); i++)
		if (sink_table[i].how == how &&
		    !strcmp(sink_table[i].name, name))
			return (int)i;
	return -1;
}

bool sink_is_opaque(const char *name)
{
	int i = sink_lookup(SINK_CALL, name);

	return i >= 0 && sink_table[i].opaque;
}

const struct reg_def *reg_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reg_table); i++)
		if (!strcmp(reg_table[i].name, name))
			return &reg_table[i];
	return NULL;
}

const struct reg_def *reg_lookup_arg(const struct sink_def *def,
				     const char *arg)
{
	char buf[64];
	size_t i;

	if (!arg)
		return NULL;
	switch (def->arg) {
	case SINK_ARG_REG_SYS:
		if (strncmp(arg, "SYS_", 4))
			return NULL;
		return reg_lookup(arg + 4);
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

const char *trap_class_name(enum trap_class t)
{
	static const char *const names[] = {
		[TRAP_NONE] = "none", [TRAP_TID1] = "HCR_EL2.TID1",
		[TRAP_TID2] = "HCR_EL2.TID2", [TRAP_TID5] = "HCR_EL2.TID5",
		[TRAP_TID3] = "HCR_EL2.TID3",
	};

	return names[t];
}
