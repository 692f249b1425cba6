/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pictures of the findings: one Graphviz DOT file per finding (and SVG
 * when Graphviz's dot is installed), and one self-contained HTML page
 * listing every finding with its chain and a source excerpt.
 */
#ifndef TRAPCHECK_PICTURE_H
#define TRAPCHECK_PICTURE_H

#include <stddef.h>
#include <stdio.h>

#include "trapcheck/finding/finding.h"
#include "trapcheck/output/emit.h"

/* The DOT text of one finding's chain. */
void picture_dot(FILE *out, const struct finding *f);
int picture_graphs(const char *dir, const struct findings *fs, char *err,
		   size_t errlen);
int picture_html(const char *path, const struct findings *fs,
		 const struct summary *sum, const char *root, char *err,
		 size_t errlen);

#endif /* TRAPCHECK_PICTURE_H */
