// SPDX-License-Identifier: GPL-2.0
/*
 * fileloc.c - locations of file offsets, each file's start looked up once
 * per TU (fileloc.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "trapcheck/clang/fileloc.h"
#include "trapcheck/base/util.h"

struct file_loc_slot {
	CXFile file;
	CXSourceLocation start;
};

static size_t slot_of(const struct file_locs *l, CXFile f)
{
	size_t i;

	for (i = hash_mix((uint64_t)(uintptr_t)f, 0) & l->mask;
	     l->slots[i].file && l->slots[i].file != f;
	     i = (i + 1) & l->mask)
		;
	return i;
}

static void grow_slots(struct file_locs *l)
{
	struct file_loc_slot *old = l->slots;
	size_t n = old ? l->mask + 1 : 0, i;

	l->mask = n ? n * 2 - 1 : 63;
	l->slots = xcalloc(l->mask + 1, sizeof(*l->slots));
	for (i = 0; i < n; i++)
		if (old[i].file)
			l->slots[slot_of(l, old[i].file)] = old[i];
	free(old);
}

CXSourceLocation file_loc(struct file_locs *l, CXTranslationUnit tu,
			  CXFile f, unsigned int off)
{
	CXSourceLocation loc;
	size_t i;

	if (!f)
		return clang_getNullLocation();
	if (l->tu != tu) {
		/* A CXFile of a disposed TU may name another file now. */
		file_locs_free(l);
		l->tu = tu;
	}
	if (!l->slots || (l->used + 1) * 2 > l->mask)
		grow_slots(l);
	i = slot_of(l, f);
	if (!l->slots[i].file) {
		l->slots[i].file = f;
		l->slots[i].start = clang_getLocationForOffset(tu, f, 0);
		l->used++;
	}
	loc = l->slots[i].start;
	/*
	 * A file location's encoding is its FileID's start plus the offset
	 * (clang's SourceLocation), and libclang keeps that encoding in
	 * int_data (cxloc::translateSourceLocation()); the null location
	 * stays null. tests/unit/test-fileloc.c compares every offset with
	 * clang_getLocationForOffset()'s, and the tokens of every range.
	 */
	if (clang_equalLocations(loc, clang_getNullLocation()))
		return loc;
	loc.int_data += off;
	return loc;
}

void file_locs_free(struct file_locs *l)
{
	free(l->slots);
	l->tu = NULL;
	l->slots = NULL;
	l->mask = 0;
	l->used = 0;
}
