// SPDX-License-Identifier: GPL-2.0
/*
 * prog.c - what the program's modes share: the root sets, the analysis
 * with its one-line errors and exit statuses, and the report stage.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "trapcheck/output/baseline.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/output/picture.h"
#include "trapcheck/base/util.h"

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

int prog_roots(struct prog *p)
{
	char err[1024];
	size_t i;

	p->roots_path = p->roots_dir ? xstrdup(p->roots_dir) :
				       default_roots_dir();
	if (!p->roots_path) {
		diag_error("no root sets found: pass --roots-dir or set "
			   "TRAPCHECK_ROOTS_DIR");
		return TC_EXIT_USAGE;
	}
	if (roots_load_dir(&p->roots, p->roots_path, err, sizeof(err)))
		return prog_fail(err, TC_EXIT_USAGE);
	for (i = 0; i < p->nr_extra; i++)
		if (roots_load_file(&p->roots, p->extra_roots[i], err,
				    sizeof(err)))
			return prog_fail(err, TC_EXIT_USAGE);
	if (p->root_set && roots_select(&p->roots, p->root_set, err,
					sizeof(err)))
		return prog_fail(err, TC_EXIT_USAGE);
	return 0;
}

/* -p DIR means DIR/compile_commands.json, as for clang tools. */
char *prog_compdb(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	if ((!stat(path, &st) && S_ISDIR(st.st_mode)) ||
	    (stat(path, &st) && (n < 5 || strcmp(path + n - 5, ".json"))))
		return xasprintf("%s/compile_commands.json", path);
	return xstrdup(path);
}

/* --context: guest, or nested (a KVM host's reads). */
static bool in_context(const struct finding *f, void *context)
{
	return !strcmp(finding_context(f), context);
}

/* --only DIR: a file under one of the directories (or that file). */
static bool under_only(const struct finding *f, void *data)
{
	const struct prog *p = data;
	size_t i, n;

	for (i = 0; i < p->nr_only; i++) {
		const char *d = p->only[i];

		while (d[0] == '.' && d[1] == '/')
			d += 2;
		n = strlen(d);
		while (n && d[n - 1] == '/')
			n--;
		if (!n || !strcmp(d, "."))
			return true;
		if (f->site->file && !strncmp(f->site->file, d, n) &&
		    (!f->site->file[n] || f->site->file[n] == '/'))
			return true;
	}
	return false;
}

/* Does @d (a path relative to the tree, no "./", no last '/') hold @f? */
static bool holds(const char *d, size_t n, const char *f)
{
	return f && !strncmp(f, d, n) && (!f[n] || f[n] == '/');
}

/*
 * --only names paths of the tree: a path outside it, or one no analysed
 * file is under (a typo), would filter every finding out and let a CI
 * gate pass having checked nothing. An absolute path inside the tree is
 * taken relative to it. Returns 0, or an exit status (the error said).
 */
static int check_only(struct prog *p, const struct analysis *a)
{
	size_t i, j, n, rn = a->root ? strlen(a->root) : 0;

	for (i = 0; i < p->nr_only; i++) {
		const char *d = p->only[i];
		bool found = false;

		if (d[0] == '/' && rn && !strncmp(d, a->root, rn) &&
		    (!d[rn] || d[rn] == '/'))
			d += rn + (d[rn] == '/');
		else if (d[0] == '/') {
			diag_error("--only %s: not inside the tree (%s): give a "
				   "path relative to it", d,
				   a->root ? a->root : "unknown");
			return TC_EXIT_USAGE;
		}
		while (d[0] == '.' && d[1] == '/')
			d += 2;
		p->only[i] = d;
		n = strlen(d);
		while (n && d[n - 1] == '/')
			n--;
		if (!n || (n == 1 && d[0] == '.'))
			continue;
		for (j = 0; !found && j < a->graph.nr_nodes; j++)
			found = holds(d, n, a->graph.nodes[j].file);
		for (j = 0; !found && j < a->graph.nr_sinks; j++)
			found = holds(d, n, a->graph.sinks[j].file);
		if (!found) {
			diag_error("--only %s: no analysed file is there (a "
				   "path of the tree, relative to %s)", d,
				   a->root ? a->root : "it");
			return TC_EXIT_USAGE;
		}
	}
	return 0;
}

int prog_select(struct prog *p, struct analysis *a)
{
	int ret = check_only(p, a);

	if (ret)
		return ret;
	if (strcmp(p->context, "all")) {
		findings_filter_into(&a->findings, in_context,
				     (void *)p->context, &a->hidden);
		findings_filter_into(&a->low, in_context, (void *)p->context,
				     &a->hidden);
	}
	switches_filter(&p->sw, &a->findings, &a->hidden);
	switches_filter(&p->sw, &a->low, &a->hidden);
	if (p->nr_only) {
		findings_filter_into(&a->findings, under_only, (void *)p,
				     &a->hidden);
		findings_filter_into(&a->low, under_only, (void *)p,
				     &a->hidden);
	}
	return 0;
}

/*
 * The sanitizer builds free what a program leaves at exit
 * (prog_analysed()): gcc says so with __SANITIZE_ADDRESS__, clang with
 * __has_feature() (address or leak sanitizer).
 */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define FREE_AT_EXIT 1
#endif
#endif
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

int prog_analyse(struct prog *p, struct analysis *a)
{
	char err[1024];
	int ret;

	/*
	 * Without -p, a subcommand links what the facts database holds.
	 * (Fix verification analyses again with the same options: main()
	 * frees the path.)
	 */
	if (p->tree && !p->ao.compdb)
		p->ao.compdb = prog_compdb(p->tree);
	p->ao.progress = !p->no_progress && !p->quiet &&
			 isatty(STDERR_FILENO);
	ret = analysis_run(a, &p->ao, &p->roots, err, sizeof(err));
	if (ret == -EINTR) {
		diag_status("%s", err);
		return TC_EXIT_INTERRUPTED;
	}
	if (ret == -EIO)
		return prog_fail(err, TC_EXIT_OUTPUT);
	if (ret)
		return prog_fail(err, TC_EXIT_USAGE);
	ret = prog_select(p, a);
	if (ret)
		analysis_free(a);
	return ret;
}

/*
 * Fail closed: a run that analysed nothing, or fewer TUs than asked, must
 * not pass a CI gate. True (and why in one line) when it is incomplete.
 */
static bool incomplete(const struct tu_stats *s,
		       const struct min_analysed *m)
{
	size_t tried = s->entries - s->skipped;
	double need = m->percent ? m->value * (double)tried / 100 : m->value;

	if (s->tus && (double)s->tus >= need)
		return false;
	diag_error("%zu of %zu TUs analysed (%s %g%s): the findings would be "
		   "incomplete", s->tus, tried, s->tus ? "--min-analysed" :
		   "nothing analysed; --min-analysed", m->value,
		   m->percent ? "%" : "");
	return true;
}

int prog_fail(const char *err, int status)
{
	diag_error("%s", err);
	return status;
}

int prog_analysed(struct prog *p,
		  int (*mode)(struct prog *p, struct analysis *a))
{
	struct analysis a;
	int ret = prog_analyse(p, &a);

	if (ret)
		return ret;
	ret = mode(p, &a);
	/*
	 * main() returns next: the kernel takes the graph's millions of
	 * allocations back at exit faster than free() does (5% of a warm
	 * run on the whole arm64 build). A sanitizer build frees them, so
	 * that a leak stays a leak.
	 */
	if (FREE_AT_EXIT)
		analysis_free(&a);
	return ret;
}

int prog_status(const struct prog *p, const struct analysis *a)
{
	if (incomplete(&a->tus, &p->min))
		return TC_EXIT_INCOMPLETE;
	/* -Wno-error=RULE: printed, not failing. */
	return switches_errors(&p->sw, &a->findings) ? TC_EXIT_FINDINGS :
						       TC_EXIT_CLEAN;
}

/*
 * A waiver of a function the analysed graph does not have waives
 * nothing: a typo, or a function renamed since. Said, as a warning (the
 * analysed part of a tree may lack the TU that has it).
 */
static void waivers_unknown(const struct waivers *w, const struct graph *g)
{
	size_t i, j;

	for (i = 0; i < w->nr; i++) {
		bool found = false;

		if (!w->v[i].func && w->v[i].file) {
			/* FILE:LINE: a file the graph has a function of. */
			for (j = 0; j < g->nr_nodes && !found; j++)
				found = g->nodes[j].file &&
					!strcmp(g->nodes[j].file,
						w->v[i].file);
			if (!found)
				diag_at(w->v[i].origin, "warning", "waiver for "
					"%s: no file '%s' in the analysed "
					"tree", w->v[i].rule, w->v[i].file);
			continue;
		}
		if (!w->v[i].func)
			continue;
		for (j = 0; j < g->nr_nodes && !found; j++)
			found = g->nodes[j].defined &&
				!strcmp(g->nodes[j].name, w->v[i].func);
		if (!found)
			diag_at(w->v[i].origin, "warning", "waiver for %s: no "
				"function '%s' in the analysed tree",
				w->v[i].rule, w->v[i].func);
	}
}

/*
 * Waivers, then the baseline to write (every unwaived finding), then the
 * baseline to compare with, then the pictures of what is left. Returns 0
 * or an exit status (the error said).
 */
static int report_stage(const struct prog *p, struct analysis *a)
{
	struct waivers w = { 0 };
	struct summary sum;
	char err[1024] = "";
	int ret = 0;

	if (p->waivers && waivers_load(&w, p->waivers, err, sizeof(err)))
		return prog_fail(err, TC_EXIT_USAGE);
	waivers_unknown(&w, &a->graph);
	/* Each bad waiver is said where it is. */
	ret = waivers_apply(&w, a->root, &a->findings, &a->baseline,
			    p->no_waivers);
	waivers_free(&w);
	if (ret)
		return TC_EXIT_USAGE;
	if (p->write_baseline &&
	    baseline_write(p->write_baseline, a->root, &a->findings, err,
			   sizeof(err)))
		return prog_fail(err, TC_EXIT_OUTPUT);
	if (p->baseline &&
	    baseline_apply(p->baseline, a->root, &a->findings, &a->baseline, err,
			   sizeof(err)))
		return prog_fail(err, TC_EXIT_USAGE);
	if (p->graph_dir &&
	    picture_graphs(p->graph_dir, &a->findings, err, sizeof(err)))
		return prog_fail(err, TC_EXIT_OUTPUT);
	analysis_summary(a, &sum);
	if (p->html &&
	    picture_html(p->html, &a->findings, &sum, a->root, err,
			 sizeof(err)))
		return prog_fail(err, TC_EXIT_OUTPUT);
	return 0;
}

static int emit(FILE *out, const struct prog *p, const struct analysis *a)
{
	struct summary sum;
	int ret;

	analysis_summary(a, &sum);
	if (!strcmp(p->format, "json"))
		return emit_json(out, &a->findings, &a->low, &sum);
	if (!strcmp(p->format, "codequality"))
		return emit_codequality(out, &a->findings, &a->low);
	if (!strcmp(p->format, "sarif"))
		return emit_sarif(out, &a->findings, &a->low, &sum, a->root);
	ret = emit_text(out, &a->findings, &p->eo);
	emit_low(out, &a->low);
	return ret || ferror(out) ? -EIO : 0;
}

/* Are @a and @b the same existing file? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int prog_report(struct prog *p, struct analysis *a)
{
	struct out_file o = { .f = stdout };
	struct summary sum;
	int ret = report_stage(p, a), err;

	if (ret)
		return ret;
	/* The run's own inputs are not output: what is stored stays. */
	if (same_file(p->output, p->ao.db_path) ||
	    same_file(p->output, p->ao.compdb)) {
		diag_error("%s: -o names the run's %s: not overwritten",
			   p->output, same_file(p->output, p->ao.db_path) ?
			   "facts database (--db)" : "compile database");
		return TC_EXIT_USAGE;
	}
	/* To -o through a temporary name: a failed run leaves no half file. */
	if (p->output && (ret = out_open(&o, p->output))) {
		diag_error("%s: cannot write: %s", p->output, strerror(-ret));
		return TC_EXIT_OUTPUT;
	}
	errno = 0;
	ret = emit(o.f, p, a);
	err = errno;
	if (p->output && ret)
		out_abort(&o);
	else if (p->output)
		ret = out_close(&o);
	else if (fflush(stdout))
		ret = -EIO;
	if (ret) {
		/* The write's own reason: No space, Broken pipe. */
		err = err ? err : errno ? errno : EIO;
		diag_error("%s: cannot write: %s", p->output ? p->output :
			   "<stdout>", strerror(err));
		return TC_EXIT_OUTPUT;
	}
	analysis_summary(a, &sum);
	if (!p->quiet)
		emit_summary(stderr, &sum, a->findings.nr);
	return prog_status(p, a);
}
