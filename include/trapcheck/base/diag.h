/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one route of messages about the run to stderr (objtool's warn.h):
 * errors, warnings and notes with the program's name or a place, and
 * lines of the summary, under the program's quiet and verbose switches.
 * Library modules print through here or return an error with its text;
 * every message is in docs/diagnostics.md, word for word.
 */
#ifndef TRAPCHECK_DIAG_H
#define TRAPCHECK_DIAG_H

#include <stdbool.h>

/* The program's name ("trapcheck") and switches (-q, -v). */
void diag_setup(const char *prog, bool quiet, bool verbose);
bool diag_quiet(void);
bool diag_verbose(void);

#define DIAG_FORMAT(n)	__attribute__((format(printf, n, n + 1)))

/* "<prog>: error: ...": always printed. */
void diag_error(const char *fmt, ...) DIAG_FORMAT(1);
/* "<prog>: warning: ...": always printed. */
void diag_warning(const char *fmt, ...) DIAG_FORMAT(1);
/* "<where>: <level>: ...", <level> error, warning or note; notes are not
 * printed when quiet. */
void diag_at(const char *where, const char *level, const char *fmt, ...)
	DIAG_FORMAT(3);
/* A line already made ("<tu>: warning: unknown compiler flag ..."). */
void diag_line(const char *line);
/* "<prog>: ...": how the run ended (interrupted, ...); always printed. */
void diag_status(const char *fmt, ...) DIAG_FORMAT(1);
/* "<prog>: ...": a line of the summary; not printed when quiet. */
void diag_info(const char *fmt, ...) DIAG_FORMAT(1);
/*
 * What the program knows of its terminal (the library reads no
 * environment): its width when the terminal does not say it ($COLUMNS;
 * 0: 80), and whether it takes escape sequences (no: TERM=dumb or none).
 */
void diag_terminal(unsigned int columns, bool dumb);
/*
 * A progress line that rewrites itself (a terminal only; NULL ends it),
 * cut to the terminal's width; on a dumb terminal, no escape sequences:
 * spaces overwrite the last line.
 */
void diag_progress(const char *fmt, ...) DIAG_FORMAT(1);

#endif /* TRAPCHECK_DIAG_H */
