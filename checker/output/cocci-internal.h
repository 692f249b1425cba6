/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cocci-internal.h - what the files of --emit-cocci share (not public
 * API: include/trapcheck/output/cocci-emit.h is):
 *
 *   cocci-lex.c    code lines as spatch reads them: brackets, keywords,
 *                  calls without arguments, if/while headers
 *   cocci-rule.c   one fix site into a rule: its minus, plus and find
 *                  code, and the names and metavariables they declare
 *   cocci-emit.c   the semantic patch: its header and every rule, written
 */
#ifndef TRAPCHECK_COCCI_INTERNAL_H
#define TRAPCHECK_COCCI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/finding/edit.h"

/* A growable list of strings. */
struct strs {
	char **v;
	size_t nr, alloc;
};

/* One zero-argument call bound to a metavariable: \(E \& f(...)\). */
struct zcall {
	char *name;		/* f */
	char *meta;		/* E_f */
};

/* What one fix becomes. */
struct site_rule {
	struct strs minus;	/* old code lines, f() written f(...) */
	struct strs find;	/* the same, "@tc_sink" after the sink */
	struct strs plus;	/* new lines as they are */
	struct strs symbols, typedefs;
	size_t nr_minus_symbols, nr_minus_typedefs;	/* the find rule's */
	bool casts;		/* a cast in the lines: disable drop_cast */
	struct zcall *z;
	size_t nr_z, alloc_z;
	bool header;		/* an if/while header: body S */
	bool is_if;
	bool have_q;
	unsigned int last;	/* last line of the region, grown */
};

/* cocci-lex.c */
void strs_push(struct strs *l, char *s);
bool strs_has(const struct strs *l, const char *s);
void strs_free(struct strs *l);
bool is_blank(const char *s);
bool balanced(const struct strs *code, char *last);
bool is_keyword(const char *s, size_t n);
bool is_word(const char *s, size_t n, const char *const *words);
bool starts_with_word(const char *code, const char *kw);
char *map_zero_calls(const char *s, bool *in_comment,
		     char *(*fn)(void *arg, const char *name, size_t n),
		     void *arg);
bool is_header(const char *code, bool *is_if);
const char *find_call(const char *line, const char *name);
char *code_before(const struct src_file *src, unsigned int first);

/* cocci-rule.c */
char *build_rule(const struct fix_site *site, struct site_rule *r);
void site_rule_free(struct site_rule *r);

#endif /* TRAPCHECK_COCCI_INTERNAL_H */
