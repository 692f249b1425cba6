/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file location of a byte of a file of a TU, for clang_tokenize() and
 * clang_getToken(), without the cost of asking libclang for it.
 *
 * libclang 14 finds a file's FileID by scanning every source-location
 * entry of the TU (SourceManager::translateFile(), reached from
 * clang_getLocationForOffset() and clang_getLocation()); a kernel TU has
 * hundreds of thousands of them (one per macro expansion), and that scan
 * was a fifth of a cold run (docs/performance.md). A file's start is
 * looked up once per TU here; a location in it is the start plus the
 * offset (SourceLocation::getLocWithOffset()).
 *
 * Not a drop-in for clang_getLocationForOffset(): that one then maps a
 * byte written as a macro argument to the argument's expansion
 * (SourceManager::getMacroArgExpandedLocation()), which decides the
 * cursor clang_getCursor() finds there. Both have the same spelling
 * location, which is all clang_tokenize() and clang_getToken() read
 * (tests/unit/test-fileloc.c): ask libclang where a cursor is wanted.
 */
#ifndef TRAPCHECK_FILELOC_H
#define TRAPCHECK_FILELOC_H

#include <stddef.h>

#include <clang-c/Index.h>

struct file_loc_slot;

/* The starts of the files of one TU looked up so far; zeroed is empty. */
struct file_locs {
	struct file_loc_slot *slots;
	size_t mask, used;
};

/*
 * The location of byte @off of @f in @tu, in the file's first inclusion
 * (the FileID clang_getLocationForOffset() takes); the null location
 * when @f is not a file of @tu.
 */
CXSourceLocation file_loc(struct file_locs *l, CXTranslationUnit tu,
			  CXFile f, unsigned int off);
/* Forget every start (the TU is disposed of); @l is empty again. */
void file_locs_free(struct file_locs *l);

#endif /* TRAPCHECK_FILELOC_H */
