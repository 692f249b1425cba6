/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules. Each rule lives in its own checker/rules/rule-*.c and has one line in
 * the table of checker/rules/rules.c; a rule looks at one sink site at a time
 * through an explicit context and, when the site is its concern, fills
 * the finding's rule-specific fields and message. Reachability and the
 * chain are filled by the engine, the same for every rule.
 */
#ifndef TRAPCHECK_RULES_H
#define TRAPCHECK_RULES_H

#include <stdbool.h>

#include "trapcheck/graph/caps.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/input/roots.h"
#include "trapcheck/model/sinks.h"

struct rule_ctx {
	const struct graph *graph;
	const struct gsink *site;
	const struct sink_def *def;	/* sink_table[site->sink] */
	const struct gnode *func;	/* function holding the site */
};

enum rule_scope {
	RULE_PER_ROOT,		/* one finding per root set reaching the site */
	RULE_STEADY_PER_ROOT,	/* the same, steady phase only */
	RULE_ONCE,		/* one finding per site, hot or not */
};

struct rule {
	const char *id;			/* stable: never renamed */
	const char *summary;
	/*
	 * Fill @f (not rule, location, root, chain) if @ctx is ours, and
	 * say how it is reported in *@scope (preset to RULE_PER_ROOT).
	 */
	bool (*check)(const struct rule_ctx *ctx, struct finding *f,
		      enum rule_scope *scope);
	/* Optional: keep @f now that its chain is known? */
	bool (*check_chain)(const struct rule_ctx *ctx,
			    const struct finding *f,
			    const struct root_set *set);
	/*
	 * Optional: the safe rewrite of a finding, or false with the reason
	 * in *@why (a new string).
	 */
	bool (*fix)(const struct fix_ctx *ctx, struct fix_edit *e,
		    char **why);
};

extern const struct rule rule_table[];
extern const size_t rule_table_size;

/* Each rule's hooks, one file each (checker/rules/rules.def). */
#define RULE(name, id, summary, chain, fix)				\
	bool rule_##name(const struct rule_ctx *ctx, struct finding *f,	\
			 enum rule_scope *scope);			\
	bool rule_##name##_chain(const struct rule_ctx *ctx,		\
				 const struct finding *f,		\
				 const struct root_set *set);		\
	bool fix_##name(const struct fix_ctx *ctx, struct fix_edit *e,	\
			char **why);
#include "rules/rules.def"
#undef RULE

/*
 * The architecture's advice for a trapping read of @reg in @file (@field:
 * the field the code tests, or NULL): arm64's is the sanitised copy when
 * the tree's arm64_ftr_regs[] serves the register, else a cached value;
 * in hyp code, the copy the host keeps for it. Sets
 * *@sanitised to 1, 0 or -1 (tables not analysed). A new string.
 */
char *idreg_advice(const struct cap_table *t, const char *reg,
		   const char *field, const char *file, int *sanitised);
/*
 * estimate.c: @f's estimate and its rate per operation of root set @set
 * (or per rare event), from its chain's loops.
 */
void rules_estimate(struct finding *f, const struct root_set *set);
/*
 * outer.c: why KVM as the outer hypervisor never lets chain @c (and each
 * of @others) run on a nested host, a new string, or NULL (the
 * architecture's outer.def, the tree's facts in @t).
 */
char *outer_refusal(const struct cap_table *t, const struct chain *c,
		    const struct chain *others, size_t nr_others);
/* Its advice for a read of a register chosen at run time. */
const char *idreg_any_advice(void);
/* Its advice for an identification instruction used to serialize. */
const char *idreg_serialize_advice(void);
/* Its advice for a read of a model-specific register. */
const char *msr_advice(void);
/* Its rewrite of a trapping read (trapping-idreg-read's fix). */
bool arch_fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		   char **why);

struct rules_opts {
	bool per_root;		/* one finding per root set, not per site */
	bool all_chains;	/* low-confidence sites warned of too */
	/* --outer=any: no model of what the outer hypervisor offers. */
	bool outer_any;
};

#define RULES_REFUTED_EXAMPLES 4

struct rules_stats {
	size_t stopped;		/* calls into other root sets' entries */
	/* Sites every way into which passes values that rule them out. */
	size_t args_refuted;
	/* The first of them: "file:line in fn()". */
	char refuted_ex[RULES_REFUTED_EXAMPLES][160];
};

/*
 * Run every rule over every sink site of @g reachable from a root set:
 * one finding per site (per site and root set with o->per_root), the
 * root set whose chain explains it best first, the others in also[].
 * Sites reached only through chains of low confidence go to @low (NULL:
 * to @out), unless o->all_chains. @o and @st may be NULL.
 */
void rules_run(const struct graph *g, const struct root_sets *roots,
	       const struct rules_opts *o, struct findings *out,
	       struct findings *low, struct rules_stats *st);

#endif /* TRAPCHECK_RULES_H */
