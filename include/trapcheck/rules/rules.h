/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules. Each rule lives in its own file: a generic one in
 * checker/rules/rule-*.c with one line in checker/rules/rules.def, an
 * architecture's in its folder, in its struct arch's own_rules (model/
 * arch.h). A rule looks at one sink site at a time through an explicit
 * context and, when the site is its concern, fills the finding's
 * rule-specific fields and message. Reachability and the chain are
 * filled by the engine, the same for every rule.
 */
#ifndef TRAPCHECK_RULES_H
#define TRAPCHECK_RULES_H

#include <stdbool.h>

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
	/*
	 * @fix may write a second rewrite when the first failed its check
	 * (fix_ctx.attempt 1, fix_ctx.failed); false: it is not asked.
	 */
	bool fix_again;
};

/*
 * Every rule: the generic ones (rules.def), then each architecture's
 * own, in the order of the registry (checker/arch/arches.def). The
 * engine runs the generic ones and the run's architecture's; switches,
 * fixes and SARIF know them all.
 */
size_t rules_count(void);
const struct rule *rules_at(size_t i);
/* The rule of id @id, or NULL. */
const struct rule *rules_find(const char *id);

/* Each rule's hooks, one file each (checker/rules/rules.def). */
#define RULE(name, id, summary, chain, fix)				\
	bool rule_##name(const struct rule_ctx *ctx, struct finding *f,	\
			 enum rule_scope *scope);			\
	bool rule_##name##_chain(const struct rule_ctx *ctx,		\
				 const struct finding *f,		\
				 const struct root_set *set);		\
	bool rule_##name##_fix(const struct fix_ctx *ctx,		\
			       struct fix_edit *e, char **why);
#include "rules/rules.def"
#undef RULE

/*
 * The architecture's advice for the trapping read @q, from its tables as
 * @g resolved them (arm64's is the sanitised copy when the tree's
 * arm64_ftr_regs[] serves the register and the fields the code tests;
 * a per-CPU value when they are its own or the copy leaves them out; in
 * hyp code, the copy the host keeps for it or per-CPU host data). Sets
 * *@cached to 1, 0 or -1 (tables not analysed). A new string.
 */
struct read_ask;
char *advice_read(const struct graph *g, const struct read_ask *q,
		  int *cached);
/*
 * estimate.c: @f's estimate and its rate per operation of root set @set
 * (or per rare event), from its chain's loops.
 */
void estimate_finding(struct finding *f, const struct root_set *set);
/*
 * outer.c: why KVM as the outer hypervisor never lets chain @c (and each
 * of @others) run on a nested host, a new string, or NULL (the
 * architecture's outer.def, the body words of @g's rows). With
 * @runs_nested, it is taken to run nested hosts whatever its NESTING
 * lines conclude (--outer=kvm-nested).
 */
char *outer_refusal(const struct graph *g, const struct chain *c,
		    const struct chain *others, size_t nr_others,
		    bool runs_nested);
/*
 * outer.c: why KVM as the outer hypervisor never runs chain @c (and each
 * of @others) in its guest, what its handler of the guest's request does
 * (the architecture's outer.def GUEST lines), a new string, or NULL.
 */
char *outer_guest_refusal(const struct graph *g, const struct chain *c,
			  const struct chain *others, size_t nr_others);
/*
 * outer.c: why KVM as the outer hypervisor never makes a guest's read of
 * register @reg trap on a common host (outer.def TRAP_SET and
 * HOST lines against the analysed tree's setter), a new string, or NULL.
 * When the host decides, *@qualifier says when KVM makes it trap (a new
 * string, else NULL).
 */
char *outer_trap_refusal(const struct graph *g, const char *reg,
			 char **qualifier);
/*
 * outer.c: why KVM as the outer hypervisor never gives its guest the CPU
 * capability each of chain @c and @others needs (outer.def CPU_OFFER and
 * HOST lines against the analysed tree's offer functions), a new string,
 * or NULL. When it offers what @c needs only on some hosts, or on every
 * host, *@qualifier says where and when (a new string, else NULL), of
 * the capability *@qcap.
 */
char *outer_cpu_refusal(const struct graph *g, const struct chain *c,
			const struct chain *others, size_t nr_others,
			char **qualifier, const char **qcap);
/*
 * machine.c: the first atom of chain @c that needs a CPU capability
 * (conditions.def CPU and CPU_FILE; a new string), the capability in
 * *@cap; NULL: none.
 */
char *machine_needs_cpu(const struct chain *c, const char **cap);
/*
 * machine.c: the drivers of the analysed tree (their modules, from the
 * TUs' module rows; their devices, from their match tables) and whether
 * the machine profile has a device of each. A chain that enters a driver
 * the profile has no device of through what the driver registers once
 * bound (a static function, a call through a struct member, a root's
 * entry its root set does not list by name), or enters a loadable module
 * that is such a driver or that only such drivers call, runs in no such
 * guest.
 */
struct machine_driver {
	const char *name;	/* its module (KBUILD_MODFILE), or its file */
	const char *file;	/* its first match table's file, or NULL */
	bool loadable;		/* an =m module: none of it runs unloaded */
	bool present;		/* the profile has one of its devices */
	bool unused;		/* loadable, no tables, and only drivers the
				 * profile has no device of call it */
	char *ids;		/* the first of its devices, for the message */
	size_t nr_ids;
	char *users;		/* unused: who calls it, for the message */
};

struct machine {
	const char *profile;	/* "guest", "virt", "cloud"; NULL: any */
	struct machine_driver *drivers;
	size_t nr, alloc;
	struct strmap groups;	/* module or file -> drivers[] */
	struct strmap files;	/* source file -> drivers[] */
	struct strmap names;	/* function name -> its first node */
	struct strmap dups;	/* "name@file" -> node, for shared names */
	unsigned int *counts;	/* per first node: functions of its name */
	int *node_group;	/* per node: its drivers[], or -1 */
};

void machine_init(struct machine *m, const struct graph *g,
		  const char *profile);
void machine_free(struct machine *m);
/*
 * Why no guest of the profile runs chain @c (and each of @others): a new
 * string, or NULL. When only machines of the profile not known to lack
 * what a chain needs may run it (a property only some are sourced to
 * have), *@doubt gets why instead (a new string; else NULL).
 */
char *machine_refusal(const struct machine *m, const struct graph *g,
		      const struct root_set *set, const struct chain *c,
		      const struct chain *others, size_t nr_others,
		      char **doubt);
/* Its advice for a read of a register chosen at run time. */
const char *advice_any_read(void);
/* The same for a read by @fn under @guards (a new string). */
char *advice_any_read_at(const char *guards, const char *fn);
/* Its advice for an identification instruction used to serialize. */
const char *advice_serialize(void);
/* Its rewrite of a trapping read (trapping-idreg-read's fix). */
bool advice_fix_read(const struct fix_ctx *ctx, struct fix_edit *e,
		   char **why);

struct rules_opts {
	bool per_root;		/* one finding per root set, not per site */
	bool all_chains;	/* low-confidence sites warned of too */
	/* --outer=any: no model of what the outer hypervisor offers. */
	bool outer_any;
	/*
	 * --outer=kvm-nested: the analysed tree's KVM, as if it ran nested
	 * hosts (outer.def's NESTING lines not applied).
	 */
	bool outer_nested;
	/* --machine: the guest's machine profile; NULL (any): none. */
	const char *machine;
};

#define RULES_REFUTED_EXAMPLES 4

struct rules_stats {
	size_t stopped;		/* calls into other root sets' entries */
	/* Sites every way into which passes values that rule them out. */
	size_t args_refuted;
	/* The first of them: "file:line in fn()". */
	char refuted_ex[RULES_REFUTED_EXAMPLES][160];
	size_t nr_refuted_ex;
	/*
	 * Sites no CPU reaches: each chain runs code, or reads a register,
	 * of two CPU families (cpus.def); the first of them.
	 */
	size_t cpu_refuted;
	char cpu_refuted_ex[RULES_REFUTED_EXAMPLES][200];
	size_t nr_cpu_refuted_ex;
	size_t low;		/* sites of low confidence, not warned of */
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
