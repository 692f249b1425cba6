// SPDX-License-Identifier: GPL-2.0
/*
 * extract-util.c - what every part of the walk of a TU shares: files
 * relative to the tree, expansion locations, function keys, cursor names,
 * children and offsets (extract-internal.h). The lowest of the clang
 * layer's extraction files: it calls none of the others.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/base/util.h"

#include "extract-internal.h"

static size_t ptr_hash(const void *p)
{
	return (size_t)hash_mix((uint64_t)(uintptr_t)p, 0);
}

const char *file_rel(struct walk *w, CXFile f)
{
	size_t i;
	CXString name;
	char *norm;

	if (!f)
		return "<built-in>";
	if (!w->files) {
		w->files_mask = 255;
		w->files = xcalloc(w->files_mask + 1, sizeof(*w->files));
	}
	for (i = ptr_hash(f) & w->files_mask; w->files[i].file;
	     i = (i + 1) & w->files_mask)
		if (w->files[i].file == f)
			return w->files[i].rel;

	name = clang_getFileName(f);
	norm = path_normalize(clang_getCString(name) ?
			      clang_getCString(name) : "<unknown>");
	clang_disposeString(name);
	w->files[i].file = f;
	w->files[i].rel = path_relative(norm, w->opts->root);
	free(norm);
	if (++w->files_used * 2 > w->files_mask) {
		struct file_slot *old = w->files;
		size_t n = w->files_mask + 1, j;
		const char *ret = old[i].rel;

		w->files_mask = n * 2 - 1;
		w->files = xcalloc(n * 2, sizeof(*w->files));
		for (j = 0; j < n; j++) {
			size_t k;

			if (!old[j].file)
				continue;
			for (k = ptr_hash(old[j].file) & w->files_mask;
			     w->files[k].file; k = (k + 1) & w->files_mask)
				;
			w->files[k] = old[j];
		}
		free(old);
		return ret;
	}
	return w->files[i].rel;
}

const char *expansion_loc(struct walk *w, CXSourceLocation loc,
			  unsigned int *line, unsigned int *col,
			  unsigned int *offset, CXFile *filep)
{
	CXFile f;

	clang_getExpansionLocation(loc, &f, line, col, offset);
	if (filep)
		*filep = f;
	return file_rel(w, f);
}

/* Spelling of the first token of the argument list of a sink. */
char *first_arg_token(CXTranslationUnit tu, CXSourceRange range,
		      bool skip_name, bool literal)
{
	CXToken *toks = NULL;
	unsigned int n = 0, i = 0;
	char *arg = NULL;

	clang_tokenize(tu, range, &toks, &n);
	if (skip_name) {
		/* name ( arg ... */
		i = 2;
	}
	if (i < n && (clang_getTokenKind(toks[i]) == CXToken_Identifier ||
		      (literal &&
		       clang_getTokenKind(toks[i]) == CXToken_Literal))) {
		CXString s = clang_getTokenSpelling(tu, toks[i]);

		arg = xstrdup(clang_getCString(s));
		clang_disposeString(s);
	}
	if (toks)
		clang_disposeTokens(tu, toks, n);
	return arg;
}

/*
 * The key of a function: its USR, and for internal linkage the file that
 * defines it too, so two "static int check(void)" in files of the same
 * base name stay two nodes while a header's static inline stays one.
 */
char *func_key(struct walk *w, CXCursor decl, const char **file,
	       unsigned int *line, bool *is_static)
{
	CXCursor def = clang_getCursorDefinition(decl);
	CXCursor c = clang_Cursor_isNull(def) ?
		     clang_getCanonicalCursor(decl) : def;
	CXString usr = clang_getCursorUSR(c);
	const char *u = clang_getCString(usr);
	char *key;
	unsigned int col;

	*file = expansion_loc(w, clang_getCursorLocation(c), line, &col,
			      NULL, NULL);
	*is_static = clang_getCursorLinkage(c) == CXLinkage_Internal;
	if (*is_static)
		key = xasprintf("%s@%s", u ? u : "", *file);
	else
		key = xstrdup(u ? u : "");
	clang_disposeString(usr);
	return key;
}

char *cursor_name(CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	char *name = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return name;
}

enum CXChildVisitResult collect_kid(CXCursor c, CXCursor p, CXClientData d)
{
	struct kids *k = d;

	(void)p;
	if (k->n < ARRAY_SIZE(k->c))
		k->c[k->n] = c;
	k->n++;
	return CXChildVisit_Continue;
}

unsigned int offset_of(CXSourceLocation loc)
{
	unsigned int off;

	clang_getExpansionLocation(loc, NULL, NULL, NULL, &off);
	return off;
}

void extent_offsets(CXCursor c, unsigned int *from, unsigned int *to)
{
	CXSourceRange r = clang_getCursorExtent(c);

	*from = offset_of(clang_getRangeStart(r));
	*to = offset_of(clang_getRangeEnd(r));
	if (*to <= *from)
		*to = *from + 1;
}

/* The file and expansion offset where @c starts. */
unsigned int start_of(CXCursor c, CXFile *file)
{
	unsigned int off;

	clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)),
				   file, NULL, NULL, &off);
	return off;
}

