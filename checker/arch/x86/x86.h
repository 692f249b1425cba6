/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86.h - what the files of checker/arch/x86/ share: x86.c (its
 * struct arch, its tables read from the tree, its advice and rewrite, its
 * trace, the table of its own rules), rule-trapping-msr-read.c and
 * rule-trapping-pmc-read.c (those rules) and fix-cpuid.c (its rewrite of
 * CPUID in inline assembly).
 */
#ifndef TRAPCHECK_ARCH_X86_H
#define TRAPCHECK_ARCH_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/rules/rules.h"

struct graph;
struct grow;

/*
 * Its sink classes of its own: reads a model-specific register, reads a
 * performance counter (RDPMC).
 */
#define SINK_MSR	SINK_ARCH
#define SINK_PMC	(SINK_ARCH + 1)

/* Its row kinds (tables.def; model/arch.h: 0 is the body words). */
enum {
	ARCH_ROW_MSR_LIST = 1,	/* an MSR KVM may pass through: key it */
};

/* The tables of one run: KVM's pass-through lists. */
struct x86_tables {
	const struct grow **msrs;	/* table the list, key the MSR */
	size_t nr_msrs, alloc_msrs;
};

/*
 * x86.c, for its rule: the lists of the tree's KVM that name MSR @msr as
 * one it may pass through ("vmx_possible_passthrough_msrs[],
 * direct_access_msrs[]"), a new string, or NULL; only the lists of the
 * host @mode ("VMX host", "SVM host": passthrough.def) when not NULL.
 * *@missing: the hosts of passthrough.def (of @mode only, when not NULL)
 * none of whose lists names it ("VMX host"), a new string, or NULL.
 */
char *x86_msr_lists(const struct x86_tables *t, const char *msr,
		    const char *mode, char **missing);

/*
 * fix-cpuid.c: CPUID in inline assembly read from what the kernel keeps
 * of the leaf (copies.def), and the edits its sites of one file share.
 */
struct fix_ctx;
struct fix_edit;
bool x86_fix_asm_cpuid(const struct fix_ctx *ctx, struct fix_edit *e,
		       char **why);
bool x86_fix_group(const char *tree, const char *group,
		   const char *const *args, size_t nr,
		   struct fix_edit **extra, size_t *nr_extra,
		   char **subject, char **body, char **why);

/* Its own rules, one file each, and their table (x86.c). */
bool x86_msr_read_check(const struct rule_ctx *ctx, struct finding *f,
			enum rule_scope *scope);
bool x86_pmc_read_check(const struct rule_ctx *ctx, struct finding *f,
			enum rule_scope *scope);
extern const struct rule x86_own_rules[];

#endif /* TRAPCHECK_ARCH_X86_H */
