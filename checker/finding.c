// SPDX-License-Identifier: GPL-2.0
/*
 * finding.c - the finding list.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/finding.h"

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	c = strcmp(x->rule, y->rule);
	if (c)
		return c;
	return strcmp(x->root ? x->root : "", y->root ? y->root : "");
}

void findings_sort(struct findings *fs)
{
	qsort(fs->v, fs->nr, sizeof(*fs->v), finding_cmp);
}

void findings_free(struct findings *fs)
{
	size_t i;

	for (i = 0; i < fs->nr; i++) {
		size_t j;

		free(fs->v[i].message);
		free(fs->v[i].fix_note);
		free(fs->v[i].chain.steps);
		for (j = 0; j < fs->v[i].nr_others; j++)
			free(fs->v[i].others[j].steps);
		free(fs->v[i].others);
	}
	free(fs->v);
	if (fs->pool) {
		strpool_free(fs->pool);
		free(fs->pool);
	}
	memset(fs, 0, sizeof(*fs));
}

void run_summary_free(struct run_summary *s)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++) {
		free(s->problems[i].file);
		free(s->problems[i].first_error);
	}
	free(s->problems);
	free(s->unresolved_caps);
	free(s->unknown_regs);
	memset(s, 0, sizeof(*s));
}
