// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig.c - the configuration symbols behind a source line.
 *
 * A chain that exists under one configuration and not another passes a
 * line that one of them compiles out: a function inside "#ifdef
 * CONFIG_LRU_GEN", or a file that kbuild builds only with
 * "obj-$(CONFIG_X) += x.o". Both are read from the tree as written (no
 * preprocessor, no make): the CONFIG_ names of the conditions open at the
 * line and of the kbuild lines naming the object. The caller keeps those
 * whose values differ between the configurations (.config).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/kconfig.h"

void kconfig_text_symbols(const char *text, struct kconfig_syms *out)
{
	const char *p = text;

	while (p && (p = strstr(p, "CONFIG_"))) {
		size_t n = 7;

		if (p > text && ident_char(p[-1])) {
			p += n;
			continue;
		}
		while (ident_char(p[n]))
			n++;
		if (n > 7)
			strv_add_once(&out->v, &out->nr, &out->alloc, p, n);
		p += n;
	}
}

void kconfig_syms_free(struct kconfig_syms *s)
{
	strv_free(s->v, s->nr);
	memset(s, 0, sizeof(*s));
}

/* Read a logical line (backslash-newline joined) into @buf; its lines. */
static unsigned int logical_line(FILE *f, char **buf, size_t *cap)
{
	char *line = NULL;
	size_t lcap = 0, len = 0;
	unsigned int lines = 0;
	ssize_t n;

	if (*buf)
		(*buf)[0] = '\0';
	while ((n = getline(&line, &lcap, f)) > 0) {
		bool more;

		lines++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		more = n && line[n - 1] == '\\';
		if (more)
			line[--n] = '\0';
		grow((void **)buf, cap, len + (size_t)n + 2, 1);
		memcpy(*buf + len, line, (size_t)n);
		len += (size_t)n;
		(*buf)[len++] = ' ';
		(*buf)[len] = '\0';
		if (!more)
			break;
	}
	free(line);
	return lines;
}

/* "#  ifdef X" -> "ifdef X"; NULL when @s is not a directive. */
static const char *directive(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '#')
		return NULL;
	s++;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool keyword(const char *d, const char *kw)
{
	size_t n = strlen(kw);

	return !strncmp(d, kw, n) && !ident_char(d[n]);
}

/* The conditions open at @line of @path, CONFIG_ names into @out. */
static void if_symbols(const char *path, unsigned int line,
		       struct kconfig_syms *out)
{
	FILE *f = fopen(path, "r");
	char **stack = NULL, *buf = NULL;
	size_t depth = 0, alloc = 0, cap = 0, i;
	unsigned int at = 1, n;

	if (!f)
		return;
	while (at < line && (n = logical_line(f, &buf, &cap))) {
		const char *d = directive(buf);

		at += n;
		if (!d)
			continue;
		if (keyword(d, "if") || keyword(d, "ifdef") ||
		    keyword(d, "ifndef")) {
			*PUSH(stack, depth, alloc) = xstrdup(d);
		} else if ((keyword(d, "elif") || keyword(d, "elifdef") ||
			    keyword(d, "elifndef")) && depth) {
			/* This branch depends on the ones before it too. */
			char *t = xasprintf("%s %s", stack[depth - 1], d);

			free(stack[depth - 1]);
			stack[depth - 1] = t;
		} else if (keyword(d, "endif") && depth) {
			free(stack[--depth]);
		}
	}
	for (i = 0; i < depth; i++)
		kconfig_text_symbols(stack[i], out);
	strv_free(stack, depth);
	free(buf);
	fclose(f);
}

/* The kbuild lines of @dir naming @obj ("vmscan.o"), CONFIG_ names. */
static void kbuild_symbols(const char *dir, const char *obj,
			   struct kconfig_syms *out)
{
	static const char *const names[] = { "Makefile", "Kbuild" };
	size_t i, n = strlen(obj), cap = 0;
	char *buf = NULL;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *path = path_join(dir, names[i]);
		FILE *f = fopen(path, "r");

		free(path);
		if (!f)
			continue;
		while (logical_line(f, &buf, &cap)) {
			const char *p = buf;

			if (buf[strspn(buf, " \t")] == '#')
				continue;
			while ((p = strstr(p, obj))) {
				bool start = p == buf || p[-1] == ' ' ||
					     p[-1] == '\t' || p[-1] == '=';
				bool end = p[n] == ' ' || p[n] == '\t' ||
					   !p[n];

				if (start && end) {
					kconfig_text_symbols(buf, out);
					break;
				}
				p += n;
			}
		}
		fclose(f);
	}
	free(buf);
}

void kconfig_line_symbols(const char *root, const char *file,
			  unsigned int line, struct kconfig_syms *out)
{
	char *path = path_join(root, file), *dir, *obj, *slash, *dot;

	if (line)
		if_symbols(path, line, out);
	slash = strrchr(path, '/');
	dot = strrchr(path, '.');
	if (slash && dot > slash && !strcmp(dot, ".c")) {
		dir = xstrndup(path, (size_t)(slash - path));
		obj = xasprintf("%.*s.o", (int)(dot - slash - 1), slash + 1);
		kbuild_symbols(dir, obj, out);
		free(dir);
		free(obj);
	}
	free(path);
}

int kconfig_load(struct kconfig *k, const char *root)
{
	char *path = path_join(root, ".config"), *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	memset(k, 0, sizeof(*k));
	strmap_init(&k->index);
	f = fopen(path, "r");
	free(path);
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *eq;

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		eq = strchr(line, '=');
		if (strncmp(line, "CONFIG_", 7) || !eq)
			continue;
		*eq = '\0';
		if (strmap_get(&k->index, line) >= 0)
			continue;
		strmap_put(&k->index, line, (int)k->nr);
		*PUSH(k->values, k->nr, k->alloc) = xstrdup(eq + 1);
	}
	free(line);
	fclose(f);
	return 0;
}

const char *kconfig_value(const struct kconfig *k, const char *sym)
{
	int i = strmap_get(&k->index, sym);

	return i < 0 ? NULL : k->values[i];
}

void kconfig_free(struct kconfig *k)
{
	strmap_free(&k->index);
	strv_free(k->values, k->nr);
	memset(k, 0, sizeof(*k));
}
