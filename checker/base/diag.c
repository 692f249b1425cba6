// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - messages about the run (diag.h).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "trapcheck/base/diag.h"

static const char *prog = "trapcheck";
static bool quiet, verbose;
static unsigned int term_columns;
static bool term_dumb = true;

void diag_terminal(unsigned int columns, bool dumb)
{
	term_columns = columns;
	term_dumb = dumb;
}

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

/* The terminal's width (TIOCGWINSZ, else diag_terminal()'s, else 80). */
static unsigned int term_width(void)
{
	struct winsize ws;

	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return term_columns ? term_columns : 80;
}

void diag_progress(const char *fmt, ...)
{
	static size_t shown;	/* columns the last line took */
	bool dumb = term_dumb;
	unsigned int width;
	char line[512];
	size_t n = 0;
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	width = term_width();
	line[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
		n = strlen(line);
	}
	/* One column short of the width: no wrap, no stale rows. */
	if (width > 1 && n >= width) {
		n = width - 1;
		line[n] = '\0';
	}
	if (dumb)	/* no escapes: spaces over what was there */
		fprintf(stderr, "\r%s%*s\r%s", line,
			(int)(shown > n ? shown - n : 0), "", fmt ? line : "");
	else
		fprintf(stderr, "\r\033[K%s", line);
	shown = fmt ? n : 0;
	fflush(stderr);
}
