/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trapcheck program (not the library): its options, parsed once by
 * main.c from checker/programs/options.def, and its modes, one file each
 * (cmd-*.c), as sparse's programs sit on libsparse.
 */
#ifndef TRAPCHECK_PROG_H
#define TRAPCHECK_PROG_H

#include <stdbool.h>
#include <stdio.h>

#include "trapcheck/pipeline/analyze.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/pipeline/fix.h"
#include "trapcheck/input/roots.h"
#include "trapcheck/rules/switches.h"

/* --min-analysed: a count, or a share of the TUs tried ("90%"). */
struct min_analysed {
	double value;
	bool percent;
};

struct prog {
	const char *cmd;		/* report, callers, ... or NULL */
	char **words;			/* the subcommand's arguments */
	const char *tree, *format, *output, *roots_dir, *root_set;
	const char *diff, *diff_range, *cocci, *context;
	const char **extra_roots;	/* --roots */
	size_t nr_extra, alloc_extra;
	const char **only;		/* --only DIR... */
	size_t nr_only, alloc_only;
	struct rule_switches sw;	/* -W... */
	const char **more_dbs;		/* report: the second --db, ... */
	size_t nr_more_dbs, alloc_more_dbs;
	const char *baseline, *write_baseline, *waivers, *graph_dir, *html;
	const char *vmlinux;		/* trace: the guest's */
	unsigned long long kaslr;	/* trace: --kaslr-offset */
	unsigned long long guest_text;	/* trace: --guest-text */
	bool kaslr_given, guest_text_given;
	bool rank_measured;		/* trace: --rank=measured */
	bool no_waivers, no_progress, quiet, list_roots, list_caps;
	bool print_commands, no_config;
	char *config;			/* the .trapcheck read, or NULL */
	char **config_args;		/* its arguments, kept */
	size_t nr_config_args, alloc_config_args;
	struct emit_opts eo;
	struct analysis_opts ao;
	struct fix_opts fo;
	struct min_analysed min;

	struct root_sets roots;		/* loaded by prog_roots() */
	char *roots_path;
};

/* Modes: each returns an exit status (TC_EXIT_*). */
int cmd_scan(struct prog *p);		/* the findings; report */
int cmd_query(struct prog *p);		/* callers, callees, path, why */
int cmd_list(struct prog *p);		/* --list-roots/caps, commands */
int cmd_fix(struct prog *p);		/* --fix, --fix-dir, --apply, ... */
int cmd_diff(struct prog *p);		/* --diff PATCH */
int cmd_trace(struct prog *p);		/* trace TRACE --vmlinux FILE */
/* The sparse protocol: trapcheck check --db=FILE <gcc flags> file.c. */
int cmd_check(int argc, char **argv);

/* -p's path: DIR means DIR/compile_commands.json, as for clang tools. */
char *prog_compdb(const char *path);
/* The root sets (shipped or --roots-dir, --roots, --root-set); 0 or exit. */
int prog_roots(struct prog *p);
/*
 * The analysis of -p TREE (or of --db's facts), its findings selected
 * (prog_select()); 0 or an exit status.
 */
int prog_analyse(struct prog *p, struct analysis *a);
/*
 * Keep the findings of @a that --context, -Wno-RULE and --only keep;
 * 0, or an exit status when --only names no analysed path (said).
 */
int prog_select(struct prog *p, struct analysis *a);
/*
 * Waivers, baselines and pictures, then the findings to stdout or -o
 * (atomically) and the summary; the exit status, fail-closed included.
 */
int prog_report(struct prog *p, struct analysis *a);
/* The exit status of findings: 0, 1, or 4 when too little was analysed. */
int prog_status(const struct prog *p, const struct analysis *a);
/*
 * The analysis (prog_analyse()) handed to @mode, then freed: the exit
 * status of whichever fails first, or @mode's.
 */
int prog_analysed(struct prog *p,
		  int (*mode)(struct prog *p, struct analysis *a));
/* Say the error @err; returns the exit status @status. */
int prog_fail(const char *err, int status);

#endif /* TRAPCHECK_PROG_H */
