/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture layer: what trapcheck knows of one architecture, in
 * one place (checker/arch/<name>.c and the .def tables beside it): the
 * spellings of its sinks, its registers and what a read of each costs in
 * a guest, the code a rewrite must not touch, the subject prefixes of its
 * patches. Generic modules ask the run's architecture (arch_current()),
 * which the compile database names (arch_of_compdb()); one per run.
 *
 * The tables it reads from the tree are read by generic code with its
 * words (words.def: how its kernel spells them); its rewrites are hooks
 * (struct arch_rules); its trace's exit reasons a table (kvm-exits.def).
 * Still outside: the shipped root sets (roots/).
 */
#ifndef TRAPCHECK_ARCH_H
#define TRAPCHECK_ARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/input/trace.h"
#include "trapcheck/model/guards.h"
#include "trapcheck/model/sinks.h"

struct cap_table;
struct cond_def;
struct mode_path;
struct compdb;
struct fix_ctx;
struct fix_edit;

/*
 * The architecture's part of the rules (checker/arch/<name>-rules.c):
 * the cached alternative its kernel keeps, as advice and as a rewrite.
 */
struct arch_rules {
	/*
	 * rules.h: idreg_advice() for a read in @file; NULL: "cache the
	 * value"
	 */
	char *(*read_advice)(const struct cap_table *t, const char *reg,
			     const char *field, const char *file,
			     int *sanitised);
	const char *any_read_advice;	/* register chosen at run time */
	const char *serialize_advice;	/* used to serialize (x86 CPUID) */
	/* rules.h: arch_fix_read(); NULL: no rewrite */
	bool (*fix_read)(const struct fix_ctx *ctx, struct fix_edit *e,
			 char **why);
	const char *msr_advice;		/* trapping-msr-read's */
	/*
	 * rules.h: fix_local_cap_check(), the rewrite of a local-CPU
	 * capability check; NULL: no rewrite
	 */
	bool (*fix_cap_check)(const struct fix_ctx *ctx, struct fix_edit *e,
			      char **why);
};

/* A global of the tree that trapcheck reads, and its enum table_kind. */
/* What a table an architecture reads from the tree holds (tables.h). */
enum table_kind {
	TABLE_FTR_REGS,		/* arm64_ftr_regs[] */
	TABLE_CAPS,		/* arm64_features[], arm64_errata[] */
	TABLE_MSR_LIST,		/* MSRs KVM may pass through (x86) */
	/*
	 * Globals, by a name pattern ("*_sys_val"), that keep a copy of
	 * a register for code that cannot read the sanitised one (arm64:
	 * KVM's nVHE hyp code)
	 */
	TABLE_HYP_COPY,
};

struct arch_table {
	const char *global;	/* "arm64_ftr_regs" */
	int kind;
};

/*
 * The words an architecture's kernel spells its tables with (words.def
 * in its folder): clang/tables.c and graph/caps.c read the tables by
 * them. A kind may have several words.
 */
enum arch_word_kind {
	WORD_CAP_NAME,		/* capability entry: the member naming it */
	WORD_CAP_TYPE,		/* ... holding its scope bits */
	WORD_CAP_MATCHES,	/* ... naming its test function */
	WORD_CAP_REG,		/* ... naming the register it reads */
	WORD_CAP_FIELD_POS,	/* ... giving the field's shift */
	WORD_CAP_MIN,		/* ... giving the least value */
	WORD_CAP_FIELDS_MACRO,	/* macro (prefix): (reg, field, min) */
	WORD_CAP_ID_MATCH,	/* tokens (prefixes): matched on CPU identity */
	WORD_ID_REG,		/* the register such a match reads */
	WORD_CAP_SCOPE,		/* scope names, in bit order */
	WORD_REG_PREFIX,	/* a register's name in the tables: "SYS_" */
	WORD_SHIFT_SUFFIX,	/* a field's shift macro: "_SHIFT" */
	WORD_FTR_BITS_PREFIX,	/* a sanitised register's field array */
	WORD_FTR_BITS_MACRO,	/* its entries (suffix) */
	WORD_FTR_NONSTRICT,	/* a field CPUs may disagree on */
	WORD_MSR_MEMBER,	/* pass-through MSR entry: the MSR's member */
	WORD_MSR_END,		/* ... the list's end marker */
};

struct arch_word {
	enum arch_word_kind kind;
	const char *text;
};

/* A constant of an enum of the analysed tree. */
struct arch_enum {
	const char *name;
	long long value;
};

/*
 * What code under a condition needs of the outer hypervisor (outer.def
 * of an architecture): its capability probe and the functions with
 * which the outer hypervisor's code (the analysed tree's KVM) sets what
 * it offers a nested host.
 */
struct arch_outer {
	const char *atom;	/* "!vmx_pt_mode_is_system()" */
	const char *probe;	/* "cpu_has_vmx_intel_pt" */
	const char *offer;	/* fnmatch(3) pattern: "nested_vmx_setup_*" */
};

/* A path prefix and what holds under it. */
struct arch_path {
	const char *prefix;	/* relative to the source tree */
	const char *text;
};

struct arch {
	const char *name;		/* kbuild's SRCARCH: "arm64" */
	/* Compiler prefixes and --target triples ("aarch64-"). */
	const char *const *triples;
	size_t nr_triples;
	const struct sink_def *sinks;
	size_t nr_sinks;
	const struct reg_def *regs;
	size_t nr_regs;
	/* What makes a read exit, by reg_def.trap ("HCR_EL2.TID3"). */
	const char *const *trap_names;
	size_t nr_trap_names;
	/*
	 * An identification register not in @regs, spelled with
	 * @idreg_prefix ("ID_"), or read through a sink that chooses it at
	 * run time: what traps its read.
	 */
	const char *idreg_prefix;
	unsigned int idreg_trap;
	/* The tables it reads from the analysed tree (tables.h). */
	const struct arch_table *tables;
	size_t nr_tables;
	/* Code no rewrite may touch, and why (fix.c). */
	const struct arch_path *no_rewrite;
	size_t nr_no_rewrite;
	/*
	 * Patch subjects by path, as the kernel's history writes them; text
	 * NULL: "<name>: " and the file's base name (edit.c: fix_area()).
	 */
	const struct arch_path *areas;
	size_t nr_areas;
	/* Guard atoms of its own (checker/arch/<name>/phases.def). */
	const struct guard_def *guards;
	size_t nr_guards;
	/*
	 * Code that runs only on a KVM host: a chain through it has context
	 * "nested" (checker/arch/<name>/context.def).
	 */
	const char *const *host_paths;
	size_t nr_host_paths;
	const struct arch_rules *rules;
	/*
	 * What its conditions say of when code runs (conditions.h, its
	 * conditions.def), and the modes its files imply (KVM's nVHE and
	 * VHE hyp objects).
	 */
	const struct cond_def *conds;
	size_t nr_conds;
	const struct mode_path *mode_paths;
	size_t nr_mode_paths;
	/*
	 * The tree's names of the bits a sink's value is tested for (x86:
	 * the X86_FEATURE_* macros of cpufeatures.h, "(word*32 + bit)",
	 * their words numbered by the constants of enum cpuid_leafs):
	 * feature_bit() says which word and bit sink @name (argument
	 * @arg, value tested with the mask @mask, as written) tests, from
	 * the enum's constants @words; false when it cannot tell.
	 */
	const char *feature_prefix;
	const char *feature_enum;
	/*
	 * The prefix of the tree's register names ("MSR_": msr-index.h):
	 * a register a sink names by number is named by the macro of that
	 * value that the TU sees.
	 */
	const char *reg_macro_prefix;
	/*
	 * Registers whose value the hardware changes under the kernel
	 * (x86/live-msrs.def): fnmatch(3) patterns, and what each is.
	 */
	const struct arch_path *live_regs;
	size_t nr_live_regs;
	bool (*feature_bit)(const char *name, const char *arg,
			    const char *mask, const struct arch_enum *words,
			    size_t nr_words, unsigned int *word,
			    unsigned int *bit);
	/* What KVM host code needs of the outer hypervisor (outer.def). */
	const struct arch_outer *outers;
	size_t nr_outers;
	/*
	 * The kvm_exit reasons of a host's trace its sinks cause
	 * (kvm-exits.def), for trapcheck trace (input/trace.h).
	 */
	const struct trace_exit *kvm_exits;
	size_t nr_kvm_exits;
	/* How its tables are spelled (words.def). */
	const struct arch_word *words;
	size_t nr_words;
};

/*
 * The bit a mask written as "(1 << N)", "(1u << N)", "BIT(N)", "BIT_ULL(N)"
 * or a one-bit number tests, or -1.
 */
int mask_bit(const char *mask);

/*
 * What register @name is when the hardware changes its value under the
 * kernel ("a counter"), or NULL.
 */
const char *live_reg(const char *name);

/*
 * The architectures, each in its own folder checker/arch/<name>/ and
 * named by one line of checker/model/arches.def: ARCH(name) for the
 * struct arch arch_<name> its folder defines. The first is the default.
 */
#define ARCH(name) extern const struct arch arch_##name;
#include "model/arches.def"
#undef ARCH

/*
 * The run's architecture's words of @kind (words.def): the @i-th, or
 * NULL past the last; does one of them start @s (end it: suffix)?
 */
const char *arch_word(enum arch_word_kind kind, size_t i);
bool arch_word_prefix(enum arch_word_kind kind, const char *s);
bool arch_word_suffix(enum arch_word_kind kind, const char *s);
/* Is @s one of them? */
bool arch_word_is(enum arch_word_kind kind, const char *s);

/* The architecture called @name (kbuild's SRCARCH), or NULL. */
const struct arch *arch_find(const char *name);
/*
 * The architecture a compile command builds for: kbuild's
 * -I.../arch/<SRCARCH>/include, else the compiler's target prefix
 * (aarch64-linux-gnu-gcc) or --target=. NULL when the command names
 * none that trapcheck has tables for.
 */
const struct arch *arch_of_argv(char *const *argv, int argc);
/* The architecture of the first entry of @db that names one, or NULL. */
const struct arch *arch_of_compdb(const struct compdb *db);

/*
 * The run's architecture: set once, before any parser process starts
 * (they inherit it); arm64 until then.
 */
void arch_set(const struct arch *a);
const struct arch *arch_current(void);

/*
 * In an architecture's struct arch initialiser: table @t and its size,
 * ".t = t, .nr_t = ARRAY_SIZE(t)" (util.h).
 */
#define ARCH_TABLE(t)	.t = t, .nr_##t = ARRAY_SIZE(t)

/*
 * The lines of an architecture's tables (the .def files of checker/arch/<name>/), one
 * style for all; an architecture expands them with these, e.g.
 *	static const struct sink_def sinks[] = {
 *	#define SINK ARCH_SINK
 *	#include "sinks.def"
 *	#undef SINK
 *	};
 * SINK(how, name, class, arg, opaque, reg)  sinks.def: how MACRO, CALL or
 *	ASM; class and arg without their SINK_ and SINK_ARG_ prefixes; reg
 *	what it reads whatever its argument, or NULL
 * REG(name, trap)  registers.def: trap an enumerator ARCH_TRAP_<trap> of
 *	the architecture's own enum of trap classes (0: ARCH_TRAP_NONE)
 * TABLE(global, kind)  tables.def: kind FTR_REGS, CAPS or MSR_LIST
 * GUARD(atom, kind)  phases.def: kind BOOT, CAPS_UNFINALIZED, ...
 * NESTED_PATH(prefix)  context.def: code that runs on a KVM host only
 * LIVE_MSR(pattern, what)  registers the hardware changes (x86)
 * COND(kind, pattern, when_true, when_false)  conditions.def: as
 *	checker/model/conditions.def's
 * MODE_PATH(prefix, mode)  conditions.def: code that runs in one mode
 * OUTER(atom, probe, offer)  outer.def: what code under @atom needs of
 *	the outer hypervisor
 */
#define ARCH_SINK(how, name, class, arg, opaque, reg)			\
	{ SINK_##how, name, SINK_##class, SINK_ARG_##arg, opaque, reg },
#define ARCH_REG(name, trap)		{ #name, ARCH_TRAP_##trap },
#define ARCH_TABLE_LINE(global, kind)	{ global, TABLE_##kind },
#define ARCH_GUARD(atom, kind)		{ atom, GUARD_##kind },
#define ARCH_NESTED_PATH(prefix)	prefix,
#define ARCH_LIVE_MSR(pattern, what)	{ pattern, what },
#define ARCH_COND(kind, pattern, t, f)	{ COND_##kind, pattern, t, f },
#define ARCH_MODE_PATH(prefix, mode)	{ prefix, mode },
#define ARCH_OUTER(atom, probe, offer)	{ atom, probe, offer },
#define ARCH_KVM_EXIT(reason, kind, read)	{ reason, TRACE_##kind, read },
#define ARCH_WORD(kind, text)		{ WORD_##kind, text },

#endif /* TRAPCHECK_ARCH_H */
