// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-check.c - "trapcheck check": kbuild's CHECK protocol (make C=1 or
 * C=2 CHECK="trapcheck check --db=FILE"): kbuild runs "$(CHECK)
 * $(CHECKFLAGS) $(c_flags) file.c" for each TU. The one TU is parsed with
 * gcc's flags in a worker process, its facts stored in FILE (safe under
 * make -j: SQLite transactions; trapcheck report --db FILE links them),
 * and what a single TU can show is printed (preempt-guard) on stderr, as
 * sparse prints. Exit 0 unless --fail or -Werror[=RULE] made a finding
 * an error; 2 on usage errors: a checker must not break the kernel build.
 * Rule switches (-Wno-RULE, ...) come from CF (switches.h). The command
 * line is read by checkargs.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/input/checkargs.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/store/db.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/output/emit.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/rules/switches.h"

static bool is_regular(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISREG(sb.st_mode);
}

/* Functions other TUs already stored the bodies of: not extracted again. */
static void preclaim(struct db *fdb, struct claims *c, const char *self)
{
	char **tus, **keys, **files;
	size_t n = db_tus(fdb, &tus), i, j, k;

	for (i = 0; i < n; i++) {
		if (strcmp(tus[i], self)) {
			k = db_tu_header_funcs(fdb, tus[i], &keys, &files);
			for (j = 0; j < k; j++) {
				claims_take(c, keys[j], -1);
				free(keys[j]);
				free(files[j]);
			}
			if (k) {
				free(keys);
				free(files);
			}
		}
		free(tus[i]);
	}
	free(tus);
}

/* The facts of @rel into the database; false (said) when they are not. */
static bool store_facts(struct db *fdb, const char *dbpath, const char *rel,
			const struct tu_facts *facts)
{
	/*
	 * The key of a compile database run would differ: check mode's
	 * facts are kept until a run with -p replaces them.
	 */
	char *key = xasprintf("check:%s", rel);
	bool ok = !db_store(fdb, rel, key, facts);
	char err[1024];

	if (!ok && db_error(fdb, err, sizeof(err)))
		diag_error("%s", err);
	else if (!ok)
		diag_error("%s: cannot store the facts of %s", dbpath, rel);
	free(key);
	return ok;
}

/*
 * The rule switches among kbuild's words (make C=2 CF=-Wno-preempt-guard
 * puts CF's words at the end of CHECKFLAGS, before c_flags): -W words
 * that name a rule of ours anywhere, and a bare -Werror or -Wno-error
 * before c_flags only (after, it is gcc's, CONFIG_WERROR's). Kept in
 * @sw and taken out of @argv (in place); the words left.
 */
static int take_switches(struct rule_switches *sw, int argc, char **argv)
{
	bool c_flags = false;
	char err[512];
	int i, k = 1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool taken = false;

		if (!strncmp(a, "-Wp,-MMD,", 9) || !strncmp(a, "-Wp,-MD,", 8))
			c_flags = true;
		/* --fail: -Werror where it stands (kept for checkargs). */
		if (!strcmp(a, "--fail"))
			switches_take(sw, "-Werror", SWITCH_BARE, err,
				      sizeof(err));
		if (!strncmp(a, "-W", 2) && a[2] && a[3] != ',')
			taken = switches_take(sw, a, c_flags ? 0 : SWITCH_BARE,
					      err, sizeof(err)) == 1;
		if (!taken)
			argv[k++] = argv[i];
	}
	return k;
}

/* What one TU can tell: the rules that need no root set. Any error? */
static bool report_one(const struct tu_facts *facts,
		       const struct rule_switches *sw)
{
	struct findings fs = { 0 };
	struct root_sets none = { 0 };
	struct graph g;
	bool found;

	graph_init(&g);
	graph_merge(&g, facts);
	graph_finish(&g);
	rules_run(&g, &none, NULL, &fs, NULL, NULL);
	switches_filter(sw, &fs, NULL);
	/* As sparse does: the build's output is the build's. */
	emit_text(stderr, &fs, &(struct emit_opts){ .errors = sw });
	found = switches_errors(sw, &fs);
	findings_free(&fs);
	graph_free(&g);
	return found;
}

/*
 * The database of a run of checks (one TU each, make -j of them): for
 * this architecture, the tree kbuild runs CHECK in (O=: BUILD/source).
 * 0, or the exit status (said).
 */
static int open_db(const char *path, const char *dir, struct db **fdbp)
{
	struct db *fdb;
	char err[1024], *src;
	int ret;

	*fdbp = NULL;
	if (db_open(&fdb, path, DB_WRITE, err, sizeof(err))) {
		diag_error("%s", err);
		return TC_EXIT_USAGE;
	}
	if (db_readonly(fdb)) {
		diag_error("%s: cannot write the database: %s", path,
			   db_readonly_why(fdb));
		db_close(fdb);
		return TC_EXIT_OUTPUT;
	}
	if (db_check_arch(fdb, arch_current()->name, err, sizeof(err))) {
		diag_error("%s", err);
		db_close(fdb);
		return TC_EXIT_USAGE;
	}
	src = db_root(fdb) ? xstrdup(db_root(fdb)) :
			     compdb_srctree_of_build(dir);
	ret = db_begin_run(fdb, src, arch_current()->name, false);
	free(src);
	if (ret) {
		db_error(fdb, err, sizeof(err));
		diag_error("%s", err);
		db_close(fdb);
		return TC_EXIT_OUTPUT;
	}
	*fdbp = fdb;
	return 0;
}

#define CHECK_USAGE "trapcheck check --db=FILE [--fail] [-q] " \
	"[-Wno-RULE...] <gcc flags> file.c (or set TRAPCHECK_DB)"

int cmd_check(int argc, char **argv)
{
	const char *timeout = getenv("TRAPCHECK_TU_TIMEOUT");
	const struct arch *arch;
	struct compdb_entry e = { 0 };
	struct one_tu one = { 0 };
	struct flag_warnings warn;
	struct check_args ca;
	struct claims claims;
	struct clang_args args;
	struct tu_facts facts;
	struct rule_switches sw;
	struct db *fdb;
	char cwd[4096], *rel;
	char *why = NULL;
	int ret = 0;

	/* Alone: kbuild never passes it, a person asking does. */
	if (argc == 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n\nkbuild's CHECK protocol (make C=1 "
		       "CHECK=\"trapcheck check --db=FILE\"): each TU's "
		       "facts into FILE (trapcheck report --db FILE links "
		       "them), what one TU shows as gcc-style warnings on "
		       "stderr; exit 0 unless --fail or -Werror made a "
		       "finding an error, 2 on usage errors.\n", CHECK_USAGE);
		return TC_EXIT_CLEAN;
	}
	switches_init(&sw, RULE_WARNING);
	argc = take_switches(&sw, argc, argv);
	if (check_args_parse(&ca, argc, argv, getenv("TRAPCHECK_DB"))) {
		diag_error("check: usage: %s: %s", CHECK_USAGE, ca.error);
		check_args_free(&ca);
		return TC_EXIT_USAGE;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		diag_error("check: the current directory: %s",
			   strerror(errno));
		check_args_free(&ca);
		return TC_EXIT_USAGE;
	}
	/* The compile command is @ca's: freed with it. */
	e.argv = ca.argv;
	e.argc = ca.argc;
	e.directory = path_normalize(cwd);
	e.file = path_join(e.directory, ca.file);
	arch = arch_of_argv(e.argv, e.argc);
	if (arch)
		arch_set(arch);

	/* Nothing is stored for a file that is not there. */
	if (access(e.file, R_OK) || !is_regular(e.file)) {
		diag_error("%s: cannot read: %s", ca.file, access(e.file, R_OK) ?
			   strerror(errno) : "not a regular file");
		ret = TC_EXIT_USAGE;
		goto out_free_entry;
	}
	ret = open_db(ca.dbpath, e.directory, &fdb);
	if (ret)
		goto out_free_entry;
	if (flags_translate(&e, db_root(fdb), &args) != FLAGS_PARSE ||
	    args.assembly) {
		flags_args_free(&args);
		goto out_close;		/* not a kernel C file: nothing to do */
	}
	rel = path_relative(e.file, db_root(fdb));
	claims_init(&claims);
	preclaim(fdb, &claims, rel);
	flags_warnings_init(&warn);
	one.root = db_root(fdb);
	one.claims = &claims;
	one.warnings = &warn;
	one.fault = getenv("TRAPCHECK_FAULT");
	one.timeout = timeout ? (unsigned int)strtoul(timeout, NULL, 10) :
				300;
	if (analysis_parse_one(&e, &args, &one, &facts, &why)) {
		/* A crash of ours must not break the kernel build. */
		diag_at(rel, "warning", "trapcheck: not analysed: %s", why);
		free(why);
		ret = ca.fail ? TC_EXIT_OUTPUT : 0;
		goto out_free_facts;
	}
	if (facts.first_error && !ca.quiet)
		diag_at(rel, "note", "parsed with %u error%s, first: %s",
			facts.nr_errors, facts.nr_errors == 1 ? "" : "s",
			facts.first_error);
	if (facts.parse_error == TU_NOT_READ) {
		/* Not stored: no phantom TU for a later report. */
		diag_at(rel, "warning", "trapcheck: not analysed: %s",
			facts.first_error ? facts.first_error : "not read");
		ret = ca.fail ? TC_EXIT_OUTPUT : 0;
		goto out_free_facts;
	}
	if (!store_facts(fdb, ca.dbpath, rel, &facts))
		ret = TC_EXIT_OUTPUT;
	if (report_one(&facts, &sw) && !ret)
		ret = TC_EXIT_FINDINGS;
out_free_facts:
	facts_free(&facts);
	flags_warnings_free(&warn);
	claims_free(&claims);
	flags_args_free(&args);
	free(rel);
out_close:
	db_close(fdb);
out_free_entry:
	check_args_free(&ca);
	free(e.directory);
	free(e.file);
	return ret;
}
