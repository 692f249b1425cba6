// SPDX-License-Identifier: GPL-2.0
/*
 * arch.c - the architectures registered (checker/arch/arches.c), which
 * one a compile database builds for, and the run's.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/base/util.h"

static const struct arch *const *arches;
static size_t nr_arches;
static const struct arch *current;

void arch_register(const struct arch *const *v, size_t n)
{
	arches = v;
	nr_arches = n;
}

const struct arch *arch_at(size_t i)
{
	return i < nr_arches ? arches[i] : NULL;
}

const struct arch *arch_find(const char *name)
{
	size_t i;

	for (i = 0; i < nr_arches; i++)
		if (!strcmp(arches[i]->name, name))
			return arches[i];
	return NULL;
}

/* kbuild's -I<dir>/arch/<SRCARCH>/include (or -I <dir>...). */
static const struct arch *of_include(const char *dir)
{
	const char *p = strstr(dir, "arch/"), *q;
	char name[32];
	size_t n;

	for (; p; p = strstr(p + 1, "arch/")) {
		if (p != dir && p[-1] != '/')
			continue;
		p += 5;
		q = strchr(p, '/');
		n = q ? (size_t)(q - p) : 0;
		if (!q || strncmp(q, "/include", 8) ||
		    (q[8] && q[8] != '/') || !n || n >= sizeof(name))
			continue;
		memcpy(name, p, n);
		name[n] = '\0';
		return arch_find(name);
	}
	return NULL;
}

/* A target prefix or triple: "aarch64-linux-gnu-gcc", "aarch64-...". */
static const struct arch *of_triple(const char *s)
{
	size_t i, j;

	for (i = 0; i < nr_arches; i++)
		for (j = 0; j < arches[i]->nr_triples; j++)
			if (!strncmp(s, arches[i]->triples[j],
				     strlen(arches[i]->triples[j])))
				return arches[i];
	return NULL;
}

const struct arch *arch_of_argv(char *const *argv, int argc)
{
	const struct arch *a = NULL;
	const char *base;
	int i;

	for (i = 1; i < argc && !a; i++) {
		if (!strncmp(argv[i], "-I", 2))
			a = of_include(argv[i][2] ? argv[i] + 2 :
				       i + 1 < argc ? argv[i + 1] : "");
		else if (!strncmp(argv[i], "--target=", 9))
			a = of_triple(argv[i] + 9);
	}
	if (a || argc < 1)
		return a;
	base = strrchr(argv[0], '/');
	return of_triple(base ? base + 1 : argv[0]);
}

const struct arch *arch_of_compdb(const struct compdb *db)
{
	const struct arch *a = NULL;
	size_t i;

	for (i = 0; i < db->nr && !a; i++)
		a = arch_of_argv(db->entries[i].argv, db->entries[i].argc);
	return a;
}

void arch_set(const struct arch *a)
{
	current = a;
}

/*
 * No architecture registered (a program linked without checker/arch/):
 * one with no sinks, tables or rules, so that nothing is found.
 */
static const struct arch none = { .name = "none" };

const struct arch *arch_current(void)
{
	return current ? current : nr_arches ? arches[0] : &none;
}

bool arch_path_in(const struct arch_path *paths, size_t n, const char *file)
{
	size_t i;

	for (i = 0; file && i < n; i++)
		if (!strncmp(file, paths[i].prefix, strlen(paths[i].prefix)))
			return true;
	return false;
}

bool arch_fn_matches(const char *patterns, const char *fn)
{
	const char *p = patterns, *e;
	char pat[256];
	size_t len;

	while (p && *p) {
		e = strchr(p, ' ');
		len = e ? (size_t)(e - p) : strlen(p);
		if (len && len < sizeof(pat)) {
			memcpy(pat, p, len);
			pat[len] = '\0';
			if (!fnmatch(pat, fn, 0))
				return true;
		}
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* A one-bit constant: its bit, or -1. */
static int one_bit(const char *s, const char *end)
{
	unsigned long long v;
	char *e;
	int b;

	v = strtoull(s, &e, 0);
	while (e < end && strchr("uUlL", *e))
		e++;
	if (e == s || e != end || !v || (v & (v - 1)))
		return -1;
	for (b = 0; !(v & 1); b++)
		v >>= 1;
	return b;
}

/* A shift count "N" (a decimal or hex constant) in [s, end): N, or -1. */
static int shift_count(const char *s, const char *end)
{
	unsigned long v;
	char *e;

	v = strtoul(s, &e, 0);
	if (e == s || e != end || v > 63)
		return -1;
	return (int)v;
}

int arch_mask_bit(const char *mask)
{
	char buf[128], *p, *end, *sh;
	size_t i, n = 0;

	if (!mask)
		return -1;
	for (i = 0; mask[i] && n < sizeof(buf) - 1; i++)
		if (mask[i] != ' ')
			buf[n++] = mask[i];
	buf[n] = '\0';
	p = buf;
	end = buf + n;
	/* Outer parentheses. */
	while (end - p >= 2 && *p == '(' && end[-1] == ')') {
		p++;
		end--;
	}
	if (!strncmp(p, "BIT(", 4) && end[-1] == ')')
		return shift_count(p + 4, end - 1);
	if (!strncmp(p, "BIT_ULL(", 8) && end[-1] == ')')
		return shift_count(p + 8, end - 1);
	sh = strstr(p, "<<");
	if (sh && sh < end) {
		if (one_bit(p, sh) != 0)
			return -1;
		return shift_count(sh + 2, end);
	}
	return one_bit(p, end);
}

const char *arch_live_reg(const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; name && i < a->nr_live_regs; i++)
		if (!fnmatch(a->live_regs[i].prefix, name, 0))
			return a->live_regs[i].text;
	return NULL;
}
