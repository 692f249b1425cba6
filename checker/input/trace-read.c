// SPDX-License-Identifier: GPL-2.0
/*
 * trace-read.c - trace_read(): a trace file read in a child process, so
 * that libtracecmd's crash on a damaged trace.dat is an input error, and
 * under the limits of docs/trace.md (memory, time, lines, sites).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace-internal.h"

/*
 * Under a sanitizer's runtime: a libFuzzer target sets a death callback
 * that writes the input out as its crash. The child's crash is the
 * child's (the parent reports it as trace_bad input), so the child drops it.
 * Not linked in other builds (weak).
 */
extern void __sanitizer_set_death_callback(void (*cb)(void))
	__attribute__((weak));

/* Signals a crash of the reading child is. */
static const int crash_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
};

/* Read @path in this process: a trace.dat, or text. */
static int read_here(struct trace *t, const char *path, FILE *f, char *err,
		     size_t errlen)
{
	char magic[TRACE_DAT_MAGIC_LEN];

	if (fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	    !memcmp(magic, trace_dat_magic, sizeof(magic)))
		return trace_read_dat(t, path, err, errlen);
	rewind(f);
	return trace_read_text_file(t, path, f, err, errlen);
}

/*
 * The child's answer on @fd: "ok TOTAL LINES NR", then a line a site
 * "PC KIND COUNT WHAT"; or "error MESSAGE".
 */
static void __attribute__((noreturn))
send_answer(int fd, const struct trace *t, int ret, const char *err)
{
	FILE *out = fdopen(fd, "w");
	size_t i;

	if (!out)
		_exit(4);
	if (ret) {
		fprintf(out, "error %d %s\n", -ret, err);
	} else {
		fprintf(out, "ok %lu %lu %zu\n", t->total, t->lines, t->nr);
		for (i = 0; i < t->nr; i++)
			fprintf(out, "%llx %d %lu %s\n", t->sites[i].pc,
				(int)t->sites[i].kind, t->sites[i].count,
				t->sites[i].what);
	}
	if (fflush(out) || ferror(out))
		_exit(4);
	_exit(0);
}

/* The child's answer into @t; false when it is not one. */
static bool take_answer(struct trace *t, char *text, int *ret, char *err,
			size_t errlen)
{
	char *line = strtok(text, "\n"), *what;
	unsigned long total, lines, count;
	unsigned long long pc;
	size_t nr, i;
	int kind, n, e;

	if (!line)
		return false;
	if (sscanf(line, "error %d %n", &e, &n) == 1 && n > 0) {
		snprintf(err, errlen, "%s", line + n);
		*ret = e > 0 ? -e : -EINVAL;
		return true;
	}
	if (sscanf(line, "ok %lu %lu %zu", &total, &lines, &nr) != 3 ||
	    nr > TRACE_MAX_SITES)
		return false;
	for (i = 0; i < nr; i++) {
		line = strtok(NULL, "\n");
		if (!line || sscanf(line, "%llx %d %lu %n", &pc, &kind, &count,
				    &n) != 3 || !n || kind < TRACE_SYSREG ||
		    kind > TRACE_MSR)
			return false;
		what = line + n;
		*PUSH(t->sites, t->nr, t->alloc) = (struct trace_site){
			.pc = pc, .kind = kind, .count = count,
			.what = xstrdup(what),
		};
	}
	t->total += total;
	t->lines += lines;
	*ret = 0;
	return true;
}

/*
 * The child's answer from @fd into @b, until the end of the pipe or
 * @deadline; false when the deadline passed.
 */
static bool read_answer(int fd, struct bytes *b, time_t deadline)
{
	char buf[65536];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	time_t now;

	for (;;) {
		now = time(NULL);
		if (now >= deadline)
			return false;
		if (poll(&pfd, 1, (int)(deadline - now) * 1000) < 0) {
			if (errno == EINTR)
				continue;
			return true;	/* read() below says what it is */
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
		bytes_put(b, buf, (size_t)n);
	}
}

/*
 * The child: libtracecmd may crash on a damaged trace.dat, and both
 * readers stay under a memory limit. Sends its answer on @fd and exits.
 */
static void __attribute__((noreturn)) child(const struct trace *t,
					     const char *path, FILE *f,
					     int fd, char *err, size_t errlen)
{
	struct trace mine = { .exits = t->exits, .nr_exits = t->nr_exits };
	int null = open("/dev/null", O_WRONLY), ret;
	size_t i;

	/* The parent says what went wrong, in one line. */
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/* A crash ends the child, plainly: no handler of ours. */
	for (i = 0; i < ARRAY_SIZE(crash_signals); i++)
		signal(crash_signals[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
#ifndef TRAPCHECK_SANITIZED
	setrlimit(RLIMIT_AS, &(struct rlimit){ TRACE_MAX_MEMORY,
					       TRACE_MAX_MEMORY });
#endif
	ret = read_here(&mine, path, f, err, errlen);
	one_line(err);
	send_answer(fd, &mine, ret, err);
}

/* How the child ended, into @t or one line in @err. */
static int child_result(struct trace *t, const char *path, int status,
			bool hung, unsigned long long limit,
			struct bytes *b, char *err, size_t errlen)
{
	int ret = -EINVAL;

	if (hung)
		snprintf(err, errlen, "%s: reading it took more than %llu s "
			 "(the limit of docs/trace.md): a damaged trace.dat?",
			 path, limit);
	else if (WIFSIGNALED(status))
		snprintf(err, errlen, "%s: reading it crashed (signal %d: %s): "
			 "a damaged trace.dat?", path, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == TC_EXIT_INTERNAL)
		snprintf(err, errlen, "%s: reading it ran out of memory (the "
			 "limit is %llu MiB)", path, TRACE_MAX_MEMORY >> 20);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) ||
		 !take_answer(t, (char *)b->data, &ret, err, errlen))
		snprintf(err, errlen, "%s: reading it failed (exit status "
			 "%d)", path, WIFEXITED(status) ?
			 WEXITSTATUS(status) : -1);
	else
		return ret;
	one_line(err);
	return -EINVAL;
}

/* A trace.dat's layout, checked here: most damage costs no child. */
static int check_dat(const char *path, FILE *f, unsigned long long size,
		     char *err, size_t errlen)
{
	char buf[TRACE_DAT_MAGIC_LEN];
	int ret = 0;

	if (fread(buf, 1, TRACE_DAT_MAGIC_LEN, f) == TRACE_DAT_MAGIC_LEN &&
	    !memcmp(buf, trace_dat_magic, TRACE_DAT_MAGIC_LEN))
		ret = trace_dat_check(path, fileno(f), size, err, errlen);
	rewind(f);
	return ret;
}

int trace_read(struct trace *t, const char *path, char *err, size_t errlen)
{
	unsigned long long size = 0, limit;
	struct bytes b = { 0 };
	int fds[2], status, ret;
	struct stat sb;
	bool hung;
	pid_t pid;
	FILE *f;

	ret = input_open(path, "the trace", 0, &f, err, errlen);
	if (ret)
		return ret;
	if (!fstat(fileno(f), &sb))
		size = (unsigned long long)sb.st_size;
	ret = check_dat(path, f, size, err, errlen);
	if (!ret && pipe2(fds, O_CLOEXEC))
		ret = -errno;
	if (!ret) {
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			ret = -errno;
			close(fds[0]);
			close(fds[1]);
		} else if (!pid) {
			close(fds[0]);
			child(t, path, f, fds[1], err, errlen);
		}
	}
	if (ret) {
		if (ret != -EINVAL)
			snprintf(err, errlen, "%s: cannot read: %s", path,
				 strerror(-ret));
		fclose(f);
		return ret;
	}
	close(fds[1]);
	fclose(f);
	limit = TRACE_BASE_SECONDS + (size >> 20);
	hung = !read_answer(fds[0], &b, time(NULL) + (time_t)limit);
	close(fds[0]);
	if (hung)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	bytes_put(&b, "", 1);
	ret = child_result(t, path, status, hung, limit, &b, err, errlen);
	bytes_free(&b);
	return ret;
}
