/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hot-path root sets: data files, one function name per line ("#" starts
 * a comment); the set is named after the file (roots/crng.roots: "crng").
 */
#ifndef TRAPCHECK_ROOTS_H
#define TRAPCHECK_ROOTS_H

#include <stddef.h>

struct root_set {
	char *name;
	char *path;
	char **funcs;
	size_t nr, alloc;
};

struct root_sets {
	struct root_set *sets;
	size_t nr, alloc;
};

/*
 * Load one roots file into @rs (a set of the same name gains its
 * functions). Returns 0, or a negative errno with a message in @err.
 */
int roots_load_file(struct root_sets *rs, const char *path, char *err,
		    size_t errlen);
/* Load every *.roots file of @dir, in name order. */
int roots_load_dir(struct root_sets *rs, const char *dir, char *err,
		   size_t errlen);
void roots_free(struct root_sets *rs);

#endif /* TRAPCHECK_ROOTS_H */
