// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - messages about the run (diag.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trapcheck/base/diag.h"

static const char *prog = "trapcheck";
static bool quiet, verbose;

void diag_setup(const char *name, bool q, bool v)
{
	prog = name;
	quiet = q;
	verbose = v;
}

bool diag_quiet(void)
{
	return quiet;
}

bool diag_verbose(void)
{
	return verbose;
}

static void vsay(const char *head, const char *level, const char *fmt,
		 va_list ap)
{
	if (level)
		fprintf(stderr, "%s: %s: ", head, level);
	else
		fprintf(stderr, "%s: ", head);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void diag_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(prog, "error", fmt, ap);
	va_end(ap);
}

void diag_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(prog, "warning", fmt, ap);
	va_end(ap);
}

void diag_at(const char *where, const char *level, const char *fmt, ...)
{
	va_list ap;

	if (quiet && !strcmp(level, "note"))
		return;
	va_start(ap, fmt);
	vsay(where, level, fmt, ap);
	va_end(ap);
}

void diag_line(const char *line)
{
	fprintf(stderr, "%s\n", line);
}

void diag_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(prog, NULL, fmt, ap);
	va_end(ap);
}

void diag_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vsay(prog, NULL, fmt, ap);
	va_end(ap);
}

void diag_progress(const char *fmt, ...)
{
	va_list ap;

	fputs("\r\033[K", stderr);
	if (fmt) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fflush(stderr);
}
