/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the analysed tree says about itself: the registers
 * read_sanitised_ftr_reg() can serve (arm64_ftr_regs[] in
 * arch/arm64/kernel/cpufeature.c) and, per CPU capability
 * (arm64_features[], arm64_errata[]), its scope, its matches() function
 * and what it reads. The tables' entries are read from the same libclang
 * ASTs as the call graph (tables.h); here they are resolved against the
 * graph and printed.
 */
#ifndef TRAPCHECK_CAPS_H
#define TRAPCHECK_CAPS_H

#include <stdbool.h>
#include <stdio.h>

#include "trapcheck/model/sinks.h"

struct graph;

/* A capability after resolution against the whole graph. */
struct cap {
	const char *name, *type, *matches, *reg, *field, *min, *table;
	const char *file;
	unsigned int line, scope;
	bool midr;
	/* What this_cpu_has_cap() reads on the local CPU: */
	const char *reads;	/* register, or NULL when unresolved */
	unsigned int trap;	/* TRAP_NONE or the architecture's */
	const char *how;	/* the words.def member it came from, "midr" */
};

struct cap_table {
	struct cap *caps;
	size_t nr, alloc;
	const char **ftr_regs;	/* arm64_ftr_regs[]: "ID_AA64ISAR0_EL1" */
	size_t nr_ftr, alloc_ftr;
	/* Their arm64_ftr_bits arrays: "REG *", "REG FIELD_SHIFT S|N" */
	const char **ftr_bits;
	size_t nr_bits, alloc_bits;
	/* KVM's MSR lists (x86): "vmx_possible_passthrough_msrs MSR_STAR" */
	const char **msrs;
	size_t nr_msrs, alloc_msrs;
	/* Globals keeping a register's value for hyp code (tables.h). */
	const char **hyp_copies;
	size_t nr_hyp_copies, alloc_hyp_copies;
	/* Bit names in outer.def functions: "FUNC NAME" (facts.def). */
	const char **outer_bits;
	size_t nr_outer_bits, alloc_outer_bits;
	bool have_ftr;		/* arm64_ftr_regs[] was found */
	bool have_caps;		/* a capability table was found */
	size_t unresolved;
};

/* Resolve every capability of @g: what it reads on the local CPU. */
void caps_resolve(struct graph *g);
const struct cap *caps_find(const struct cap_table *t, const char *name);
bool caps_is_sanitised(const struct cap_table *t, const char *reg);
/* Is @name one of the globals that keep a copy for hyp code? */
bool caps_has_hyp_copy(const struct cap_table *t, const char *name);
/*
 * The lists of the tree's KVM that name MSR @msr as one it may pass
 * through ("vmx_possible_passthrough_msrs[], direct_access_msrs[]"), a
 * new string, or NULL.
 */
char *caps_msr_lists(const struct cap_table *t, const char *msr);

/* What the tree's arm64_ftr_bits array of @reg says of a field. */
enum ftr_field {
	FTR_FIELD_UNKNOWN,	/* the register's array was not read */
	FTR_FIELD_ABSENT,	/* not described: sanitised value 0 there */
	FTR_FIELD_STRICT,	/* FTR_STRICT: every CPU must agree */
	FTR_FIELD_NONSTRICT,	/* FTR_NONSTRICT: the system-wide safe value */
};

/* @shift: the field's *_SHIFT macro as the tree spells it. */
enum ftr_field caps_ftr_field(const struct cap_table *t, const char *reg,
			      const char *shift);
/* ARM64_CPUCAP_SCOPE_* of arch/arm64/include/asm/cpufeature.h */
#define CAP_SCOPE_LOCAL_CPU	(1u << 0)
#define CAP_SCOPE_SYSTEM	(1u << 1)
#define CAP_SCOPE_BOOT_CPU	(1u << 2)
const char *cap_scope_name(unsigned int scope);

/* --list-caps: the resolved table, one line per capability. */
int caps_print(FILE *out, const struct cap_table *t);

/*
 * SCOPE_LOCAL_CPU alone (ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, local
 * errata): each CPU answers for itself, and the sanitised copy (the
 * system-wide value) is no stand-in for this CPU's answer.
 */
bool caps_per_cpu_only(const struct cap *cap);

#endif /* TRAPCHECK_CAPS_H */
