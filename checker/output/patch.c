// SPDX-License-Identifier: GPL-2.0
/*
 * patch.c - a fix as a git format-patch file (patch.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapcheck/output/patch.h"
#include "trapcheck/base/util.h"

#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

/* "a() -> b() -> c()" on lines of at most 72, continued indented. */
static void put_chain(FILE *out, const char *chain, size_t col)
{
	const char *p = chain;

	while (*p) {
		const char *arrow = strstr(p, " -> ");
		size_t w = arrow ? (size_t)(arrow - p) : strlen(p);

		col = text_put_word(out, p, w, col, col + 1 + w > 72 && col > 6,
				    "    ");
		p += w;
		if (*p) {
			fputs(" ->", out);
			col += 3;
			p += 4;
		}
	}
	fputc('\n', out);
}

char *patch_format(const struct finding *const *fs, size_t nr,
		   const struct fix_edit *e, const char *diff,
		   const struct patch_file *files, size_t nr_files,
		   const struct patch_meta *m, const char *fixes)
{
	char *buf = NULL, date[64];
	size_t len = 0, i, width = 0, added = 0, removed = 0;
	FILE *out = open_memstream(&buf, &len);
	bool hot = false;
	struct tm tm;

	gmtime_r(&m->date, &tm);
	/* As git writes it: "Thu, 1 Jan 1970 00:00:00 +0000". */
	strftime(date, sizeof(date), "%a, %-d %b %Y %H:%M:%S +0000", &tm);
	fprintf(out, "From 0000000000000000000000000000000000000000 Mon Sep "
		"17 00:00:00 2001\nFrom: %s\nDate: %s\nSubject: [PATCH] %s\n\n",
		m->author, date, e->subject);
	text_wrap(out, "", "", 72, e->body);
	fputc('\n', out);
	for (i = 0; i < nr; i++)
		hot |= fs[i]->root != NULL;
	text_wrap(out, "", "", 72, !hot ? "The site, as trapcheck found it:" :
		  nr == 1 ? "The call is reached from a hot path. The chain, "
			    "as trapcheck found it:" :
			    "The calls are reached from hot paths. The "
			    "chains, as trapcheck found them:");
	for (i = 0; i < nr; i++) {
		const struct finding *f = fs[i];
		const char *root = f->root ? f->root : "site";
		char *chain = finding_chain_text(&f->chains[0], true);

		fprintf(out, "%s  %s:", i ? "\n" : "\n", root);
		put_chain(out, chain, strlen(root) + 3);
		fprintf(out, "  %s:%u (rule %s)\n", f->site->file,
			f->site->line, f->rule);
		/* How often it traps, as the warning says it. */
		if (f->root) {
			char *rate = finding_rate_text(f);

			text_wrap(out, "  ", "    ", 72, rate);
			free(rate);
		}
		free(chain);
	}
	if (fixes)
		fprintf(out, "\n%s\n", fixes);
	if (m->signoff)
		fprintf(out, "%sSigned-off-by: %s\n", fixes ? "" : "\n",
			m->signoff);
	fputs("---\n", out);
	for (i = 0; i < nr_files; i++)
		if (strlen(files[i].path) > width)
			width = strlen(files[i].path);
	for (i = 0; i < nr_files; i++) {
		const struct patch_file *pf = &files[i];

		fprintf(out, " %-*s | %zu %.*s%.*s\n", (int)width, pf->path,
			pf->added + pf->removed, (int)pf->added,
			"++++++++++++++++++++++++++++++++++++++++",
			(int)pf->removed,
			"----------------------------------------");
		added += pf->added;
		removed += pf->removed;
	}
	fprintf(out, " %zu file%s changed, %zu insertion%s(+), %zu "
		"deletion%s(-)\n\n", nr_files, nr_files == 1 ? "" : "s", added,
		added == 1 ? "" : "s", removed, removed == 1 ? "" : "s");
	fputs(diff, out);
	fprintf(out, "-- \ntrapcheck %s\n\n",
		TRAPCHECK_VERSION);
	fclose(out);
	return buf;
}

#define PATCH_NAME_MAX 64	/* git's format.filenameMaxLength default */

char *patch_name(unsigned int n, const char *subject)
{
	char *s = xasprintf("%04u-%s.patch", n, subject), *q = s + 5;
	const char *p;
	bool gap = false;
	size_t max = PATCH_NAME_MAX - strlen(".patch") - 1;

	/* git's format_sanitized_subject() */
	for (p = subject; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_') {
			if (gap && q > s + 5)
				*q++ = '-';
			gap = false;
			*q++ = *p;
			while (*p == '.' && p[1] == '.')
				p++;
		} else {
			gap = true;
		}
	}
	while (q > s + 5 && (q[-1] == '.' || q[-1] == '-'))
		q--;
	/* then git's fmt_output_subject(): cut, ".patch" */
	if ((size_t)(q - s) > max)
		q = s + max;
	strcpy(q, ".patch");
	return s;
}
