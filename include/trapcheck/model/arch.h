/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture interface. What trapcheck knows of one architecture
 * lives in its folder, checker/arch/<name>/, and reaches the generic
 * layers only through the struct arch that folder defines: its sinks and
 * registers and what a read of each costs in a guest; the tables it reads
 * from the tree and what it makes of them (the cached copies its kernel
 * keeps, what a capability check reads); its advice, its rewrites and
 * rules of its own; its trace events and trapping instructions; its
 * conditions, modes and cold functions. Generic code asks the run's
 * architecture (arch_current()), which the compile database names
 * (arch_of_compdb()); one per run. The list of architectures is
 * registered from checker/arch/arches.c (arch_register()): no generic
 * module names an architecture's symbol (tests/e2e/layers.t).
 */
#ifndef TRAPCHECK_ARCH_H
#define TRAPCHECK_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trapcheck/model/guards.h"
#include "trapcheck/model/sinks.h"

struct cond_def;
struct mode_path;
struct compdb;
struct fix_ctx;
struct fix_edit;
struct graph;
struct rule;
struct trace_event;
struct trace_kind_def;
struct tu_facts;

/*
 * The architecture's part of the generic rules: the cached alternative
 * its kernel keeps for a trapping read, as advice and as a rewrite.
 */
/* A trapping read the rules ask advice for (arch_rules.read_advice). */
struct read_ask {
	const char *reg;	/* the register read */
	const char *field;	/* the field or bit named in the message
				 * (a capability's; x86: the feature), or
				 * NULL */
	/*
	 * The fields the code tests of the value, as the tree spells
	 * their shift macros, ','-joined (gsink.fields), or NULL.
	 */
	const char *fields;
	const char *fn;		/* the function reading it */
	const char *file;	/* where the read is */
	const char *guards;	/* the conditions at the read (guards.h),
				 * or NULL */
	const char *sink;	/* the sink as written ("cpuid_ebx"), or NULL */
	const char *arg;	/* its argument as written, or NULL */
};

struct arch_rules {
	/*
	 * The advice for the trapping read @q, from the architecture's
	 * resolved tables @t (arch.tables_load()): a cached copy only when
	 * it answers what the code asks of the CPU it asks about, in every
	 * mode the read runs in. *@cached: 1 when its kernel keeps a copy
	 * of the register, 0 when not, -1 when the tables were not
	 * analysed. A new string; NULL hook: "cache the value".
	 */
	char *(*read_advice)(const void *t, const struct read_ask *q,
			     int *cached);
	const char *any_read_advice;	/* register chosen at run time */
	/*
	 * The advice for a register chosen at run time, read by @fn under
	 * @guards, when they change it (a new string), or NULL: then
	 * any_read_advice.
	 */
	char *(*any_read_advice_at)(const char *guards, const char *fn);
	const char *serialize_advice;	/* used to serialize (x86 CPUID) */
	/* trapping-idreg-read's rewrite; NULL: no rewrite */
	bool (*fix_read)(const struct fix_ctx *ctx, struct fix_edit *e,
			 char **why);
	/*
	 * fix_read writes a second rewrite when its first failed its check
	 * (fix_ctx.attempt 1); false: it is not asked again.
	 */
	bool fix_read_again;
	/*
	 * The edits the fixes of one group share (fix_edit.group, e.g. a
	 * field of a per-CPU structure and its value set at init), from
	 * each member's group_arg (@args, @nr), in the tree at @tree: new
	 * edits in *@extra (*@nr_extra, each with its path) and the patch's
	 * subject and body. false: none, the reason in *@why.
	 */
	bool (*fix_group)(const char *tree, const char *group,
			  const char *const *args, size_t nr,
			  struct fix_edit **extra, size_t *nr_extra,
			  char **subject, char **body, char **why);
};

/*
 * A table an architecture reads from the tree (its tables.def): the
 * globals whose name matches @global (fnmatch(3)), and what becomes of
 * them: TABLE_ENTRIES, each definition's initialiser given to
 * arch.read_table(); TABLE_NAMES, the name of every variable (not extern)
 * that matches, a row with that key. @kind is the architecture's own
 * number for it (1 and up: kind 0 is the body words, below).
 */
enum table_how { TABLE_ENTRIES, TABLE_NAMES };

struct arch_table {
	const char *global;
	unsigned int kind;
	enum table_how how;
};

/* The row kind of the body words (arch.outers' probes and offers). */
#define ROW_BODY_WORD	0u
/*
 * The row kind of drivers' device match tables, whatever the
 * architecture (clang/tables.c): table the bus ("of", "acpi", "pci"),
 * key the id as the table writes it ("apple,s5l-uart", "ARMH0011",
 * "1af4:1000", "1af4:*" for any device of a vendor, "*" for any), file
 * where the table is.
 */
#define ROW_DEVICE	31u
/*
 * The row kind of a TU's module (clang/extract.c): key the module as
 * kbuild names it (KBUILD_MODFILE, else KBUILD_MODNAME), table "m" for a
 * loadable module (-DMODULE) or "y" built in, file the TU's source.
 */
#define ROW_MODULE	30u
/*
 * The row kind of a macro definition an architecture asks for
 * (arch_nesting's names; clang/extract.c): key the name, v[0] its
 * replacement tokens joined by spaces, file and line where it is defined.
 */
#define ROW_MACRO	29u

/*
 * A table's definition as extraction sees it, without libclang: the
 * tokens of the whole declaration, and its initialiser's entries, each
 * with its tokens (as written, macros not expanded) and the members it
 * sets (".member = value", as the compiler sees them: entries #ifdef'd
 * out are absent).
 */
struct table_member {
	const char *name;	/* the member */
	const char *written;	/* the identifier written at the value's
				 * place (a macro's name), or NULL */
	const char *ref;	/* the function or variable the value names,
				 * or NULL */
	long long value;	/* the value, when it is a constant */
	bool has_value;
};

struct table_entry {
	bool braced;		/* an initialiser list of its own: "{ ... }" */
	unsigned int tok, end;	/* its tokens, [tok, end) of table_view */
	const struct table_member *members;
	size_t nr_members;
	const char *file;	/* where it is, relative to the tree */
	unsigned int line;
};

struct table_view {
	const char *name;	/* the global: "arm64_features" */
	unsigned int kind;	/* its arch_table.kind */
	char *const *tok;	/* the declaration's tokens */
	unsigned int nr_tok;
	const struct table_entry *entries;
	size_t nr_entries;
	/*
	 * The tokens of the definition that the value named @name in entry
	 * @e refers to (an array an entry points at), into *@tok (freed
	 * with tokens_release()); false when there is none.
	 */
	bool (*ref_tokens)(const struct table_view *v, size_t e,
			   const char *name, char ***tok, unsigned int *n);
	void (*tokens_release)(char **tok, unsigned int n);
	void *priv;
};

/*
 * What the architecture read from the tree, for the run's summary: its
 * capabilities (how many; those whose test it could not resolve) and its
 * cached copies of registers (how many; those of registers its table
 * does not list). @seen: it found one of its tables.
 */
struct tables_stats {
	bool seen;
	size_t caps;
	const char **unresolved;
	size_t nr_unresolved, alloc_unresolved;
	size_t copies;
	const char **unknown;
	size_t nr_unknown, alloc_unknown;
	/* How the summary line names them: "capabilities", ... */
	const char *caps_label, *unresolved_label;
	const char *copies_label, *unknown_label;
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
 * it offers a nested host. Extraction keeps the bit names in the bodies
 * of both (rows of kind ROW_BODY_WORD: table the function, key the bit;
 * an offer's also from the macros it expands, and with @clear the guards
 * where it names them, as a TRAP_SET setter's). Without @clear the code
 * needs every bit of the probe that matches @bits set, and a bit no
 * offer names is never set on a nested host; with @clear it needs @bits
 * (one name) clear, and an offer that names it where its guards hold on
 * a common host (HOST lines) sets it.
 */
struct arch_outer {
	const char *atom;	/* "!vmx_pt_mode_is_system()" */
	const char *probe;	/* "cpu_has_vmx_intel_pt" */
	const char *bits;	/* fnmatch(3) pattern of its bits: "*" */
	const char *offer;	/* fnmatch(3) pattern: "nested_vmx_setup_*" */
	bool clear;		/* the code needs @bits clear */
};

/*
 * What KVM as the outer hypervisor does for its guests (outer.def's
 * GUEST lines): a chain through @through runs only @when, which never
 * holds when KVM's @handler does nothing but call @calls.
 */
struct arch_guest_outer {
	const char *through;	/* "__cpu_suspend_exit" */
	const char *handler;	/* "kvm_psci_vcpu_suspend" */
	const char *calls;	/* "kvm_vcpu_wfi" */
	const char *when;	/* a clause: "when a CPU resumes ..." */
};

/*
 * Whether KVM as the outer hypervisor runs a nested host at all
 * (outer.def's NESTING lines): a nested KVM host is a guest that runs
 * @what, which a vCPU does only with feature bit @feature; the analysed
 * tree's KVM refuses (in @check()) every bit at or past @limit.
 * Extraction keeps the definitions of both macros (rows of kind
 * ROW_MACRO).
 */
struct arch_nesting {
	const char *feature;	/* "KVM_ARM_VCPU_HAS_EL2" */
	const char *limit;	/* "KVM_VCPU_MAX_FEATURES" */
	const char *check;	/* "kvm_vcpu_init_check_features" */
	const char *what;	/* "a guest at EL2" */
};

/*
 * What a guest's CPU capability needs KVM as the outer hypervisor to
 * offer it (outer.def's CPU_OFFER lines): a chain that needs @cap (a
 * conditions.def CPU atom or CPU_FILE) runs in a KVM guest only when
 * one of @vendors ("file:name", space-separated: each makes the
 * offer of one kind of host) names @bit, itself or in a function it
 * calls that matches @offer (fnmatch(3) patterns separated by spaces,
 * arch_fn_matches()), under guards that can hold, and takes it away
 * after in no unconditional clear. Extraction keeps the bit names of the
 * functions matching @offer with their guards and places (rows of kind
 * ROW_BODY_WORD; a clear's, flagged).
 */
struct arch_cpu_offer {
	const char *cap;	/* "BTS" */
	const char *bit;	/* "X86_FEATURE_DS" */
	const char *offer;	/* "*_set_cpu_caps", "A B" */
	const char *vendors;	/* "FILE:NAME FILE:NAME" */
};

/*
 * How an offer function spells a bit (outer.def's OFFER_SPELL,
 * OFFER_CLEAR and OFFER_TEST lines): the argument of a call of @macro is
 * the bit @prefix and the argument ("F(PDCM)": "X86_FEATURE_PDCM"); with
 * @prefix NULL, the call takes the bit away, or with @test only tests
 * it: its argument is not offered there.
 */
struct arch_offer_spell {
	const char *macro;	/* "F", "kvm_cpu_cap_clear", "boot_cpu_has" */
	const char *prefix;	/* "X86_FEATURE_", or NULL: a clear or test */
	bool test;		/* a test: its bits neither offered nor cleared */
};

/*
 * A device a guest machine of a profile has (machine.def of an
 * architecture): its bus ("of", "acpi", "pci") and id, fnmatch(3)
 * patterns as a driver's match table would match them ("1af4:*"), and
 * where that comes from; or, of bus "property", what every device of
 * the profile has ("dma-coherent").
 */
struct arch_device {
	const char *profile;	/* "virt", "cloud" */
	const char *bus, *id;
	const char *source;
};

/*
 * When KVM as the outer hypervisor makes a guest's read of a register
 * trap (outer.def's TRAP_SET lines): it sets trap bit @bit for a guest in
 * the function(s) matching @setter (an fnmatch(3) pattern), under the
 * conditions that hold where the bit is named there (extraction keeps
 * them: rows of kind ROW_BODY_WORD, v1 the guards). A register with
 * several lines traps when any of them holds.
 */
struct arch_trap_set {
	const char *reg;	/* "CTR_EL0" */
	const char *bit;	/* "HCR_TID2" */
	const char *setter;	/* "vcpu_*set_hcr" */
};

/*
 * What an atom of such a condition is in a guest of the analysed kernel
 * on a common host (outer.def's HOST lines): an atom containing
 * @pattern is @value, because @why.
 */
struct arch_host_atom {
	const char *pattern;
	bool value;
	const char *why;
};

/*
 * Code under a path prefix, or a register whose name begins with a
 * prefix, that only the CPUs of mask @cpus have (cpus.def).
 */
struct arch_cpu_only {
	const char *prefix;
	unsigned int cpus;
};

/*
 * Code under a path prefix that runs only on a CPU with capability @cap
 * (a machine.def CPU_CAP name), @when (a clause: what registers it).
 */
struct arch_cpu_file {
	const char *prefix;
	const char *cap;
	const char *when;
};

/* A path prefix and what holds under it. */
struct arch_path {
	const char *prefix;	/* relative to the source tree */
	const char *text;
};

/*
 * A trapping instruction as its machine code has it: @size bytes, read as
 * an integer in the ELF file's byte order, equal to @value under @mask,
 * at every @align bytes of the executable sections; for the ELF machines
 * @machines (EM_*, 0 ends).
 */
struct insn_pattern {
	unsigned short machines[3];
	unsigned int size, align;
	unsigned long value, mask;
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
	/*
	 * The prefix its tables spell a register's name with ("SYS_"): a
	 * SINK_ARG_REG_PREFIXED argument drops it.
	 */
	const char *reg_prefix;

	/* The tables it reads from the analysed tree, and how. */
	const struct arch_table *tables;
	size_t nr_tables;
	/*
	 * One TABLE_ENTRIES definition into rows of the TU's facts
	 * (facts_add_row()), in a parser process.
	 */
	void (*read_table)(const struct table_view *v, struct tu_facts *out);
	/*
	 * After the link: its view of the rows of the whole graph
	 * (graph.rows), the tables resolved against the graph; freed with
	 * tables_free(). The rules get it as graph.arch_tables.
	 */
	void *(*tables_load)(const struct graph *g);
	void (*tables_free)(void *t);
	/* --list-caps: the resolved tables, one line per entry. */
	int (*tables_print)(FILE *out, const void *t);
	/* The summary's counts (@s zeroed, labels set by the caller). */
	void (*tables_stats)(const void *t, struct tables_stats *s);

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
	/* Functions that are cold by what they are (its cold.def). */
	const char *const *cold_fns;
	size_t nr_cold_fns;
	/*
	 * Its part of the generic rules, and rules of its own (rules.h;
	 * the array ends with a rule whose id is NULL).
	 */
	const struct arch_rules *rules;
	const struct rule *own_rules;
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
	 * Code and registers only some CPUs have (cpus.def): bit k of a
	 * mask is the CPU family cpu_names[k] ("Intel", "AMD"). A chain
	 * whose code and register no CPU has all of never runs.
	 */
	/*
	 * Code that runs only on a CPU with a capability (conditions.def
	 * CPU_FILE): as a chain atom of kind CPU (rules/machine.c).
	 */
	const struct arch_cpu_file *cpu_files;
	size_t nr_cpu_files;
	const struct arch_cpu_only *cpu_paths;
	size_t nr_cpu_paths;
	const struct arch_cpu_only *cpu_regs;
	size_t nr_cpu_regs;
	const char *const *cpu_names;
	size_t nr_cpu_names;
	/*
	 * The tree's names of the bits a sink's value is tested for: the
	 * macros spelled with @feature_prefix, numbered by the constants of
	 * enum @feature_enum. feature_bit() says which word and bit sink
	 * @name (argument @arg, value tested with the mask @mask, as
	 * written) tests, from the enum's constants @words; feature_macro()
	 * which word and bit a macro's definition (its tokens, the name
	 * first) stands for. False when they cannot tell.
	 */
	const char *feature_prefix;
	const char *feature_enum;
	/*
	 * The generated headers (an fnmatch(3) pattern of their path) whose
	 * "#define NAME NUMBER" lines name the capabilities its assembly's
	 * alternatives test after preprocessing (clang/asm.c), or NULL.
	 */
	const char *asm_caps;
	/*
	 * Assembly that writes an instruction as its number (".inst", for
	 * registers an assembler may not name): asm_define_reg() reads a
	 * "#define" line of the preprocessed text (without "#define ") as
	 * the definition of a register, its name (@len bytes at most) and
	 * the number an instruction holds for it; asm_inst_read() says
	 * whether an instruction word reads a register, the number it holds
	 * for it and the mnemonic of the INSN sink it is. NULL: not read.
	 */
	bool (*asm_define_reg)(const char *define, char *name, size_t len,
			       unsigned long *enc);
	const char *(*asm_inst_read)(unsigned long word, unsigned long *enc);
	bool (*feature_bit)(const char *name, const char *arg,
			    const char *mask, const struct arch_enum *words,
			    size_t nr_words, unsigned int *word,
			    unsigned int *bit);
	bool (*feature_macro)(char *const *tok, unsigned int n,
			      unsigned int *word, unsigned int *bit);
	/*
	 * The fields of register @reg (its table name) that the tokens
	 * @tok of a function, from a read of it on, name: what the code
	 * tests of the value ("PMSVer,TraceBuffer"), in a new string, or
	 * NULL when they name none. NULL: the architecture has no fields.
	 */
	char *(*value_fields)(char *const *tok, unsigned int n,
			      const char *reg);
	/*
	 * The prefix of the tree's register names ("MSR_"): a register a
	 * sink names by number is named by the macro of that value that
	 * the TU sees.
	 */
	const char *reg_macro_prefix;
	/*
	 * Registers whose value the hardware changes under the kernel:
	 * fnmatch(3) patterns, and what each is.
	 */
	const struct arch_path *live_regs;
	size_t nr_live_regs;
	/* What KVM host code needs of the outer hypervisor (outer.def). */
	const struct arch_outer *outers;
	size_t nr_outers;
	/* What KVM does for its guests that rules chains out (outer.def). */
	const struct arch_guest_outer *guest_outers;
	size_t nr_guest_outers;
	/* When KVM makes a guest's read of a register trap (outer.def). */
	const struct arch_trap_set *trap_sets;
	size_t nr_trap_sets;
	const struct arch_host_atom *host_atoms;
	size_t nr_host_atoms;
	/* Whether KVM runs a nested host at all (outer.def). */
	const struct arch_nesting *nestings;
	size_t nr_nestings;
	/* What a guest's CPU capabilities need KVM to offer (outer.def). */
	const struct arch_cpu_offer *cpu_offers;
	size_t nr_cpu_offers;
	const struct arch_offer_spell *offer_spells;
	size_t nr_offer_spells;
	/* The devices its guest machines have (machine.def). */
	const struct arch_device *machine;
	size_t nr_machine;
	/*
	 * trapcheck trace: the kinds of trap its host's trace records
	 * (each with its trapping instruction), and the events that record
	 * them (input/trace.h).
	 */
	const struct trace_kind_def *trace_kinds;
	size_t nr_trace_kinds;
	const struct trace_event *trace_events;
	size_t nr_trace_events;
};

/*
 * The bit a mask written as "(1 << N)", "(1u << N)", "BIT(N)", "BIT_ULL(N)"
 * or a one-bit number tests, or -1.
 */
int arch_mask_bit(const char *mask);

/*
 * What register @name is when the hardware changes its value under the
 * kernel ("a counter"), or NULL.
 */
const char *arch_live_reg(const char *name);

/*
 * The list of architectures (checker/arch/arches.c registers it before
 * main(), in the order of checker/arch/arches.def; the first is the
 * default). A later call replaces it.
 */
void arch_register(const struct arch *const *v, size_t n);
/* The @i-th registered architecture, or NULL past the last. */
const struct arch *arch_at(size_t i);

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
 * (they inherit it); the first registered until then.
 */
void arch_set(const struct arch *a);
const struct arch *arch_current(void);

/* Is @file under one of @paths' prefixes? */
bool arch_path_in(const struct arch_path *paths, size_t n,
		  const char *file);

/*
 * Does function @fn match one of @patterns, fnmatch(3) patterns separated
 * by spaces ("*_set_cpu_caps __do_cpuid_func")?
 */
bool arch_fn_matches(const char *patterns, const char *fn);

/*
 * In an architecture's struct arch initialiser: table @t and its size,
 * ".t = t, .nr_t = ARRAY_SIZE(t)" (util.h).
 */
#define ARCH_TABLE(t)	.t = t, .nr_##t = ARRAY_SIZE(t)

/*
 * The lines of an architecture's tables (the .def files of
 * checker/arch/<name>/), one style for all; an architecture expands them
 * with these, e.g.
 *	static const struct sink_def sinks[] = {
 *	#define SINK ARCH_SINK
 *	#include "sinks.def"
 *	#undef SINK
 *	};
 * SINK(how, name, class, arg, opaque, reg)  sinks.def: how MACRO, CALL or
 *	ASM; class and arg without their SINK_ and SINK_ARG_ prefixes (a
 *	class of the architecture's own is its SINK_<class> constant,
 *	SINK_ARCH and up); reg what it reads whatever its argument, or NULL
 * REG(name, trap)  registers.def: trap an enumerator ARCH_TRAP_<trap> of
 *	the architecture's own enum of trap classes (0: ARCH_TRAP_NONE)
 * TABLE(global, kind, how)  tables.def: kind an enumerator ARCH_ROW_<kind>
 *	of the architecture's own enum of row kinds, how ENTRIES or NAMES
 * GUARD(atom, kind)  phases.def: kind BOOT, CAPS_UNFINALIZED, ...
 * NESTED_PATH(prefix)  context.def: code that runs on a KVM host only
 * COLD_FN(name)  cold.def: a function cold by what it is
 * LIVE_REG(pattern, what)  registers the hardware changes (live-regs.def)
 * COND(kind, pattern, when_true, when_false)  conditions.def: as
 *	checker/model/conditions.def's
 * MODE_PATH(prefix, mode)  conditions.def: code that runs in one mode
 * OUTER(atom, probe, bits, offer)  outer.def: code under @atom needs the
 *	bits of @probe matching @bits set, which a nested host has only
 *	when the outer hypervisor offers them in @offer
 * OUTER_SET(atom, probe, bit, offer)  outer.def: code under @atom needs
 *	@probe to find @bit clear, which the outer hypervisor sets in
 *	@offer
 * GUEST(through, handler, calls, when)  outer.def: what KVM does for a
 *	guest that keeps a chain through @through from running
 * TRAP_SET(reg, bit, setter)  outer.def: KVM sets @bit, which traps a
 *	guest's read of @reg, in @setter
 * HOST(pattern, value, why)  outer.def: an atom of when it does so, in a
 *	guest of the analysed kernel on a common host
 * NESTING(feature, limit, check, what)  outer.def: a guest runs @what
 *	(as a nested host) only with vCPU feature @feature, which KVM
 *	refuses in @check unless it is below @limit
 * CPU_OFFER(cap, bit, offer, vendors)  outer.def: a guest has CPU
 *	capability @cap under KVM only when one of @vendors offers @bit
 *	(itself, or a function it calls matching @offer)
 * OFFER_SPELL(macro, prefix)  outer.def: an offer function's call of
 *	@macro names the bit @prefix and its argument
 * OFFER_CLEAR(call)  outer.def: an offer function's call of @call takes
 *	its argument away
 * OFFER_TEST(call)  outer.def: an offer function's call of @call tests
 *	its argument: neither offered nor taken away
 * CPU_FILE(prefix, cap, when)  conditions.def: code that runs only on a
 *	CPU with @cap
 * CPU_NAME(bit, name)  cpus.def: a CPU family, bit CPU_<bit> of a mask
 * CPU_PATH(prefix, cpus)  cpus.def: code only those CPUs run
 * CPU_REG(prefix, cpus)  cpus.def: registers only those CPUs have
 * DEVICE(profile, bus, id, source)  machine.def: a device of a guest
 * PROPERTY(profile, name, source)  machine.def: what every device of a
 *	guest of the profile has (an arch_device of bus "property")
 * CPU_CAP(profile, name, source)  machine.def: a CPU capability a guest
 *	of the profile may have, when its VMM offers it (an arch_device of
 *	bus "cpu"; conditions.def CPU)
 */
#define ARCH_SINK(how, name, class, arg, opaque, reg)			\
	{ SINK_##how, name, SINK_##class, SINK_ARG_##arg, opaque, reg },
#define ARCH_REG(name, trap)		{ #name, ARCH_TRAP_##trap },
#define ARCH_TABLE_LINE(global, kind, how)				\
	{ global, ARCH_ROW_##kind, TABLE_##how },
#define ARCH_GUARD(atom, kind)		{ atom, GUARD_##kind },
#define ARCH_NESTED_PATH(prefix)	prefix,
#define ARCH_COLD_FN(name)		name,
#define ARCH_LIVE_REG(pattern, what)	{ pattern, what },
#define ARCH_COND(kind, pattern, t, f)	{ COND_##kind, pattern, t, f },
#define ARCH_MODE_PATH(prefix, mode)	{ prefix, mode },
#define ARCH_OUTER(atom, probe, bits, offer)				\
	{ atom, probe, bits, offer, false },
#define ARCH_OUTER_SET(atom, probe, bit, offer)				\
	{ atom, probe, bit, offer, true },
#define ARCH_GUEST(through, handler, calls, when)			\
	{ through, handler, calls, when },
#define ARCH_DEVICE(profile, bus, id, source)				\
	{ profile, bus, id, source },
#define ARCH_TRAP_SET(reg, bit, setter)	{ reg, bit, setter },
#define ARCH_CPU_ONLY(prefix, cpus)	{ prefix, cpus },
#define ARCH_CPU_FILE(prefix, cap, when)	{ prefix, cap, when },
#define ARCH_HOST(pattern, value, why)	{ pattern, value, why },
#define ARCH_NESTING(feature, limit, check, what)			\
	{ feature, limit, check, what },
#define ARCH_CPU_OFFER(cap, bit, offer, vendors)			\
	{ cap, bit, offer, vendors },
#define ARCH_OFFER_SPELL(macro, prefix)	{ macro, prefix, false },
#define ARCH_OFFER_CLEAR(call)		{ call, NULL, false },
#define ARCH_OFFER_TEST(call)		{ call, NULL, true },
#define ARCH_PROPERTY(profile, name, source)				\
	{ profile, "property", name, source },
#define ARCH_CPU_CAP(profile, name, source)				\
	{ profile, "cpu", name, source },

#endif /* TRAPCHECK_ARCH_H */
