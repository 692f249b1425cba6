// SPDX-License-Identifier: GPL-2.0
/*
 * trace-kaslr.c - the guest's KASLR offset from its trace and its vmlinux
 * (include/trapcheck/input/trace.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/base/util.h"
#include "trapcheck/input/dwsym.h"
#include "trapcheck/input/trace.h"

static int cmp_ull(const void *x, const void *y)
{
	unsigned long long a = *(const unsigned long long *)x;
	unsigned long long b = *(const unsigned long long *)y;

	return a < b ? -1 : a > b;
}

static int by_trap_count(const void *x, const void *y)
{
	const struct trace_site *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return cmp_ull(&a->pc, &b->pc);
}

/* The sites an inference looks at: the busiest ones. */
#define KASLR_SITES 64

int trace_kaslr_infer(const struct trace *t, struct dwsym *d,
		      unsigned long long *off, char *err, size_t errlen)
{
	unsigned long long **ins, *votes = NULL;
	size_t *nins, nv = 0, av = 0, i, k, used = 0;
	size_t best = 0, second = 0, zero = 0;
	unsigned long long best_off = 0;
	struct trace_site *v;
	int ret = 0;

	*off = 0;
	if (!t->nr)
		return 0;
	ins = xcalloc(t->nr_kinds + 1, sizeof(*ins));
	nins = xcalloc(t->nr_kinds + 1, sizeof(*nins));
	v = xmalloc(t->nr * sizeof(*v));
	memcpy(v, t->sites, t->nr * sizeof(*v));
	qsort(v, t->nr, sizeof(*v), by_trap_count);
	for (i = 0; i < t->nr && used < KASLR_SITES; i++) {
		unsigned int kind = v[i].kind;
		unsigned long long align;

		if (kind >= t->nr_kinds)
			continue;
		align = t->kinds[kind].kaslr_align;

		/* One vote a PC: a PC traced twice (two registers) once. */
		if (i && v[i].pc == v[i - 1].pc)
			continue;
		if (!ins[kind])
			nins[kind] = dwsym_insns(d, &t->kinds[kind].insn,
						 &ins[kind]);
		used++;
		for (k = 0; k < nins[kind]; k++) {
			unsigned long long delta = v[i].pc - ins[kind][k];

			if (!(delta % align))
				*PUSH(votes, nv, av) = delta;
		}
	}
	qsort(votes, nv, sizeof(*votes), cmp_ull);
	for (i = 0; i < nv; i = k) {
		for (k = i; k < nv && votes[k] == votes[i]; k++)
			;
		if (!votes[i])
			zero = k - i;
		if (k - i > best) {
			second = best;
			best = k - i;
			best_off = votes[i];
		} else if (k - i > second) {
			second = k - i;
		}
	}
	if (best && zero == best) {
		*off = 0;	/* where the vmlinux has them */
	} else if (best > second && best * 2 > used &&
		   (best >= 2 || used == 1)) {
		*off = best_off;
		diag_info("KASLR offset 0x%llx inferred: %zu of the trace's "
			  "%zu busiest PCs are trapping instructions of the "
			  "vmlinux there", best_off, best, used);
	} else {
		snprintf(err, errlen, "cannot infer the guest's KASLR offset "
			 "from the trace (%zu PCs, best offset 0x%llx places "
			 "%zu): give --kaslr-offset or --guest-text",
			 used, best_off, best);
		ret = -EINVAL;
	}
	for (i = 0; i < t->nr_kinds; i++)
		free(ins[i]);
	free(ins);
	free(nins);
	free(votes);
	free(v);
	return ret;
}
