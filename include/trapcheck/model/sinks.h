/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sinks and registers, and the lookups over the run's architecture's
 * tables (include/trapcheck/model/arch.h; arm64: checker/arch/arm64/sinks.def,
 * checker/arch/arm64/registers.def).
 */
#ifndef TRAPCHECK_SINKS_H
#define TRAPCHECK_SINKS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * How a sink is written: a macro expansion, a call, or an instruction in
 * the template of an inline assembly statement (its name is "asm:INSN").
 */
enum sink_how { SINK_MACRO, SINK_CALL, SINK_ASM };
enum sink_class {
	SINK_IDREG,
	SINK_LOCAL_CAP,
	SINK_ENTROPY,
	SINK_SANITISED,
	SINK_MSR,		/* reads a model-specific register (x86) */
};
enum sink_arg {
	SINK_ARG_REG_BARE,
	SINK_ARG_REG_SYS,
	SINK_ARG_REG_LOWER,
	SINK_ARG_CAP,
	SINK_ARG_NONE,
	SINK_ARG_LEAF,		/* recorded as written; reads sink_def.reg */
	SINK_ARG_MSR,		/* an MSR, as written (a msr-index.h name) */
	SINK_ARG_MSR_2ND,	/* the same, second argument (*_on_cpu()) */
};

struct sink_def {
	enum sink_how how;
	const char *name;
	enum sink_class class;
	enum sink_arg arg;
	bool opaque;
	/* What it reads whatever its argument (x86: "CPUID"), or NULL. */
	const char *reg;
};

/*
 * What makes a read exit to the hypervisor: an index into the run's
 * architecture's trap_names[] (arm64: HCR_EL2.TID3, ...). 0 for all: the
 * read does not exit.
 */
#define TRAP_NONE	0u

struct reg_def {
	const char *name;
	unsigned int trap;
};

/* Entry @i of the run's sink table, and the table's size. */
const struct sink_def *sink_at(int i);
size_t sink_count(void);

/*
 * The table index of a sink called or expanded as @name (SINK_ASM: the
 * instruction, "cpuid"), or -1.
 */
int sink_lookup(enum sink_how how, const char *name);
/* The index of the sink whose table name is @name (any how), or -1. */
int sink_lookup_name(const char *name);
/* The instruction of a SINK_ASM sink ("asm:cpuid" -> "cpuid"). */
const char *sink_insn(const struct sink_def *def);
/* Is a function of this name one the walk must not enter? */
bool sink_is_opaque(const char *name);

/*
 * The register named by @arg written as sink @def expects ("SYS_ID_X",
 * "id_x", "ID_X"); NULL when it is no register in the table.
 */
const struct reg_def *reg_lookup_arg(const struct sink_def *def,
				     const char *arg);
const struct reg_def *reg_lookup(const char *name);
const char *trap_class_name(unsigned int trap);
/*
 * The trap of a read of register @name that the run's architecture's
 * table does not list: its idreg_trap when @name is spelled as an
 * identification register, or is NULL (a register chosen at run time),
 * else TRAP_NONE.
 */
unsigned int idreg_trap(const char *name);

#endif /* TRAPCHECK_SINKS_H */
