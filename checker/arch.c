// SPDX-License-Identifier: GPL-2.0
/*
 * arch.c - the architectures trapcheck knows, which one a compile
 * database builds for, and the run's.
 */
#include <string.h>

#include "trapcheck/arch.h"
#include "trapcheck/compdb.h"
#include "trapcheck/util.h"

static const struct arch *const arches[] = {
	&arch_arm64,
	&arch_x86,
};

static const struct arch *current = &arch_arm64;

const struct arch *arch_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arches); i++)
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

	for (i = 0; i < ARRAY_SIZE(arches); i++)
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

const struct arch *arch_current(void)
{
	return current;
}
