// SPDX-License-Identifier: GPL-2.0
/*
 * trapcheck - find trapping ID register reads, local-CPU capability
 * checks and slow entropy instructions reachable from kernel hot paths.
 *
 * Usage: trapcheck [options] -p <tree or compile_commands.json>
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trapcheck/analyze.h"
#include "trapcheck/baseline.h"
#include "trapcheck/picture.h"
#include "trapcheck/query.h"
#include "trapcheck/caps.h"
#include "trapcheck/cocci-emit.h"
#include "trapcheck/emit.h"
#include "trapcheck/fix.h"
#include "trapcheck/patchlint.h"
#include "trapcheck/roots.h"
#include "trapcheck/util.h"

#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

enum {
	OPT_FORMAT = 256, OPT_ROOTS, OPT_ROOTS_DIR, OPT_NO_PROGRESS,
	OPT_PRINT_COMMANDS, OPT_LIST_CAPS, OPT_DIFF, OPT_FIX, OPT_FIX_DIR,
	OPT_APPLY, OPT_SIGNOFF, OPT_NO_VERIFY, OPT_BASELINE,
	OPT_WRITE_BASELINE, OPT_WAIVERS, OPT_NO_WAIVERS, OPT_GRAPH, OPT_HTML,
	OPT_DB, OPT_ROOT_SET, OPT_LIST_ROOTS, OPT_MAX_TARGETS,
	OPT_TU_TIMEOUT, OPT_NO_ISOLATE, OPT_EMIT_COCCI, OPT_MIN_ANALYSED,
	OPT_CONTEXT, OPT_PER_ROOT, OPT_ALL_CHAINS,
};

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "roots", required_argument, NULL, OPT_ROOTS },
	{ "roots-dir", required_argument, NULL, OPT_ROOTS_DIR },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "print-clang-commands", no_argument, NULL, OPT_PRINT_COMMANDS },
	{ "list-caps", no_argument, NULL, OPT_LIST_CAPS },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "fix", no_argument, NULL, OPT_FIX },
	{ "fix-dir", required_argument, NULL, OPT_FIX_DIR },
	{ "apply", no_argument, NULL, OPT_APPLY },
	{ "emit-cocci", required_argument, NULL, OPT_EMIT_COCCI },
	{ "signoff", required_argument, NULL, OPT_SIGNOFF },
	{ "no-verify", no_argument, NULL, OPT_NO_VERIFY },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "write-baseline", required_argument, NULL, OPT_WRITE_BASELINE },
	{ "waivers", required_argument, NULL, OPT_WAIVERS },
	{ "no-waivers", no_argument, NULL, OPT_NO_WAIVERS },
	{ "graph", required_argument, NULL, OPT_GRAPH },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "db", required_argument, NULL, OPT_DB },
	{ "root-set", required_argument, NULL, OPT_ROOT_SET },
	{ "list-roots", no_argument, NULL, OPT_LIST_ROOTS },
	{ "max-targets", required_argument, NULL, OPT_MAX_TARGETS },
	{ "tu-timeout", required_argument, NULL, OPT_TU_TIMEOUT },
	{ "no-isolate", no_argument, NULL, OPT_NO_ISOLATE },
	{ "min-analysed", required_argument, NULL, OPT_MIN_ANALYSED },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "per-root", no_argument, NULL, OPT_PER_ROOT },
	{ "all-chains", no_argument, NULL, OPT_ALL_CHAINS },
	{ "output", required_argument, NULL, 'o' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: trapcheck [options] -p <tree | compile_commands.json>\n"
	      "       trapcheck report --db FILE [options]\n"
	      "       trapcheck callers|callees FN  (-p TREE | --db FILE)\n"
	      "       trapcheck path FROM TO        (-p TREE | --db FILE)\n"
	      "       trapcheck why FILE:LINE       (-p TREE | --db FILE)\n"
	      "       trapcheck check --db=FILE <gcc flags> file.c  "
	      "(make C=1 CHECK=...)\n"
	      "  -p PATH            the tree (its compile_commands.json) or "
	      "the database\n"
	      "  --format=FMT       text (gcc-style, default), json or sarif\n"
	      "  -o, --output FILE  write findings to FILE (atomically)\n"
	      "  --roots FILE       add a root set file (name.roots)\n"
	      "  --roots-dir DIR    use DIR's *.roots instead of the "
	      "shipped sets\n"
	      "  --root-set A,B     only these root sets\n"
	      "  --max-targets N    follow calls through a struct member "
	      "with at most N targets (32)\n"
	      "  --list-roots       print the root sets (with -p: which "
	      "roots exist)\n"
	      "  -j, --jobs N       parser processes (default: CPUs)\n"
	      "  --tu-timeout SECS  give up a TU's parse after SECS "
	      "(300; 0: never)\n"
	      "  --no-isolate       parse in threads, not processes "
	      "(a crash ends the run)\n"
	      "  --min-analysed N|P%  fail (exit 4) when fewer TUs were "
	      "analysed (90%)\n"
	      "  --context=C        guest, nested (KVM host code) or all "
	      "(default)\n"
	      "  --per-root         one finding per root set, not per site\n"
	      "  --all-chains       warn of sites reached only through "
	      "chains of low confidence\n"
	      "  --db FILE          facts database: re-parse only what "
	      "changed\n"
	      "  -v, --verbose      a note for every step of each chain\n"
	      "  -q, --quiet        no summary on stderr\n"
	      "  --no-progress      no progress line on a terminal\n"
	      "  --print-clang-commands  print the plain clang command of "
	      "each TU\n"
	      "  --list-caps        print the capabilities and sanitised "
	      "registers read from the tree\n"
	      "  --diff PATCH       report what PATCH adds to hot paths or "
	      "removes from guards\n"
	      "  --fix              print the verified fixes as a diff on "
	      "stdout\n"
	      "  --fix-dir DIR      write one git format-patch file per "
	      "verified fix\n"
	      "  --apply            apply the verified fixes to the tree\n"
	      "  --emit-cocci FILE  write the verified fixes as a semantic "
	      "patch (make coccicheck)\n"
	      "  --signoff ID       author and Signed-off-by of the patches\n"
	      "  --write-baseline F write the findings' fingerprints to F\n"
	      "  --baseline F       report only findings not in baseline F\n"
	      "  --waivers F        waivers file: <rule> <function|file:line> "
	      "<reason>\n"
	      "  --no-waivers       show waived findings too\n"
	      "  --graph DIR        one DOT (and SVG) picture per finding\n"
	      "  --html FILE        one self-contained page of the findings\n"
	      "exit: 0 no findings, 1 findings, 2 usage or input error, "
	      "3 output not written, 4 too few TUs analysed, "
	      "130 interrupted\n", f);
}

/* The shipped root sets: beside the binary, or installed. */
static char *default_roots_dir(void)
{
	char exe[PATH_MAX], *slash, *dir;
	const char *env = getenv("TRAPCHECK_ROOTS_DIR");
	struct stat st;
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	dir = xasprintf("%s/roots", exe);
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return dir;
	free(dir);
	dir = xasprintf("%s/../share/trapcheck/roots", exe);
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return dir;
	free(dir);
	return NULL;
}

/* -p DIR means DIR/compile_commands.json, as for clang tools. */
static char *find_compdb(const char *p)
{
	struct stat st;
	size_t n = strlen(p);

	if ((!stat(p, &st) && S_ISDIR(st.st_mode)) ||
	    (stat(p, &st) && (n < 5 || strcmp(p + n - 5, ".json"))))
		return xasprintf("%s/compile_commands.json", p);
	return xstrdup(p);
}

static int emit(FILE *out, const struct analysis *a, const char *format,
		const struct emit_opts *eo)
{
	int ret;

	if (!strcmp(format, "json"))
		return emit_json(out, &a->findings, &a->low, &a->summary);
	if (!strcmp(format, "sarif"))
		return emit_sarif(out, &a->findings, &a->low, &a->summary,
				  a->root);
	ret = emit_text(out, &a->findings, eo);
	emit_low(out, &a->low);
	return ret || ferror(out) ? -EIO : 0;
}

struct report_opts {
	const char *baseline, *write_baseline, *waivers;
	const char *graph_dir, *html;
	bool no_waivers;
};

/*
 * Waivers, then the baseline to write (every unwaived finding), then the
 * baseline to compare with, then the pictures of what is left.
 */
static int report_stage(struct analysis *a, const struct report_opts *r,
			char *err, size_t errlen)
{
	struct waivers w = { 0 };
	int ret = 0;

	*err = '\0';
	if (r->waivers && waivers_load(&w, r->waivers, err, errlen))
		return -EINVAL;
	if (waivers_apply(&w, a->root, &a->findings, &a->summary,
			  r->no_waivers))
		ret = -EINVAL;	/* each one already printed */
	waivers_free(&w);
	if (ret)
		return ret;
	if (r->write_baseline &&
	    baseline_write(r->write_baseline, &a->findings, err, errlen))
		return -EIO;
	if (r->baseline &&
	    baseline_apply(r->baseline, &a->findings, &a->summary, err,
			   errlen))
		return -EINVAL;
	if (r->graph_dir &&
	    picture_graphs(r->graph_dir, &a->findings, err, errlen))
		return -EIO;
	if (r->html &&
	    picture_html(r->html, &a->findings, &a->summary, a->root, err,
			 errlen))
		return -EIO;
	return 0;
}

/*
 * Emit to stdout, or to @output through a temporary name renamed into
 * place, so that a failed run never leaves half a file. Returns 0 or
 * TC_EXIT_OUTPUT.
 */
static int write_findings(const struct analysis *a, const char *format,
			  const char *output, const struct emit_opts *eo,
			  bool quiet)
{
	char *tmp = NULL;
	FILE *out = stdout;
	struct stat st;
	int ret;

	if (output && !stat(output, &st) && !S_ISREG(st.st_mode)) {
		/* A device or a pipe: write in place, never rename over it. */
		out = fopen(output, "w");
		if (!out) {
			fprintf(stderr, "trapcheck: error: %s: cannot write: "
				"%s\n", output, strerror(errno));
			return TC_EXIT_OUTPUT;
		}
		ret = emit(out, a, format, eo);
		if (fclose(out) || ret) {
			fprintf(stderr, "trapcheck: error: %s: write failed\n",
				output);
			return TC_EXIT_OUTPUT;
		}
		output = NULL;
		out = NULL;
	} else if (output) {
		tmp = xasprintf("%s.tmp.%d", output, (int)getpid());
		out = fopen(tmp, "w");
		if (!out) {
			fprintf(stderr, "trapcheck: error: %s: cannot write: "
				"%s\n", output, strerror(errno));
			free(tmp);
			return TC_EXIT_OUTPUT;
		}
	}
	if (!out)
		ret = 0;	/* written in place above */
	else
		ret = emit(out, a, format, eo);
	if (output && fclose(out))
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "trapcheck: error: %s: write failed\n",
			output ? output : "<stdout>");
		if (tmp)
			unlink(tmp);
		free(tmp);
		return TC_EXIT_OUTPUT;
	}
	if (output && rename(tmp, output)) {
		fprintf(stderr, "trapcheck: error: %s: cannot rename into "
			"place: %s\n", output, strerror(errno));
		unlink(tmp);
		free(tmp);
		return TC_EXIT_OUTPUT;
	}
	free(tmp);
	if (!quiet)
		emit_summary(stderr, &a->summary, a->findings.nr);
	return 0;
}

/* --min-analysed: a count, or a share of the TUs tried ("90%"). */
struct min_analysed {
	double value;
	bool percent;
};

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
 * Fail closed: a run that analysed nothing, or fewer TUs than asked, must
 * not pass a CI gate. Returns true (and says why in one line) when the
 * run is incomplete.
 */
static bool incomplete(const struct run_summary *s,
		       const struct min_analysed *m)
{
	size_t tried = s->entries - s->skipped;
	double need = m->percent ? m->value * (double)tried / 100 : m->value;

	if (s->tus && (double)s->tus >= need)
		return false;
	fprintf(stderr, "trapcheck: error: %zu of %zu TUs analysed (%s "
		"%g%s): the findings would be incomplete\n", s->tus, tried,
		s->tus ? "--min-analysed" : "nothing analysed; --min-analysed",
		m->value, m->percent ? "%" : "");
	return true;
}

/* The patches' author: --signoff, git's environment, or trapcheck. */
static char *patch_author(const char *signoff)
{
	const char *name = getenv("GIT_AUTHOR_NAME");
	const char *mail = getenv("GIT_AUTHOR_EMAIL");

	if (signoff)
		return xstrdup(signoff);
	if (name && mail)
		return xasprintf("%s <%s>", name, mail);
	return xstrdup("trapcheck <trapcheck@localhost>");
}

/* Now, or SOURCE_DATE_EPOCH (reproducible builds). */
static time_t build_date(void)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");

	return epoch ? (time_t)atoll(epoch) : time(NULL);
}

/* --context: guest, or nested (a KVM host's reads). */
static bool in_context(const struct finding *f, void *context)
{
	return !strcmp(f->context, context);
}

/* Subcommands and how many words follow their options. */
static const struct {
	const char *name;
	int args;
} commands[] = {
	{ "report", 0 }, { "callers", 1 }, { "callees", 1 }, { "path", 2 },
	{ "why", 1 },
};

/*
 * --list-roots: "set<TAB>weight<TAB>function<TAB>reason", and with a
 * graph whether the function exists there. Returns the number missing.
 */
static int print_roots(FILE *out, const struct root_sets *rs,
		       const struct graph *g)
{
	size_t i, j, missing = 0;

	for (i = 0; i < rs->nr; i++) {
		const struct root_set *s = &rs->sets[i];

		for (j = 0; j < s->nr; j++) {
			int n[1];
			bool have = g && graph_find_name(g, s->funcs[j], n, 1);

			fprintf(out, "%s\t%g\t%s\t%s", s->name, s->weight,
				s->funcs[j], s->reasons[j]);
			if (g) {
				fprintf(out, "\t%s", have ? "present" :
					"missing");
				missing += !have;
			}
			fputc('\n', out);
		}
	}
	return (int)missing;
}

static int run_query(const char *cmd, char **words, const struct analysis *a,
		     const struct root_sets *roots)
{
	int r;

	if (!strcmp(cmd, "callers"))
		r = query_callers(stdout, &a->graph, words[0]);
	else if (!strcmp(cmd, "callees"))
		r = query_callees(stdout, &a->graph, words[0]);
	else if (!strcmp(cmd, "path"))
		r = query_path(stdout, &a->graph, words[0], words[1]);
	else
		r = query_why(stdout, &a->graph, roots, words[0]);
	if (r < 0) {
		fprintf(stderr, "trapcheck: error: %s: bad argument\n", cmd);
		return TC_EXIT_USAGE;
	}
	if (r)
		fprintf(stderr, "trapcheck: %s: nothing found\n", cmd);
	return r ? TC_EXIT_FINDINGS : TC_EXIT_CLEAN;
}

int main(int argc, char **argv)
{
	const char *tree = NULL, *format = "text", *output = NULL;
	const char *roots_dir_opt = NULL, *diff = NULL, *cocci = NULL;
	struct emit_opts eo = { 0 };
	struct analysis_opts ao = { 0 };
	struct fix_opts fo = { .verify = true };
	struct report_opts rep = { 0 };
	struct root_sets roots = { 0 };
	struct min_analysed min = { 90, true };
	struct analysis a;
	const char **extra = NULL;
	size_t nr_extra = 0, alloc_extra = 0, i;
	char err[1024], *roots_dir = NULL;
	bool no_progress = false, quiet = false, print_commands = false;
	bool list_caps = false, list_roots = false;
	const char *cmd = NULL, *root_set = NULL, *context = "all";
	int c, ret = TC_EXIT_USAGE, nr_words = 0;

	if (argc > 1 && !strcmp(argv[1], "check"))
		return check_main(argc - 1, argv + 1);
	for (i = 0; argc > 1 && i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			cmd = commands[i].name;
			nr_words = commands[i].args;
			argv[1] = argv[0];
			argc--;
			argv++;
			break;
		}
	}
	ao.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	ao.tu_timeout = 300;
	while ((c = getopt_long(argc, argv, "p:o:j:vqhV", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			tree = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'j':
			ao.jobs = atoi(optarg);
			if (ao.jobs < 1) {
				fprintf(stderr, "trapcheck: error: -j needs a "
					"positive number, not '%s'\n", optarg);
				goto out_free_extra;
			}
			break;
		case 'v':
			eo.verbose = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_ROOTS:
			*PUSH(extra, nr_extra, alloc_extra) = optarg;
			break;
		case OPT_ROOTS_DIR:
			roots_dir_opt = optarg;
			break;
		case OPT_NO_PROGRESS:
			no_progress = true;
			break;
		case OPT_PRINT_COMMANDS:
			print_commands = true;
			break;
		case OPT_LIST_CAPS:
			list_caps = true;
			break;
		case OPT_DIFF:
			diff = optarg;
			break;
		case OPT_FIX:
			fo.print = true;
			break;
		case OPT_FIX_DIR:
			fo.dir = optarg;
			break;
		case OPT_APPLY:
			fo.apply = true;
			break;
		case OPT_EMIT_COCCI:
			cocci = optarg;
			break;
		case OPT_SIGNOFF:
			fo.meta.signoff = optarg;
			break;
		case OPT_NO_VERIFY:
			fo.verify = false;
			break;
		case OPT_BASELINE:
			rep.baseline = optarg;
			break;
		case OPT_WRITE_BASELINE:
			rep.write_baseline = optarg;
			break;
		case OPT_WAIVERS:
			rep.waivers = optarg;
			break;
		case OPT_NO_WAIVERS:
			rep.no_waivers = true;
			break;
		case OPT_GRAPH:
			rep.graph_dir = optarg;
			break;
		case OPT_HTML:
			rep.html = optarg;
			break;
		case OPT_DB:
			ao.db_path = optarg;
			break;
		case OPT_ROOT_SET:
			root_set = optarg;
			break;
		case OPT_LIST_ROOTS:
			list_roots = true;
			break;
		case OPT_MAX_TARGETS:
			ao.max_targets = (size_t)atol(optarg);
			if (!ao.max_targets) {
				fprintf(stderr, "trapcheck: error: --max-targets "
					"needs a positive number\n");
				goto out_free_extra;
			}
			break;
		case OPT_TU_TIMEOUT: {
			char *end;
			unsigned long t = strtoul(optarg, &end, 10);

			if (!*optarg || *end || t > 86400) {
				fprintf(stderr, "trapcheck: error: --tu-timeout "
					"needs seconds (0-86400)\n");
				goto out_free_extra;
			}
			ao.tu_timeout = (unsigned int)t;
			break;
		}
		case OPT_NO_ISOLATE:
			ao.no_isolate = true;
			break;
		case OPT_CONTEXT:
			if (strcmp(optarg, "guest") && strcmp(optarg, "nested") &&
			    strcmp(optarg, "all")) {
				fprintf(stderr, "trapcheck: error: --context "
					"is guest, nested or all, not '%s'\n",
					optarg);
				goto out_free_extra;
			}
			context = optarg;
			break;
		case OPT_PER_ROOT:
			ao.per_root = true;
			break;
		case OPT_ALL_CHAINS:
			ao.all_chains = true;
			break;
		case OPT_MIN_ANALYSED:
			if (!parse_min_analysed(optarg, &min)) {
				fprintf(stderr, "trapcheck: error: "
					"--min-analysed needs a count or a "
					"percentage, not '%s'\n", optarg);
				goto out_free_extra;
			}
			break;
		case 'h':
			usage(stdout);
			return TC_EXIT_CLEAN;
		case 'V':
			printf("trapcheck %s\n", TRAPCHECK_VERSION);
			return TC_EXIT_CLEAN;
		default:
			usage(stderr);
			goto out_free_extra;
		}
	}
	if ((!tree && !(cmd && ao.db_path) && !list_roots) ||
	    argc - optind != nr_words) {
		usage(stderr);
		goto out_free_extra;
	}
	if (strcmp(format, "text") && strcmp(format, "json") &&
	    strcmp(format, "sarif")) {
		fprintf(stderr, "trapcheck: error: unknown format '%s' "
			"(text, json, sarif)\n", format);
		goto out_free_extra;
	}

	if (print_commands && tree) {
		char *db = find_compdb(tree);

		ret = analysis_print_commands(db, stdout, err, sizeof(err));
		free(db);
		if (ret)
			goto out_err;
		ret = TC_EXIT_CLEAN;
		goto out_free_extra;
	}

	roots_dir = roots_dir_opt ? xstrdup(roots_dir_opt) :
				    default_roots_dir();
	if (!roots_dir) {
		fputs("trapcheck: error: no root sets found: pass "
		      "--roots-dir or set TRAPCHECK_ROOTS_DIR\n", stderr);
		goto out_free_extra;
	}
	if (roots_load_dir(&roots, roots_dir, err, sizeof(err)))
		goto out_err;
	for (i = 0; i < nr_extra; i++)
		if (roots_load_file(&roots, extra[i], err, sizeof(err)))
			goto out_err;
	if (root_set && roots_select(&roots, root_set, err, sizeof(err)))
		goto out_err;
	if (list_roots && !tree && !ao.db_path) {
		print_roots(stdout, &roots, NULL);
		ret = TC_EXIT_CLEAN;
		goto out_free_roots;
	}

	/* Without -p, a subcommand links what the facts database holds. */
	ao.compdb = tree ? find_compdb(tree) : NULL;
	ao.progress = !no_progress && !quiet && isatty(STDERR_FILENO);
	ret = analysis_run(&a, &ao, &roots, err, sizeof(err));
	if (ret == -EINTR) {
		fprintf(stderr, "trapcheck: %s\n", err);
		ret = TC_EXIT_INTERRUPTED;
		goto out_free_roots;
	}
	if (ret)
		goto out_err;
	if (strcmp(context, "all")) {
		findings_filter(&a.findings, in_context, (void *)context);
		findings_filter(&a.low, in_context, (void *)context);
	}
	if (cmd && nr_words) {
		ret = run_query(cmd, argv + optind, &a, &roots);
		analysis_free(&a);
		goto out_free_roots;
	}

	if (list_roots) {
		ret = print_roots(stdout, &roots, &a.graph) ? TC_EXIT_FINDINGS :
							       TC_EXIT_CLEAN;
		analysis_free(&a);
		goto out_free_roots;
	}
	if (list_caps) {
		ret = caps_print(stdout, &a.graph.caps) ? TC_EXIT_OUTPUT :
							  TC_EXIT_CLEAN;
		if (!quiet)
			emit_summary(stderr, &a.summary, a.findings.nr);
		analysis_free(&a);
		goto out_free_roots;
	}
	if (diff) {
		/* The patch's findings replace the tree's. */
		struct findings pf = { 0 };

		if (patchlint_run(diff, &a.graph, &roots, &pf, err,
				  sizeof(err))) {
			findings_free(&pf);
			analysis_free(&a);
			goto out_err;
		}
		findings_free(&a.findings);
		a.findings = pf;
	}
	if (fo.print || fo.dir || fo.apply || cocci) {
		struct fix_sites sites = { 0 };
		struct cocci_opts co;
		char *who = patch_author(fo.meta.signoff);
		int n;

		fo.meta.author = who;
		fo.meta.date = build_date();
		co.tree = a.root;
		co.date = fo.meta.date;

		fo.sites = cocci ? &sites : NULL;
		n = fixes_run(&a, &ao, &roots, &fo, err, sizeof(err));
		if (n >= 0 && !quiet && (fo.print || fo.dir || fo.apply))
			fprintf(stderr, "trapcheck: %d fix%s %s\n", n,
				n == 1 ? "" : "es", fo.apply ? "applied" :
				fo.dir ? "written" : "printed");
		if (n >= 0 && cocci) {
			n = cocci_emit(cocci, &sites, &co, err, sizeof(err));
			if (n >= 0 && !quiet)
				fprintf(stderr, "trapcheck: %d rule%s written "
					"to %s\n", n, n == 1 ? "" : "s", cocci);
		}
		fix_sites_free(&sites);
		free(who);
		if (n < 0) {
			analysis_free(&a);
			goto out_err_output;
		}
	}
	if (fo.print) {
		/* The diff is the output: notes about the rest on stderr. */
		for (size_t i = 0; i < a.findings.nr && !quiet; i++)
			if (a.findings.v[i].fix_note &&
			    strncmp(a.findings.v[i].fix_note, "fix:", 4))
				fprintf(stderr, "%s:%u:%u: note: %s\n",
					a.findings.v[i].file,
					a.findings.v[i].line,
					a.findings.v[i].col,
					a.findings.v[i].fix_note);
		ret = a.findings.nr ? TC_EXIT_FINDINGS : TC_EXIT_CLEAN;
		if (incomplete(&a.summary, &min))
			ret = TC_EXIT_INCOMPLETE;
		analysis_free(&a);
		goto out_free_roots;
	}
	ret = report_stage(&a, &rep, err, sizeof(err));
	if (ret) {
		analysis_free(&a);
		if (ret == -EINVAL && !*err)
			goto out_usage;
		if (ret == -EIO)
			goto out_err_output;
		goto out_err;
	}
	ret = write_findings(&a, format, output, &eo, quiet);
	if (!ret)
		ret = a.findings.nr ? TC_EXIT_FINDINGS : TC_EXIT_CLEAN;
	if (!ret || ret == TC_EXIT_FINDINGS)
		if (incomplete(&a.summary, &min))
			ret = TC_EXIT_INCOMPLETE;
	analysis_free(&a);
	goto out_free_roots;

out_err:
	fprintf(stderr, "trapcheck: error: %s\n", err);
out_usage:
	ret = TC_EXIT_USAGE;
	goto out_free_roots;
out_err_output:
	fprintf(stderr, "trapcheck: error: %s\n", err);
	ret = TC_EXIT_OUTPUT;
out_free_roots:
	free((char *)ao.compdb);
	roots_free(&roots);
	free(roots_dir);
out_free_extra:
	free(extra);
	return ret;
}
