/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/: a temporary
 * file with a per-process name under /tmp, removed after each input.
 */
#ifndef TRAPCHECK_FUZZ_H
#define TRAPCHECK_FUZZ_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Write @size bytes of @data to /tmp/trapcheck-fuzz-<pid>-<tag><suffix>
 * (the same name for every input of one process) and return the path
 * in @path, or NULL when it could not be written.
 */
static inline const char *fuzz_temp(char *path, size_t len, const char *tag,
				    const char *suffix, const uint8_t *data,
				    size_t size)
{
	size_t off = 0;
	int fd;

	snprintf(path, len, "/tmp/trapcheck-fuzz-%d-%s%s", (int)getpid(), tag,
		 suffix);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return NULL;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			close(fd);
			unlink(path);
			return NULL;
		}
		off += (size_t)n;
	}
	if (close(fd)) {
		unlink(path);
		return NULL;
	}
	return path;
}

/* A broken property: say which (run.sh prints "fuzz-check:" lines). */
#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz-check: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* A NUL-terminated copy of the input (libFuzzer's is not terminated). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The error message contract (docs/diagnostics.md: "trapcheck: error:
 * <file>: <problem>"): a module that fails writes one line into @err; it
 * must be NUL-terminated within @errlen, not empty, and hold no newline.
 * TRAPCHECK_FUZZ_LAX_MESSAGES=1 turns the check off, to keep fuzzing for
 * memory errors while a known message bug is open.
 */
static inline void fuzz_check_err(const char *err, size_t errlen, int ret)
{
	static int lax = -1;

	if (lax < 0)
		lax = getenv("TRAPCHECK_FUZZ_LAX_MESSAGES") != NULL;
	if (!ret || lax)
		return;
	if (!memchr(err, '\0', errlen) || !err[0] || strchr(err, '\n')) {
		fprintf(stderr, "fuzz-check: error message not one line: "
			"'%.*s'\n",
			(int)errlen, err);
		abort();
	}
}

#ifdef TRAPCHECK_TRACE_H
/*
 * The trace events of every registered architecture (model/arch.h), and
 * the most kinds any of them has: the kinds' numbers overlap between
 * architectures, which a count does not mind.
 */
static inline void fuzz_trace_events(struct trace *t)
{
	static struct trace_event ev[16];
	static size_t nr;
	const struct arch *a;
	size_t i, j;

	if (!nr)
		for (i = 0; (a = arch_at(i)); i++)
			for (j = 0; j < a->nr_trace_events && nr < 16; j++)
				ev[nr++] = a->trace_events[j];
	t->events = ev;
	t->nr_events = nr;
	for (i = 0; (a = arch_at(i)); i++)
		if (a->nr_trace_kinds > t->nr_kinds) {
			t->kinds = a->trace_kinds;
			t->nr_kinds = a->nr_trace_kinds;
		}
}
#endif

#endif /* TRAPCHECK_FUZZ_H */
