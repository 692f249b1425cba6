// SPDX-License-Identifier: GPL-2.0
/*
 * macroset.c - the macro names a TU depends on, as a compact text
 * (macroset.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/macroset.h"
#include "trapcheck/base/util.h"

#define GROUP_MORE	'!'	/* '!'..'@': a group, more follow */
#define GROUP_LAST	'A'	/* 'A'..'`': the number's last group */

uint32_t macroset_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 16777619u;
	}
	return h;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

size_t macroset_sort(uint32_t *h, size_t nr)
{
	size_t i, n = 0;

	if (!nr)
		return 0;
	qsort(h, nr, sizeof(*h), cmp_u32);
	for (i = 1; i < nr; i++)
		if (h[i] != h[n])
			h[++n] = h[i];
	return n + 1;
}

char *macroset_encode(uint32_t *h, size_t nr)
{
	size_t tag = strlen(MACROSET_TAG), len = tag, i;
	uint32_t prev = 0;
	char *out;

	nr = macroset_sort(h, nr);
	/* At most 7 groups of 5 bits a number. */
	out = xmalloc(tag + 7 * nr + 1);
	memcpy(out, MACROSET_TAG, tag);
	for (i = 0; i < nr; i++) {
		uint32_t d = h[i] - prev;

		prev = h[i];
		while (d >= 32) {
			out[len++] = (char)(GROUP_MORE + (d & 31));
			d >>= 5;
		}
		out[len++] = (char)(GROUP_LAST + d);
	}
	out[len] = '\0';
	return out;
}

int macroset_any(const char *text, const uint32_t *q, size_t nr)
{
	size_t tag = strlen(MACROSET_TAG), k = 0;
	const char *p;
	uint32_t v = 0, d = 0;
	unsigned int shift = 0;

	if (!text || strncmp(text, MACROSET_TAG, tag))
		return -EINVAL;
	for (p = text + tag; *p && k < nr; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= GROUP_MORE && c < GROUP_MORE + 32) {
			if (shift > 30)
				return -EINVAL;
			d |= (uint32_t)(c - GROUP_MORE) << shift;
			shift += 5;
			continue;
		}
		if (c < GROUP_LAST || c >= GROUP_LAST + 32 || shift > 30)
			return -EINVAL;
		d |= (uint32_t)(c - GROUP_LAST) << shift;
		v += d;
		d = 0;
		shift = 0;
		while (k < nr && q[k] < v)
			k++;
		if (k < nr && q[k] == v)
			return 1;
	}
	return *p && k >= nr ? 0 : (shift ? -EINVAL : 0);
}
