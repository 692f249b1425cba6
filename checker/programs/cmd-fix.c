// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-fix.c - --fix, --fix-dir DIR, --apply and --emit-cocci FILE: the
 * verified fixes of the findings, as a diff, patch files, edits of the
 * tree, or one semantic patch; then the findings report, each with what
 * happened to its fix.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prog.h"
#include "trapcheck/output/cocci-emit.h"
#include "trapcheck/output/gitinfo.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/base/util.h"

/*
 * The patches' author, as git commit finds it: --signoff, git's
 * environment, git's configuration (the tree's repository, else the
 * user's), or trapcheck.
 */
static char *patch_author(const char *signoff, const char *tree)
{
	const char *name = getenv("GIT_AUTHOR_NAME");
	const char *mail = getenv("GIT_AUTHOR_EMAIL");
	char *who;

	if (signoff)
		return xstrdup(signoff);
	if (name && mail)
		return xasprintf("%s <%s>", name, mail);
	who = gitinfo_identity(tree);
	return who ? who : xstrdup("trapcheck <trapcheck@localhost>");
}

/* Now, or SOURCE_DATE_EPOCH (reproducible builds). */
static time_t build_date(void)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");

	return epoch ? (time_t)atoll(epoch) : time(NULL);
}

/* --fix prints the diff: what happened to the other findings, on stderr. */
static void fix_notes(const struct findings *fs)
{
	size_t i;

	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->v[i];
		const struct finding_note *n = finding_note_of(fs, f);
		char *where;

		if (!n || !n->fix_note || !strncmp(n->fix_note, "fix:", 4))
			continue;
		where = xasprintf("%s:%u:%u", FINDING_AT(f));
		diag_at(where, "note", "%s", n->fix_note);
		free(where);
	}
}

static int run_fixes(struct prog *p, struct analysis *a)
{
	struct fix_opts *fo = &p->fo;
	struct fix_sites sites = { 0 };
	struct cocci_opts co;
	char err[1024], *who = patch_author(fo->meta.signoff, a->root);
	const char *signoff = fo->meta.signoff;
	int n;

	fo->meta.author = who;
	/*
	 * Signed-off-by: the author's, as git commit -s writes it, unless
	 * nobody is known (checkpatch.pl wants one; the patches are the
	 * user's to review and send).
	 */
	if (!signoff && strcmp(who, "trapcheck <trapcheck@localhost>"))
		fo->meta.signoff = who;
	fo->meta.date = build_date();
	fo->sites = p->cocci ? &sites : NULL;
	co.tree = a->root;
	co.date = fo->meta.date;
	n = fixes_run(a, &p->ao, &p->roots, fo, err, sizeof(err));
	if (n >= 0 && (fo->print || fo->dir || fo->apply))
		diag_info("%d fix%s %s", n, n == 1 ? "" : "es",
			  fo->apply ? "applied" : fo->dir ? "written" :
			  "printed");
	if (n >= 0 && p->cocci) {
		n = cocci_emit(p->cocci, &sites, &co, err, sizeof(err));
		if (n >= 0)
			diag_info("%d rule%s written to %s", n,
				  n == 1 ? "" : "s", p->cocci);
	}
	fix_sites_free(&sites);
	fo->meta.signoff = signoff;
	free(who);
	return n < 0 ? prog_fail(err, TC_EXIT_OUTPUT) : 0;
}

/* The fixes, then the report (--fix: the diff is the output). */
static int fix_and_report(struct prog *p, struct analysis *a)
{
	int ret = run_fixes(p, a);

	if (ret)
		return ret;
	if (!p->fo.print)
		return prog_report(p, a);
	if (!p->quiet)
		fix_notes(&a->findings);
	return prog_status(p, a);
}

int cmd_fix(struct prog *p)
{
	return prog_analysed(p, fix_and_report);
}
