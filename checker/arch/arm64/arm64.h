/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64.h - what the three files of checker/arch/arm64/ share: arm64.c
 * (its struct arch, its tables read from the tree and resolved, its
 * advice and rewrites, its trace), rule-local-cap-check.c (its own
 * rule, which its struct arch points at) and fix-percpu.c (the
 * rewrites of reads into per-CPU copies).
 */
#ifndef TRAPCHECK_ARCH_ARM64_H
#define TRAPCHECK_ARCH_ARM64_H

#include <stdbool.h>
#include <stdio.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/rules/rules.h"

struct graph;
struct grow;

/* Its row kinds (tables.def; model/arch.h: 0 is the body words). */
enum {
	ARCH_ROW_FTR_REGS = 1,	/* arm64_ftr_regs[]: key the register */
	ARCH_ROW_CAPS,		/* a capability entry, as written */
	ARCH_ROW_HYP_COPY,	/* a copy kept for hyp code: key its name */
	ARCH_ROW_FTR_BITS,	/* a field of a register's arm64_ftr_bits */
};

/* A capability (arm64_features[], arm64_errata[]) resolved. */
struct arm64_cap {
	const char *name, *type, *matches, *reg, *field, *min, *table;
	const char *file;
	unsigned int line, scope;
	bool midr;
	/* What this_cpu_has_cap() reads on the local CPU: */
	const char *reads;	/* register, or NULL when unresolved */
	unsigned int trap;	/* TRAP_NONE or arm64's */
	const char *how;	/* "sys_reg", "matches", "midr", "none" */
};

/* The tables of one run, their strings the graph's. */
struct arm64_tables {
	struct arm64_cap *caps;
	size_t nr, alloc;
	const char **ftr_regs;	/* arm64_ftr_regs[]: "ID_AA64ISAR0_EL1" */
	size_t nr_ftr, alloc_ftr;
	/* Their arm64_ftr_bits arrays: the fields each describes. */
	const struct grow **ftr_bits;
	size_t nr_bits, alloc_bits;
	/* Globals keeping a register's value for hyp code. */
	const char **hyp_copies;
	size_t nr_hyp_copies, alloc_hyp_copies;
	bool have_ftr;		/* arm64_ftr_regs[] was found */
	bool have_caps;		/* a capability table was found */
	size_t unresolved;
};

/* What the tree's arm64_ftr_bits array of a register says of a field. */
enum ftr_field {
	FTR_FIELD_UNKNOWN,	/* the register's array was not read */
	FTR_FIELD_ABSENT,	/* not described: sanitised value 0 there */
	FTR_FIELD_STRICT,	/* FTR_STRICT: every CPU must agree */
	FTR_FIELD_NONSTRICT,	/* FTR_NONSTRICT: the system-wide safe value */
};

/* ARM64_CPUCAP_SCOPE_* of arch/arm64/include/asm/cpufeature.h */
#define CAP_SCOPE_LOCAL_CPU	(1u << 0)
#define CAP_SCOPE_SYSTEM	(1u << 1)
#define CAP_SCOPE_BOOT_CPU	(1u << 2)

/*
 * arm64.c, for its rule: a capability resolved, whether each CPU answers
 * it for itself (SCOPE_LOCAL_CPU alone: ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE,
 * local errata, where the sanitised copy, the system-wide value, is no
 * stand-in for this CPU's answer), and the advice for a read of @reg.
 */
const struct arm64_cap *arm64_cap_find(const struct arm64_tables *t,
				       const char *name);
bool arm64_cap_per_cpu_only(const struct arm64_cap *cap);
char *arm64_read_advice(const void *t, const struct read_ask *q,
			int *sanitised);

/* rule-local-cap-check.c: its rule and rewrite (a NULL id ends it). */
extern const struct rule arm64_own_rules[];

/*
 * fix-percpu.c: the rewrite of a read in hyp code (fix_ctx.no_rewrite
 * set) into a per-CPU copy in KVM's host data; of a read elsewhere whose
 * code needs this CPU's answer (@refused: why not the sanitised copy)
 * into the copy cpuinfo keeps; the edits their groups share
 * (arch_rules.fix_group).
 */
bool arm64_fix_host_data(const struct fix_ctx *ctx, struct fix_edit *e,
			 char **why);
bool arm64_fix_cpuinfo(const struct fix_ctx *ctx, const char *refused,
		       struct fix_edit *e, char **why);
bool arm64_fix_group(const char *tree, const char *group,
		     const char *const *args, size_t nr,
		     struct fix_edit **extra, size_t *nr_extra,
		     char **subject, char **body, char **why);

#endif /* TRAPCHECK_ARCH_ARM64_H */
