/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fix patches. A rule that knows a safe rewrite fills a struct fix_edit
 * from the source lines around its finding (libclang's exact sites: the
 * line and column of the sink); this module turns edits into git
 * format-patch files, verifies each one (patch --dry-run on a scratch copy,
 * a re-analysis of the tree with the patched file in memory: same or fewer
 * errors in every TU, the finding gone, no new finding) and writes or
 * applies only the verified ones.
 */
#ifndef TRAPCHECK_FIX_H
#define TRAPCHECK_FIX_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/analyze.h"
#include "trapcheck/finding.h"
#include "trapcheck/roots.h"

struct graph;

/* A file's text split into lines (no '\n'). */
struct src_file {
	char *path;		/* relative to the tree */
	char *text;
	char **lines;
	size_t nr_lines;
};

struct fix_ctx {
	const struct graph *graph;
	const struct finding *finding;
	const char *tree;		/* absolute root of the tree */
	const struct src_file *src;	/* the file holding the sink */
};

/* Replace lines [first, last] (1-based, inclusive) by @lines. */
struct fix_edit {
	unsigned int first, last;
	char **lines;
	size_t nr_lines;
	char *subject;		/* after "[PATCH] " */
	char *body;		/* why, for the commit message */
};

void fix_edit_add_line(struct fix_edit *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fix_edit_free(struct fix_edit *e);

/* Helpers for the rules' fix hooks. */
char *line_indent(const char *line);
/* "arm64: archrandom" for arch/arm64/include/asm/archrandom.h. */
char *fix_area(const char *path);
/* The commit message paragraph shared by every fix: root, chain. */
char *fix_chain_text(const struct finding *f);

/*
 * A verified fix, for emitters other than patches (--emit-cocci): the
 * finding, its edit and the text of the file before the edit.
 */
struct fix_site {
	struct finding *f;
	struct fix_edit e;
	struct src_file src;
};

struct fix_sites {
	struct fix_site *v;
	size_t nr, alloc;
};

void fix_sites_free(struct fix_sites *s);

struct fix_opts {
	const char *dir;	/* --fix-dir: write one patch per fix here */
	bool print;		/* --fix: print the diffs on stdout */
	bool apply;		/* --apply: apply verified fixes in place */
	const char *signoff;	/* --signoff "Name <mail>" */
	bool verify;		/* re-analyse (tests may turn it off) */
	struct fix_sites *sites;	/* set: the verified fixes, in order */
};

/*
 * Compute, verify and emit the fixes for the findings of @a. Each
 * finding's fix_note says what happened to it. Returns the number of
 * patches written or applied, or a negative errno with a message.
 */
int fixes_run(struct analysis *a, const struct analysis_opts *ao,
	      const struct root_sets *roots, const struct fix_opts *fo,
	      char *err, size_t errlen);

#endif /* TRAPCHECK_FIX_H */
