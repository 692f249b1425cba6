// SPDX-License-Identifier: GPL-2.0
/*
 * trapcheck - find trapping ID register reads, local-CPU capability
 * checks and slow entropy instructions reachable from kernel hot paths.
 *
 * The options (checker/programs/options.def), then a table of modes; each mode is
 * a short program file (cmd-*.c) on the library.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/base/util.h"
#include "trapcheck/model/conditions.h"

#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

enum {
	OPT_FIRST = 256,
#define OPTION(id, name, letter, arg, help) OPT_##id,
#include "options.def"
#undef OPTION
};

static const struct {
	int id;
	const char *name, *arg, *help;
	char letter;
} options[] = {
#define OPTION(id, name, letter, arg, help) \
	{ OPT_##id, name, arg, help, letter },
#include "options.def"
#undef OPTION
};

static const struct {
	int code;
	const char *meaning;
} exits[] = {
#define EXIT(id, code, meaning) { code, meaning },
#include "base/exits.def"
#undef EXIT
};

/* Subcommands and how many words follow their options. */
static const struct {
	const char *name;
	int words;
	const char *usage;
} commands[] = {
	{ "report", 0, "report --db FILE [--db FILE...] [options]" },
	{ "callers", 1, "callers|callees FN  (-p TREE | --db FILE)" },
	{ "callees", 1, NULL },
	{ "path", 2, "path FROM TO        (-p TREE | --db FILE)" },
	{ "why", 1, "why FILE:LINE       (-p TREE | --db FILE)" },
	{ "trace", 1, "trace TRACE --vmlinux FILE [--kaslr-offset HEX | "
		      "--guest-text HEX]\n                [--rank=measured] "
		      "(-p TREE | --db FILE)" },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: trapcheck [options] -p <tree | compile_commands.json>\n",
	      f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].usage)
			fprintf(f, "       trapcheck %s\n", commands[i].usage);
	fputs("       trapcheck check --db=FILE <gcc flags> file.c  "
	      "(make C=1 CHECK=...)\n", f);
	for (i = 0; i < ARRAY_SIZE(options); i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s%c%s%s%s%s%s",
			 options[i].letter ? "-" : "",
			 options[i].letter ? options[i].letter : ' ',
			 options[i].letter && options[i].name ? ", " : "",
			 options[i].name ? "--" : "",
			 options[i].name ? options[i].name : "",
			 options[i].arg ? " " : "",
			 options[i].arg ? options[i].arg : "");
		fprintf(f, "  %-24s %s\n", head + !options[i].letter,
			options[i].help);
	}
	fputs("exit status:", f);
	for (i = 0; i < ARRAY_SIZE(exits); i++)
		fprintf(f, "%s %d %s", i ? "," : "", exits[i].code,
			exits[i].meaning);
	fputs("\n", f);
}

/* A number in [lo, hi], or false. */
static bool number(const char *s, unsigned long lo, unsigned long hi,
		   unsigned long *out)
{
	char *end;

	*out = strtoul(s, &end, 10);
	return *s && !*end && *s != '-' && *out >= lo && *out <= hi;
}

static bool parse_min_analysed(const char *s, struct min_analysed *m)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return false;
	m->percent = *end == '%';
	if (m->percent)
		end++;
	m->value = v;
	return !*end && (!m->percent || v <= 100);
}

/*
 * The options that only store their argument (a const char * of struct
 * prog), or only set or clear a flag of it (a bool).
 */
static const struct {
	int id;
	enum { STORE_ARG, STORE_TRUE, STORE_FALSE } how;
	size_t offset;
} stores[] = {
#define STORE(id, how, field) { OPT_##id, how, offsetof(struct prog, field) }
#define ARG(id, field)		STORE(id, STORE_ARG, field)
#define SET(id, field)		STORE(id, STORE_TRUE, field)
#define CLEAR(id, field)	STORE(id, STORE_FALSE, field)
	ARG(PATH, tree), ARG(SRCTREE, ao.srctree), ARG(DB_OUT, ao.db_out), ARG(FORMAT, format), ARG(OUTPUT, output),
	ARG(ROOTS_DIR, roots_dir), ARG(ROOT_SET, root_set),
	SET(LIST_ROOTS, list_roots), SET(NO_ISOLATE, ao.no_isolate),
	SET(EVERY_BODY, ao.every_body), SET(ASSEMBLY, ao.assembly),
	CLEAR(NO_ASSEMBLY, ao.assembly),
	SET(PER_ROOT, ao.per_root),
	SET(ALL_CHAINS, ao.all_chains), SET(VERBOSE, eo.verbose),
	SET(QUIET, quiet), SET(NO_PROGRESS, no_progress),
	SET(PRINT_COMMANDS, print_commands), SET(LIST_CAPS, list_caps),
	SET(NO_CONFIG, no_config),
	ARG(DIFF, diff), ARG(DIFF_RANGE, diff_range), SET(FIX, fo.print),
	ARG(FIX_DIR, fo.dir),
	SET(APPLY, fo.apply), ARG(EMIT_COCCI, cocci),
	ARG(SIGNOFF, fo.meta.signoff), CLEAR(NO_VERIFY, fo.verify),
	ARG(WRITE_BASELINE, write_baseline), ARG(BASELINE, baseline),
	ARG(WAIVERS, waivers), SET(NO_WAIVERS, no_waivers),
	ARG(GRAPH, graph_dir), ARG(HTML, html), ARG(VMLINUX, vmlinux),
#undef STORE
#undef ARG
#undef SET
#undef CLEAR
};

/* A stored option into @p; false when @id is not one. */
static bool store(struct prog *p, int id, const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stores); i++) {
		char *field = (char *)p + stores[i].offset;

		if (stores[i].id != id)
			continue;
		if (stores[i].how == STORE_ARG)
			*(const char **)field = arg;
		else
			*(bool *)field = stores[i].how == STORE_TRUE;
		return true;
	}
	return false;
}

/* One option into @p; false (and said) when its argument is bad. */
/* --context and --outer: one word of a few; --features: a list of names. */
static bool take_word(struct prog *p, int id, const char *arg)
{
	char err[256];

	if (id == OPT_FEATURES) {
		if (cond_features_check(arg, err, sizeof(err))) {
			diag_error("%s", err);
			return false;
		}
		p->ao.features = arg;
		return true;
	}
	if (id == OPT_MACHINE) {
		if (strcmp(arg, "guest") && strcmp(arg, "virt") &&
		    strcmp(arg, "cloud") && strcmp(arg, "any")) {
			diag_error("--machine is guest, virt, cloud or any, "
				   "not '%s'", arg);
			return false;
		}
		p->ao.machine = strcmp(arg, "any") ? arg : NULL;
		return true;
	}
	if (id == OPT_OUTER) {
		if (strcmp(arg, "kvm") && strcmp(arg, "kvm-nested") &&
		    strcmp(arg, "any")) {
			diag_error("--outer is kvm, kvm-nested or any, not "
				   "'%s'", arg);
			return false;
		}
		p->ao.outer_any = !strcmp(arg, "any");
		p->ao.outer_nested = !strcmp(arg, "kvm-nested");
		return true;
	}
	if (strcmp(arg, "guest") && strcmp(arg, "nested") &&
	    strcmp(arg, "all")) {
		diag_error("--context is guest, nested or all, not '%s'",
			   arg);
		return false;
	}
	p->context = arg;
	return true;
}

/* -W<word>: a rule switch; an unknown rule is an error here. */
static bool take_switch(struct prog *p, const char *arg)
{
	char err[512], *word = xasprintf("-W%s", arg);
	int taken = switches_take(&p->sw, word, SWITCH_BARE | SWITCH_STRICT,
				  err, sizeof(err));

	free(word);
	if (taken != 1)
		diag_error("%s", err);
	return taken == 1;
}

static bool take(struct prog *p, int id, const char *arg)
{
	unsigned long n;
	int end = 0;

	if (store(p, id, arg))
		return true;
	switch (id) {
	case OPT_ROOTS:
		*PUSH(p->extra_roots, p->nr_extra, p->alloc_extra) = arg;
		break;
	case OPT_ONLY:
		*PUSH(p->only, p->nr_only, p->alloc_only) = arg;
		break;
	case OPT_WARN:
		return take_switch(p, arg);
	case OPT_DB:
		if (!p->ao.db_path)
			p->ao.db_path = arg;
		else
			*PUSH(p->more_dbs, p->nr_more_dbs,
			      p->alloc_more_dbs) = arg;
		break;
	case OPT_SHARD:
		if (sscanf(arg, "%u/%u%n", &p->ao.shard_k, &p->ao.shard_n,
			   &end) != 2 || arg[end] || !p->ao.shard_k ||
		    p->ao.shard_k > p->ao.shard_n ||
		    p->ao.shard_n > 10000) {
			diag_error("--shard needs K/N with 1 <= K <= N, not "
				   "'%s'", arg);
			return false;
		}
		break;
	case OPT_MAX_TARGETS:
		if (!number(arg, 1, 1000000, &n)) {
			diag_error("--max-targets needs a positive number");
			return false;
		}
		p->ao.max_targets = n;
		break;
	case OPT_JOBS:
		if (!number(arg, 1, 4096, &n)) {
			diag_error("-j needs a positive number, not '%s'", arg);
			return false;
		}
		p->ao.jobs = (int)n;
		break;
	case OPT_TU_TIMEOUT:
		if (!number(arg, 0, 86400, &n)) {
			diag_error("--tu-timeout needs seconds (0-86400)");
			return false;
		}
		p->ao.tu_timeout = (unsigned int)n;
		break;
	case OPT_TU_MEMORY:
		if (!number(arg, 0, 1 << 24, &n)) {
			diag_error("--tu-memory needs MiB (0-16777216)");
			return false;
		}
		p->ao.tu_memory_mib = (unsigned long)n;
		break;
	case OPT_MIN_ANALYSED:
		if (!parse_min_analysed(arg, &p->min)) {
			diag_error("--min-analysed needs a count or a "
				   "percentage, not '%s'", arg);
			return false;
		}
		break;
	case OPT_KASLR:
	case OPT_GUEST_TEXT: {
		unsigned long long v;
		char *e;

		errno = 0;
		v = strtoull(arg, &e, 16);
		if (e == arg || *e || errno) {
			diag_error("--%s needs a hexadecimal address, not '%s'",
				   id == OPT_KASLR ? "kaslr-offset" :
				   "guest-text", arg);
			return false;
		}
		if (id == OPT_KASLR) {
			p->kaslr = v;
			p->kaslr_given = true;
		} else {
			p->guest_text = v;
			p->guest_text_given = true;
		}
		break;
	}
	case OPT_RANK:
		if (strcmp(arg, "estimate") && strcmp(arg, "measured")) {
			diag_error("--rank is estimate or measured, not '%s'",
				   arg);
			return false;
		}
		p->rank_measured = !strcmp(arg, "measured");
		break;
	case OPT_OUTER:
	case OPT_MACHINE:
	case OPT_CONTEXT:
	case OPT_FEATURES:
		return take_word(p, id, arg);
	}
	return true;
}

/* One line for a bad option, as git says it: the list is --help's. */
static void bad_option(int c, const char *word)
{
	if (c == ':')
		diag_error("option '%s' needs an argument (trapcheck --help)",
			   word);
	else if (optopt && word[0] == '-' && word[1] != '-')
		diag_error("unknown option '-%c' (trapcheck --help lists "
			   "them)", optopt);
	else
		diag_error("unknown option '%s' (trapcheck --help lists "
			   "them)", word);
}

/*
 * Parse @argv into @p. Returns -1 to go on, or the exit status of a run
 * that ends here (--help, --version, a usage error).
 */
static int parse(struct prog *p, int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(options) + 1];
	char so[2 * ARRAY_SIZE(options) + 2];
	size_t i, n = 0, k = 0;
	int c;

	so[k++] = ':';
	for (i = 0; i < ARRAY_SIZE(options); i++) {
		if (options[i].name)
			lo[n++] = (struct option){ options[i].name,
				options[i].arg ? required_argument :
				no_argument, NULL, options[i].id };
		if (options[i].letter) {
			so[k++] = options[i].letter;
			if (options[i].arg)
				so[k++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	so[k] = '\0';
	/* Our own one-line messages: ':' first tells a missing argument. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == '?' || c == ':') {
			bad_option(c, argv[optind - 1]);
			return TC_EXIT_USAGE;
		}
		for (i = 0; i < ARRAY_SIZE(options); i++)
			if (c == options[i].id || c == options[i].letter)
				break;
		if (options[i].id == OPT_HELP) {
			usage(stdout);
			return TC_EXIT_CLEAN;
		}
		if (options[i].id == OPT_VERSION) {
			printf("trapcheck %s\n", TRAPCHECK_VERSION);
			return TC_EXIT_CLEAN;
		}
		if (!take(p, options[i].id, optarg))
			return TC_EXIT_USAGE;
	}
	return -1;
}

/*
 * A tree's .trapcheck: long options (and -W<rule>), one a line, `#`
 * comments; what a team shares. Only these may be set there; a path is
 * relative to the file's directory.
 */
static const int config_ok[] = {
	OPT_WARN, OPT_ONLY, OPT_ROOTS, OPT_ROOTS_DIR, OPT_ROOT_SET,
	OPT_WAIVERS, OPT_BASELINE, OPT_OUTER, OPT_MACHINE, OPT_CONTEXT,
	OPT_MIN_ANALYSED,
	OPT_FEATURES,
	OPT_MAX_TARGETS, OPT_ALL_CHAINS, OPT_PER_ROOT, OPT_TU_TIMEOUT,
};
static const int config_path[] = {
	OPT_ROOTS, OPT_ROOTS_DIR, OPT_WAIVERS, OPT_BASELINE,
};

static bool in_list(const int *v, size_t n, int id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/*
 * A file a tree's .trapcheck names must be in that tree (the directory of
 * @file): a merge request that adds a .trapcheck must not make CI read,
 * and print in an error, what lies outside (/proc/self/environ, a
 * symbolic link to it). No absolute path, no "..", and where it exists,
 * its real path under the directory's. True when @arg is inside.
 */
static bool config_path_inside(const char *file, const char *arg)
{
	char *dir = xstrdup(file), *end = strrchr(dir, '/'), *full, *rd, *rf;
	const char *p;
	bool ok = arg[0] != '/';
	size_t n;

	for (p = arg; ok && *p; p += strcspn(p, "/"), p += *p == '/')
		ok = strncmp(p, "..", 2) || (p[2] && p[2] != '/');
	if (end)
		*end = '\0';
	full = xasprintf("%s/%s", end ? dir : ".", arg);
	rd = realpath(end ? dir : ".", NULL);
	rf = ok ? realpath(full, NULL) : NULL;
	if (rd && rf) {
		n = strlen(rd);
		ok = !strncmp(rf, rd, n) && (rf[n] == '/' || !rf[n]);
	}
	free(rd);
	free(rf);
	free(full);
	free(dir);
	return ok;
}

/* One line of @file: the option it sets into @p; false (said) if bad. */
static bool config_line(struct prog *p, const char *file, unsigned int at,
			char *line)
{
	char *arg = NULL, *end, *dir;
	size_t i, n;

	if (!strncmp(line, "-W", 2) && line[2]) {
		arg = line + 2;
		i = 0;
		while (i < ARRAY_SIZE(options) && options[i].id != OPT_WARN)
			i++;
	} else {
		if (strncmp(line, "--", 2))
			goto bad;
		n = strcspn(line + 2, "= \t");
		for (i = 0; i < ARRAY_SIZE(options); i++)
			if (options[i].name && strlen(options[i].name) == n &&
			    !strncmp(options[i].name, line + 2, n))
				break;
		if (i == ARRAY_SIZE(options) ||
		    !in_list(config_ok, ARRAY_SIZE(config_ok), options[i].id))
			goto bad;
		if (line[2 + n])
			arg = line + 2 + n + 1 + strspn(line + 3 + n, " \t");
		if (!options[i].arg != !arg || (arg && !*arg))
			goto bad;
	}
	if (arg && in_list(config_path, ARRAY_SIZE(config_path),
			   options[i].id) && !config_path_inside(file, arg)) {
		diag_error("%s:%u: --%s: a configuration file names files "
			   "inside its tree only", file, at, options[i].name);
		return false;
	}
	if (arg && in_list(config_path, ARRAY_SIZE(config_path),
			   options[i].id)) {
		dir = xstrdup(file);
		end = strrchr(dir, '/');
		if (end)
			*end = '\0';
		arg = xasprintf("%s/%s", end ? dir : ".", arg);
		free(dir);
	} else if (arg) {
		arg = xstrdup(arg);
	}
	if (arg)
		*PUSH(p->config_args, p->nr_config_args,
		      p->alloc_config_args) = arg;
	if (take(p, options[i].id, arg))
		return true;
	diag_error("%s:%u: the option above is wrong", file, at);
	return false;
bad:
	diag_error("%s:%u: '%s': not an option a configuration file sets "
		   "(-W<rule>, --only, --roots, --roots-dir, --root-set, "
		   "--waivers, --baseline, --outer, --machine, --features, "
		   "--context, --min-analysed, "
		   "--max-targets, --all-chains, --per-root, --tu-timeout)",
		   file, at, line);
	return false;
}

/* The options of @file into @p; false (said) when one is bad. */
static bool read_config(struct prog *p, const char *file)
{
	char err[1024], buf[4096];
	unsigned int at = 0;
	bool ok = true;
	FILE *f;

	/*
	 * The file itself as the files it names: a .trapcheck that is a
	 * symbolic link out of its tree (to /proc/self/environ) is not read,
	 * so that no error quotes what it holds.
	 */
	if (!config_path_inside(file, ".trapcheck")) {
		diag_error("%s: a symbolic link out of its tree: not read",
			   file);
		return false;
	}
	if (input_open(file, "configuration", INPUT_MAX_LIST, &f, err,
		       sizeof(err))) {
		diag_error("%s", err);
		return false;
	}
	while (ok && fgets(buf, sizeof(buf), f)) {
		char *s = buf + strspn(buf, " \t"), *e;

		at++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == ' ' ||
				 e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (*s && *s != '#')
			ok = config_line(p, file, at, s);
	}
	fclose(f);
	return ok;
}

/* The tree's .trapcheck: -p DIR's, the compile database's directory's,
 * or (make O=) the source tree's; NULL when there is none. */
static char *find_config(const struct prog *p)
{
	const char *base = p->ao.srctree ? p->ao.srctree : p->tree;
	struct stat st;
	char *dir, *path, *slash;

	if (!base || !*base)
		return NULL;
	dir = xstrdup(base);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
		} else {
			free(dir);
			dir = xstrdup(".");
		}
	}
	path = xasprintf("%s/.trapcheck", dir);
	if (stat(path, &st)) {
		free(path);
		path = xasprintf("%s/source/.trapcheck", dir);
		if (stat(path, &st)) {
			free(path);
			path = NULL;
		}
	}
	free(dir);
	return path;
}

/* The modes, first match wins; the default reports the findings. */
static int (*mode(const struct prog *p))(struct prog *)
{
	if (p->cmd && !strcmp(p->cmd, "trace"))
		return cmd_trace;
	if (p->cmd && strcmp(p->cmd, "report"))
		return cmd_query;
	if (p->print_commands || p->list_roots || p->list_caps)
		return cmd_list;
	if (p->diff || p->diff_range)
		return cmd_diff;
	if (p->fo.print || p->fo.dir || p->fo.apply || p->cocci)
		return cmd_fix;
	return cmd_scan;
}

/* Do the options given fit the mode they run in? False (said) if not. */
static bool modes_agree(const struct prog *p)
{
	if (p->ao.shard_n &&
	    (!p->tree || !p->ao.db_path || mode(p) != cmd_scan || p->cmd ||
	     p->output || p->baseline || p->write_baseline || p->graph_dir ||
	     p->html)) {
		diag_error("--shard needs -p and --db and stores facts only "
			   "(no -o, --fix, --diff, baselines or pictures): "
			   "trapcheck report --db joins the shards");
		return false;
	}
	if ((p->vmlinux || p->kaslr_given || p->guest_text_given ||
	     p->rank_measured) && mode(p) != cmd_trace) {
		diag_error("--vmlinux, --kaslr-offset, --guest-text and --rank "
			   "are trapcheck trace's");
		return false;
	}
	if (!strcmp(p->format, "codequality") && mode(p) == cmd_trace) {
		diag_error("trapcheck trace writes text, json or sarif, not "
			   "codequality");
		return false;
	}
	if (p->diff && p->diff_range) {
		diag_error("--diff or --diff-range, not both");
		return false;
	}
	if (p->kaslr_given && p->guest_text_given) {
		diag_error("--kaslr-offset or --guest-text, not both");
		return false;
	}
	if (strcmp(p->format, "text") && strcmp(p->format, "json") &&
	    strcmp(p->format, "sarif") && strcmp(p->format, "codequality")) {
		diag_error("unknown format '%s' (text, json, sarif, "
			   "codequality)", p->format);
		return false;
	}
	return true;
}

/* What a run starts with, before any option. */
static void defaults(struct prog *p)
{
	p->format = "text";
	p->context = "all";
	p->fo.verify = true;
	p->min = (struct min_analysed){ 90, true };
	switches_init(&p->sw, RULE_ERROR);
	p->ao.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	p->ao.tu_timeout = 300;
	p->ao.tu_memory_mib = 4096;
	p->ao.machine = "guest";
	p->ao.assembly = true;
	p->ao.fault = getenv("TRAPCHECK_FAULT");
	p->ao.bodyskip_stats = getenv("TRAPCHECK_BODYSKIP_STATS") != NULL;
}

/* The terminal the progress line is for: $COLUMNS and $TERM. */
static void terminal_from_env(void)
{
	const char *cols = getenv("COLUMNS"), *term = getenv("TERM");

	diag_terminal(cols && atoi(cols) > 0 ? (unsigned int)atoi(cols) : 0,
		      !term || !*term || !strcmp(term, "dumb"));
}

/*
 * What a mode printed to stdout (a diff, a query's answer, the roots) is
 * its output as much as -o's file: flushed and checked here, whatever
 * the mode, so a full disk or a closed pipe is an error, exit status 3
 * (TC_EXIT_OUTPUT), not a silent loss. A mode that said so already
 * (TC_EXIT_OUTPUT) is not told again; an interrupted run stays 130.
 */
static int stdout_done(int ret)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return ret;
	if (ret != TC_EXIT_OUTPUT && ret != TC_EXIT_INTERRUPTED)
		diag_error("<stdout>: cannot write: %s",
			   strerror(errno ? errno : EIO));
	/* exit() must not try again. */
	clearerr(stdout);
	fclose(stdout);
	return ret == TC_EXIT_INTERRUPTED ? ret : TC_EXIT_OUTPUT;
}

int main(int argc, char **argv)
{
	struct prog p = { 0 };
	char *config;
	int ret, words = 0;
	size_t i;

	/*
	 * A reader that closed the pipe is a write that fails (EPIPE): the
	 * end of the run says so and exits 3, as for a full disk, rather
	 * than dying of SIGPIPE with nothing said.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return stdout_done(cmd_check(argc - 1, argv + 1));
	for (i = 0; argc > 1 && i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			p.cmd = commands[i].name;
			words = commands[i].words;
			argv[1] = argv[0];
			argc--;
			argv++;
			break;
		}
	}
	defaults(&p);
	ret = parse(&p, argc, argv);
	if (ret >= 0)
		goto out_free;
	/* The tree's .trapcheck first, then the command line again. */
	config = p.no_config ? NULL : find_config(&p);
	if (config) {
		const char *cmd = p.cmd;

		free(p.extra_roots);
		free(p.only);
		free(p.more_dbs);
		memset(&p, 0, sizeof(p));
		p.cmd = cmd;
		p.config = config;
		defaults(&p);
		ret = read_config(&p, config) ? -1 : TC_EXIT_USAGE;
		optind = 0;
		if (ret < 0)
			ret = parse(&p, argc, argv);
		if (ret >= 0)
			goto out_free;
	}
	ret = TC_EXIT_USAGE;
	if (!p.tree && !(p.cmd && p.ao.db_path) && !p.list_roots) {
		diag_error("no tree: give -p TREE (its compile_commands.json)%s "
			   "(trapcheck --help)", p.cmd ? " or --db FILE" : "");
		goto out_free;
	}
	if (argc - optind != words) {
		diag_error("%s takes %d argument%s, not %d (trapcheck --help)",
			   p.cmd ? p.cmd : "a run", words, words == 1 ? "" : "s",
			   argc - optind);
		goto out_free;
	}
	if (p.tree && !*p.tree) {
		diag_error("-p: an empty path (give the tree, or its compile "
			   "database)");
		goto out_free;
	}
	if (!p.tree && mode(&p) == cmd_fix) {
		diag_error("--fix, --fix-dir, --apply and --emit-cocci verify "
			   "each fix by parsing the patched files again: they "
			   "need -p TREE (its compile database)");
		goto out_free;
	}
	if (p.nr_more_dbs && (p.tree || !p.cmd || strcmp(p.cmd, "report"))) {
		diag_error("--db given %zu times: only trapcheck report "
			   "(without -p) joins databases",
			   p.nr_more_dbs + 1);
		goto out_free;
	}
	if (p.ao.db_out && (p.tree || !p.cmd || strcmp(p.cmd, "report"))) {
		diag_error("--db-out is trapcheck report's (without -p): it "
			   "writes the databases it joins into one");
		goto out_free;
	}
	p.ao.more_dbs = p.more_dbs;
	p.ao.nr_more_dbs = p.nr_more_dbs;
	if (!modes_agree(&p))
		goto out_free;
	diag_setup("trapcheck", p.quiet, p.eo.verbose);
	terminal_from_env();
	if (p.config)
		diag_info("options from %s", p.config);
	p.words = argv + optind;
	if (p.print_commands && p.tree)
		ret = cmd_list(&p);
	else if (!(ret = prog_roots(&p)))
		ret = mode(&p)(&p);
	roots_free(&p.roots);
	free(p.roots_path);
	free((char *)p.ao.compdb);
out_free:
	free(p.extra_roots);
	free(p.only);
	free(p.more_dbs);
	for (i = 0; i < p.nr_config_args; i++)
		free(p.config_args[i]);
	free(p.config_args);
	free(p.config);
	return stdout_done(ret);
}
