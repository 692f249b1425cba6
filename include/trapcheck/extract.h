/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TU extraction: parse one translation unit with libclang and record its
 * function definitions, direct call edges and sink sites. The AST is
 * disposed before extract_tu() returns; only these facts outlive it.
 */
#ifndef TRAPCHECK_EXTRACT_H
#define TRAPCHECK_EXTRACT_H

#include <pthread.h>
#include <stdbool.h>

#include <clang-c/Index.h>

#include "trapcheck/caps.h"
#include "trapcheck/flags.h"
#include "trapcheck/util.h"

struct tu_func {
	char *key;		/* USR; internal linkage: USR@file */
	char *name;
	char *file;		/* relative to the tree root */
	unsigned int line, col;
	bool is_static;
	bool indirect_calls;	/* calls through a function pointer */
	bool cold;		/* __init, __exit, __cold, __noreturn */
};

struct tu_call {
	int caller;		/* index into tu_facts.funcs */
	char *callee_key;
	char *callee_name;
	char *callee_file;	/* where the callee is declared */
	unsigned int callee_line;
	char *file;		/* the call site */
	unsigned int line, col;
	char *via;		/* the macro the call was written as, or NULL */
	unsigned int off;	/* file offset of the site */
	char *guards;		/* conditions holding at the site, or NULL */
	unsigned int loop;	/* known trip counts of enclosing loops */
	unsigned int loop_guess; /* enclosing loops of unknown bound */
	/*
	 * Arguments of a registration type (checker/dispatch.def) and what
	 * they are: "0=var:oom_notify_list;1=$0" (argument 0 is the global
	 * oom_notify_list, argument 1 the caller's parameter 0), or NULL.
	 */
	char *args;
};

struct tu_sink {
	int func;		/* index into tu_facts.funcs */
	int sink;		/* index into sink_table */
	char *arg;		/* the register or capability, or NULL */
	char *file;
	unsigned int line, col;
	unsigned int off;
	char *guards;		/* conditions holding at the site, or NULL */
	unsigned int loop;	/* known trip counts of enclosing loops */
	unsigned int loop_guess; /* enclosing loops of unknown bound */
};

/* A function stored in a struct member: "vm_operations_struct.map_pages". */
struct tu_assign {
	char *member;
	char *fn_key, *fn_name, *fn_file;
	unsigned int fn_line;
	/*
	 * The object whose member it is, when it can be named (as call
	 * arguments are: "var:pm_nb@kernel/x.c", "kvm_arch.nb"), or NULL.
	 */
	char *object;
};

/* A call through a struct member, resolved at the link. */
struct tu_icall {
	int caller;
	char *member;
	char *file;
	unsigned int line, col, off;
	char *guards;
	unsigned int loop;	/* known trip counts of enclosing loops */
	unsigned int loop_guess; /* enclosing loops of unknown bound */
};

/* An unknown compiler flag's warning, for the analysis to print once. */
struct tu_warning {
	char *flag;
	char *text;		/* the whole line, without '\n' */
};

/* tu_facts.parse_error beyond libclang's CXErrorCode values: */
#define TU_NOT_READ	(-1)	/* not a readable regular file */
#define TU_CRASHED	(-2)	/* its parser crashed or timed out */

struct tu_facts {
	char *file;		/* the TU, relative to the tree root */
	int parse_error;	/* a CXErrorCode, TU_*; 0 when a TU was built */
	unsigned int nr_errors;	/* error and fatal diagnostics */
	char *first_error;	/* "file:line:col: message" */
	bool retried;		/* re-parsed without rejected flags */

	struct tu_func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct tu_call *calls;
	size_t nr_calls, alloc_calls;
	struct tu_sink *sinks;
	size_t nr_sinks, alloc_sinks;

	/* Kernel tables found in this TU (checker/tables.def). */
	struct tu_cap *caps;
	size_t nr_caps, alloc_caps;
	char **ftr_regs;
	size_t nr_ftr, alloc_ftr;
	bool have_ftr, have_caps;

	struct tu_assign *assigns;
	size_t nr_assigns, alloc_assigns;
	struct tu_icall *icalls;
	size_t nr_icalls, alloc_icalls;

	/* Every file the TU included, relative to the tree (invalidation). */
	char **includes;
	size_t nr_includes, alloc_includes;

	/* With extract_opts.defer_warnings: not printed, but kept here. */
	struct tu_warning *warnings;
	size_t nr_warnings, alloc_warnings;
};

/*
 * Functions defined outside a TU's main file (static inline functions in
 * headers) are extracted once per run: the first TU to claim one visits
 * its body, the others skip it.
 */
struct claims {
	pthread_mutex_t lock;
	struct strmap set;
};

void claims_init(struct claims *c);
void claims_free(struct claims *c);
/* True when @key is unclaimed (it becomes @owner's) or @owner's already. */
bool claims_take(struct claims *c, const char *key, int owner);

struct extract_opts {
	const char *root;		/* tree root, for relative paths */
	struct claims *claims;		/* NULL: extract every body */
	int owner;			/* who claims: the TU's index */
	struct flag_warnings *warnings;	/* unknown flag reporting */
	bool defer_warnings;		/* into tu_facts.warnings instead */
	/* Files parsed with these contents instead of the disk's. */
	struct CXUnsavedFile *unsaved;
	unsigned int nr_unsaved;
};

/*
 * Parse @file with @args through @idx and fill @out. Returns 0 when a
 * TU was built (possibly with errors, counted in @out), or a negative
 * code when libclang could not build one (@out->parse_error says why).
 */
int extract_tu(CXIndex idx, const char *file, struct clang_args *args,
	       const struct extract_opts *opts, struct tu_facts *out);
void tu_facts_free(struct tu_facts *f);
const char *cx_error_name(int code);

#endif /* TRAPCHECK_EXTRACT_H */
