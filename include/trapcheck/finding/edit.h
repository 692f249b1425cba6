/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Edit primitives: a source file as lines, the replacement of a line
 * range (what a rule's fix computes), its unified diff, and the text
 * helpers the writers of patches and semantic patches share (wrapping,
 * the code of a line without its comments). A leaf module: rules,
 * --fix, --emit-cocci and --diff use it; it uses nothing of theirs.
 */
#ifndef TRAPCHECK_EDIT_H
#define TRAPCHECK_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "trapcheck/finding/finding.h"

struct graph;

/* A file's text split into lines (no '\n'). */
struct src_file {
	char *path;		/* relative to the tree */
	char *text;
	char **lines;
	size_t nr_lines;
};

/* Read @rel of @tree; 0 or a negative errno. */
int src_load(struct src_file *s, const char *tree, const char *rel);
/* Take ownership of @text and split it into lines. */
void src_from_text(struct src_file *s, const char *rel, char *text);
void src_free(struct src_file *s);

/* What a rule's fix hook sees. */
struct fix_ctx {
	const struct graph *graph;
	const struct finding *finding;
	const char *tree;		/* absolute root of the tree */
	const struct src_file *src;	/* the file holding the sink */
	/*
	 * The architecture's code that cannot call into the kernel (its
	 * no_rewrite paths, e.g. arm64's EL2 hyp code) when the sink is
	 * there: what the path's entry says, else NULL. A rewrite that
	 * calls the kernel refuses with it.
	 */
	const char *no_rewrite;
	/*
	 * 0 for the rule's first rewrite; 1 when that one failed
	 * verification (*@failed says why) and the rule may offer another
	 * (e.g. one that needs no header the code cannot include).
	 */
	unsigned int attempt;
	const char *failed;
};

/*
 * Replace lines [first, last] (1-based, inclusive) by @lines, in @path
 * (relative to the tree; NULL: the finding's file). first 0: no edit of
 * its own, only with a @group whose shared edits fix the site.
 *
 * A rewrite that needs edits beyond its own site (a field added to a
 * structure, a value set at init) names a @group: the fixes of one group
 * become one patch, and the architecture's fix_group hook (arch.h) adds
 * the edits they share from each member's @group_arg.
 */
struct fix_edit {
	unsigned int first, last;
	char **lines;
	size_t nr_lines;
	char *path;
	char *subject;		/* after "[PATCH] " */
	char *body;		/* why, for the commit message */
	char *group, *group_arg;
};

void fix_edit_add_line(struct fix_edit *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fix_edit_copy(struct fix_edit *d, const struct fix_edit *e);
void fix_edit_free(struct fix_edit *e);

/*
 * A verified fix, for emitters other than patches (--emit-cocci): the
 * finding, its edit and the text of the file before the edit.
 */
struct fix_site {
	struct finding *f;
	struct fix_edit e;
	struct src_file src;
	/*
	 * The fix edits more than its site (other lines, other files: a
	 * group's): no semantic patch rewrites it in place, the emitters
	 * leave it out and say so.
	 */
	bool beyond_site;
};

struct fix_sites {
	struct fix_site *v;
	size_t nr, alloc;
	struct findings *list;	/* their findings' list: the notes */
};

void fix_sites_free(struct fix_sites *s);

/* The file's text with @e applied ('\n'-terminated lines; new). */
char *edit_apply(const struct src_file *s, const struct fix_edit *e);
/*
 * A unified diff of one edit (three lines of context, paths a/ and b/
 * relative to the tree; new), and how many lines it adds and removes.
 */
char *edit_diff(const struct src_file *s, const struct fix_edit *e,
		size_t *added, size_t *removed);
/*
 * The same for @n edits of one file, in any order (they must not
 * overlap): hunks whose context meets are one hunk, as diff(1) writes.
 */
char *edit_diff_all(const struct src_file *s, const struct fix_edit *const *e,
		 size_t n, size_t *added, size_t *removed);
/* The file's text with @n edits applied (new); NULL when two overlap. */
char *edit_apply_all(const struct src_file *s, const struct fix_edit *const *e,
		  size_t n);

/* The leading blanks of @line (new). */
char *line_indent(const char *line);
/*
 * The finding's sink call as written on its line, "<sink>(" at its
 * column: where it starts (its line in *@line), or NULL.
 */
const char *fix_sink_call(const struct fix_ctx *ctx, const char **line);
/* "arm64: archrandom" for arch/arm64/include/asm/archrandom.h (new). */
char *fix_area(const char *path);
/*
 * What each byte of @line is: MASK_CODE, MASK_STRING (string or
 * character literal) or MASK_COMMENT; *@in_comment carries a block
 * comment over lines (new, as long as @line).
 */
enum { MASK_CODE = 'c', MASK_STRING = 's', MASK_COMMENT = 'k' };
char *line_mask(const char *line, bool *in_comment);
/*
 * The code of @line: comments dropped (*@in_comment carries a block
 * comment over lines), strings kept, trailing blanks trimmed (new).
 */
char *line_code(const char *line, bool *in_comment);

/*
 * Write @text's words on lines of at most @width columns, the first
 * starting with @lead, the next ones with @cont; a '\n' in @text ends a
 * line, and blank lines (paragraphs) are kept.
 */
void text_wrap(FILE *out, const char *lead, const char *cont, size_t width,
	       const char *text);
/*
 * The @w characters at @p, written at column @col: on a line of their own
 * begun with @indent when @wrap (the line at @col ended first unless it is
 * empty), else after a space. Returns the column after them.
 */
size_t text_put_word(FILE *out, const char *p, size_t w, size_t col,
		     bool wrap, const char *indent);

#endif /* TRAPCHECK_EDIT_H */
