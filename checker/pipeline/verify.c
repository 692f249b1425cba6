// SPDX-License-Identifier: GPL-2.0
/*
 * verify.c - a rewrite checked before it is written (verify.h): patch(1)
 * on a scratch copy, then a re-analysis with the patched files in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trapcheck/base/util.h"
#include "trapcheck/pipeline/verify.h"

extern char **environ;

static int run(char *const argv[])
{
	pid_t pid;
	int status;
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Step 1: the patch applies to a scratch copy of the file. */
bool verify_applies(const struct src_file *s, const char *patch,
		    char **why)
{
	char dir[] = "/tmp/trapcheck-fix.XXXXXX";
	char *file, *pfile, *slash;
	/* No fuzz: git am takes none either. */
	char *argv[] = { "patch", "-p1", "-F0", "--dry-run", "--silent", "-d",
			 dir, "-i", NULL, NULL };
	bool ok = false;
	char *orig;
	size_t i;

	if (!mkdtemp(dir)) {
		*why = xasprintf("patch --dry-run: no scratch directory: %s",
				 strerror(errno));
		return false;
	}
	file = xasprintf("%s/%s", dir, s->path);
	for (slash = strchr(file + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(file, 0755);
		*slash = '/';
	}
	orig = xstrdup("");
	for (i = 0; i < s->nr_lines; i++) {
		char *t = xasprintf("%s%s\n", orig, s->lines[i]);

		free(orig);
		orig = t;
	}
	pfile = xasprintf("%s/fix.patch", dir);
	argv[8] = pfile;
	if (write_atomic(file, orig) || write_atomic(pfile, patch))
		*why = xstrdup("patch --dry-run: cannot write the scratch copy");
	else if (run(argv) != 0)
		*why = xstrdup("patch --dry-run: the patch does not apply");
	else
		ok = true;
	free(orig);
	unlink(pfile);
	unlink(file);
	for (slash = strrchr(file, '/'); slash && slash > file + strlen(dir);
	     slash = strrchr(file, '/')) {
		*slash = '\0';
		rmdir(file);
	}
	rmdir(dir);
	free(file);
	free(pfile);
	return ok;
}

static unsigned int errors_of(const struct tu_stats *s, const char *tu)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++)
		if (!strcmp(s->problems[i].file, tu))
			return s->problems[i].parse_error ? ~0u :
			       s->problems[i].nr_errors;
	return 0;
}

bool verify_same_site(const struct finding *a, const struct finding *b)
{
	return !strcmp(a->rule, b->rule) &&
	       !strcmp(a->fn->name, b->fn->name) &&
	       !strcmp(finding_sink(a), finding_sink(b)) &&
	       !strcmp(a->site->file, b->site->file);
}

/*
 * Steps 2 and 3: re-analyse with the patched files in memory: no TU with
 * more errors, none of @fixed's sites left, no finding that was not
 * there before.
 */
bool verify_reanalysis(const struct analysis *a,
		       const struct analysis_opts *ao,
		       const struct root_sets *roots,
		       const struct unsaved_file *u, unsigned int nr_u,
		       struct finding *const *fixed, size_t nr_fixed,
		       char **why)
{
	struct analysis_opts o = *ao;
	struct analysis b;
	char err[512];
	size_t i, j;
	bool ok = true;

	o.unsaved = u;
	o.nr_unsaved = nr_u;
	o.progress = false;
	if (analysis_run(&b, &o, roots, err, sizeof(err))) {
		*why = xasprintf("re-analysis failed: %s", err);
		return false;
	}
	for (i = 0; ok && i < b.tus.nr_problems; i++) {
		const struct tu_problem *p = &b.tus.problems[i];
		unsigned int before = errors_of(&a->tus, p->file);
		unsigned int after = p->parse_error ? ~0u : p->nr_errors;

		if (after > before) {
			*why = xasprintf("re-parse: %s has new errors: %s",
					 p->file, p->first_error);
			ok = false;
		}
	}
	for (i = 0; ok && i < b.findings.nr; i++) {
		const struct finding *g = &b.findings.v[i];
		bool known = false;

		for (j = 0; ok && j < nr_fixed; j++) {
			if (verify_same_site(g, fixed[j])) {
				*why = xasprintf("re-analysis: the finding is "
						 "still there (%s:%u)",
						 g->site->file, g->site->line);
				ok = false;
			}
		}
		for (j = 0; ok && j < a->findings.nr && !known; j++)
			known = verify_same_site(&a->findings.v[j], g);
		/* Left out by -Wno-RULE, --only, --context: not new. */
		for (j = 0; ok && j < a->hidden.nr && !known; j++)
			known = verify_same_site(&a->hidden.v[j], g);
		if (ok && !known) {
			*why = xasprintf("re-analysis: new finding %s:%u: %s "
					 "[%s]", g->site->file, g->site->line,
					 g->message, g->rule);
			ok = false;
		}
	}
	analysis_free(&b);
	return ok;
}
