/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file location of a byte of a file of a TU, for clang_tokenize() and
 * clang_getToken(), without the cost of asking libclang for it.
 *
 * libclang 14 finds a file's FileID (SourceManager::translateFile(),
 * reached from clang_getLocationForOffset() and clang_getLocation()) by
 * testing the main file, then every source-location entry of the TU from
 * the first until the file's; a kernel TU has hundreds of thousands (a
 * file inclusion, a macro expansion, a macro argument's each), and the
 * scan was a quarter of the samples of a cold run over 8 TUs, 13% over
 * 33 (docs/performance.md, "libclang's file lookup"). A file's
 * start is looked up once per TU here; a location in it is the start plus
 * the offset (SourceLocation::getLocWithOffset()).
 *
 * Not a drop-in for clang_getLocationForOffset(): that one then maps a
 * byte written as a macro argument to the argument's expansion
 * (SourceManager::getMacroArgExpandedLocation()), which decides the
 * cursor clang_getCursor() finds there: ask libclang where a cursor is
 * wanted. Both have the same spelling location, which is all
 * clang_tokenize() reads. clang_getToken() also measures the token at the
 * location's expansion, so at a macro argument's expansion it can find no
 * token where the file location finds the one written there
 * (tests/unit/test-fileloc.c).
 */
#ifndef TRAPCHECK_FILELOC_H
#define TRAPCHECK_FILELOC_H

#include <stddef.h>

#include <clang-c/Index.h>

struct file_loc_slot;

/* The starts of the files of one TU looked up so far; zeroed is empty. */
struct file_locs {
	CXTranslationUnit tu;	/* whose files they are */
	struct file_loc_slot *slots;
	size_t mask, used;
};

/*
 * The location of byte @off of @f in @tu, in the file's first inclusion
 * (the FileID clang_getLocationForOffset() takes); the null location
 * when @f is not a file of @tu. Asked about another TU than before, @l
 * forgets the first one's files.
 */
CXSourceLocation file_loc(struct file_locs *l, CXTranslationUnit tu,
			  CXFile f, unsigned int off);
/* Forget every start (the TU is disposed of); @l is empty again. */
void file_locs_free(struct file_locs *l);

#endif /* TRAPCHECK_FILELOC_H */
