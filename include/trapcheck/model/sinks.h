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
/*
 * MACRO and CALL in C, ASM an instruction in C's inline assembly, INSN an
 * instruction of an assembly source (.S: clang/asm.c).
 */
enum sink_how { SINK_MACRO, SINK_CALL, SINK_ASM, SINK_INSN };
/*
 * What a sink does, for the rules: the generic classes, and from
 * SINK_ARCH on an architecture's own (its rules know them).
 */
enum sink_class {
	SINK_IDREG,		/* reads an identification register */
	SINK_LOCAL_CAP,		/* answers a capability for the local CPU */
	SINK_ENTROPY,		/* executes a slow entropy instruction */
	SINK_CACHED,		/* reads the kernel's cached copy of one */
	SINK_ARCH,		/* the first of an architecture's own */
};
/* How its argument names what it reads. */
enum sink_arg {
	SINK_ARG_REG_BARE,	/* a register, as written */
	SINK_ARG_REG_PREFIXED,	/* ... with the arch's reg_prefix to drop */
	SINK_ARG_REG_LOWER,	/* ... in lower case */
	SINK_ARG_CAP,		/* a capability */
	SINK_ARG_NONE,		/* nothing to record */
	SINK_ARG_LEAF,		/* recorded as written (an identifier or a
				 * literal); reads sink_def.reg */
	SINK_ARG_WRITTEN,	/* the first argument as the function's own
				 * tokens write it: a name or a number,
				 * named by the arch's reg_macro_prefix */
	SINK_ARG_WRITTEN_2ND,	/* the same, second argument */
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
/* The instruction of a SINK_ASM or SINK_INSN sink ("asm:cpuid" -> "cpuid"). */
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
const char *reg_trap_name(unsigned int trap);
/*
 * The trap of a read of register @name that the run's architecture's
 * table does not list: its idreg_trap when @name is spelled as an
 * identification register, or is NULL (a register chosen at run time),
 * else TRAP_NONE.
 */
unsigned int reg_idreg_trap(const char *name);

#endif /* TRAPCHECK_SINKS_H */
