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

char *patch_format(const struct finding *f, const struct fix_edit *e,
		   const char *diff, size_t added, size_t removed,
		   const struct patch_meta *m)
{
	char *buf = NULL, date[64], *chain;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct tm tm;

	gmtime_r(&m->date, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	chain = chain_text(&f->chain, true);
	fprintf(out, "From 0000000000000000000000000000000000000000 Mon Sep "
		"17 00:00:00 2001\nFrom: %s\nDate: %s\nSubject: [PATCH] %s\n\n",
		m->author, date, e->subject);
	text_wrap(out, "", "", 72, e->body);
	fputc('\n', out);
	text_wrap(out, "", "", 72, f->root ?
		  "The call is reached from a hot path. The chain, as "
		  "trapcheck found it:" :
		  "The site, as trapcheck found it:");
	fprintf(out, "\n  %s:", f->root ? f->root : "site");
	put_chain(out, chain, strlen(f->root ? f->root : "site") + 3);
	fprintf(out, "  %s:%u (rule %s)\n", f->file, f->line, f->rule);
	if (m->signoff)
		fprintf(out, "\nSigned-off-by: %s\n", m->signoff);
	fprintf(out, "---\n %s | %zu %.*s%.*s\n 1 file changed, %zu "
		"insertion%s(+), %zu deletion%s(-)\n\n%s-- \ntrapcheck %s\n\n",
		f->file, added + removed, (int)added,
		"++++++++++++++++++++++++++++++++++++++++", (int)removed,
		"----------------------------------------", added,
		added == 1 ? "" : "s", removed, removed == 1 ? "" : "s", diff,
		TRAPCHECK_VERSION);
	fclose(out);
	free(chain);
	return buf;
}

char *patch_name(unsigned int n, const char *subject)
{
	/* Room for ".patch" even when the slug is no shorter. */
	char *s = xasprintf("%04u-%s.patch", n, subject), *p, *q;
	size_t len = strlen(s) - strlen(".patch");
	bool dash = false;

	s[len] = '\0';
	for (p = q = s + 5; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_') {
			*q++ = *p;
			dash = false;
		} else if (!dash && q > s + 5) {
			*q++ = '-';
			dash = true;
		}
	}
	while (q > s + 5 && q[-1] == '-')
		q--;
	strcpy(q, ".patch");
	return s;
}
