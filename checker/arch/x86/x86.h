/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86.h - what the files of checker/arch/x86/ share: x86.c (its
 * struct arch, its tables read from the tree, its advice and rewrite, its
 * trace), rule-trapping-msr-read.c (its own rule, which its struct
 * arch points at) and fix-cpuid.c (its rewrite of CPUID in inline
 * assembly).
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

/* Its sink class of its own: reads a model-specific register. */
#define SINK_MSR	SINK_ARCH

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
 * direct_access_msrs[]"), a new string, or NULL.
 */
char *x86_msr_lists(const struct x86_tables *t, const char *msr);

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

/* rule-trapping-msr-read.c: its rule (a NULL id ends it). */
extern const struct rule x86_own_rules[];

#endif /* TRAPCHECK_ARCH_X86_H */
