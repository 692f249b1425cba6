// SPDX-License-Identifier: GPL-2.0
/*
 * procpool.c - work items in worker processes (see procpool.h).
 *
 * One pipe carries item numbers to a worker, one carries its results
 * back: a header (item, length) and the bytes. The parent polls the
 * result pipes of busy workers with the nearest deadline as timeout; an
 * end of file before a whole result means the worker died: waitpid()
 * says how, the item fails and the next item gets a new worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/input/procpool.h"

#if defined(__SANITIZE_ADDRESS__)
#define TRAPCHECK_LSAN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAPCHECK_LSAN
#endif
#endif
#ifdef TRAPCHECK_LSAN
#include <sanitizer/lsan_interface.h>
#endif

struct msg_head {
	uint64_t item;
	uint64_t len;
};

struct worker {
	pid_t pid;		/* 0: no process */
	int cmd, res;		/* the parent's ends of the two pipes */
	bool busy;
	size_t item;
	struct timespec started;
	struct bytes buf;	/* the result being read */
};

struct pool {
	const struct procpool_opts *o;
	const struct procpool_ops *ops;
	struct worker *w;
	int nr;
	pid_t parent;
};

static int write_full(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

struct loop_args {
	struct pool *pp;
	int cmd, res;
};

static void *worker_loop(void *arg)
{
	struct loop_args *la = arg;
	struct pool *pp = la->pp;
	struct bytes out = { 0 };
	uint64_t item;

	if (pp->ops->start)
		pp->ops->start(pp->ops->ctx);
	while (read_full(la->cmd, &item, sizeof(item)) == sizeof(item)) {
		struct msg_head h = { .item = item };

		out.len = 0;
		bytes_put(&out, &h, sizeof(h));
		pp->ops->work(pp->ops->ctx, (size_t)item, &out);
		h.len = out.len - sizeof(h);
		memcpy(out.data, &h, sizeof(h));
		if (write_full(la->res, out.data, out.len))
			_exit(1);
	}
	bytes_free(&out);
	if (pp->ops->stop)
		pp->ops->stop(pp->ops->ctx);
	return NULL;
}

static void __attribute__((noreturn)) worker_main(struct pool *pp, int cmd,
						  int res)
{
	struct loop_args la = { .pp = pp, .cmd = cmd, .res = res };
	pthread_attr_t attr;
	pthread_t t;

	/* Ctrl-C reaches the whole process group: the parent decides. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != pp->parent)
		_exit(0);
	/*
	 * Walking a left-deep chain of 20,000 "&&" recurses in libclang
	 * too: the items run on a thread with a stack to match.
	 */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PROCPOOL_STACK);
	if (!pthread_create(&t, &attr, worker_loop, &la))
		pthread_join(t, NULL);
	else
		worker_loop(&la);
	/*
	 * _exit(): the parent's atexit handlers are not ours to run. Under
	 * LeakSanitizer, check this process's leaks first (exit() would).
	 */
#ifdef TRAPCHECK_LSAN
	__lsan_do_leak_check();
#endif
	_exit(0);
}

static void close_worker(struct worker *w)
{
	if (w->cmd >= 0)
		close(w->cmd);
	if (w->res >= 0)
		close(w->res);
	w->cmd = w->res = -1;
	w->pid = 0;
	w->busy = false;
	w->buf.len = 0;
}

static int spawn(struct pool *pp, struct worker *w)
{
	int cmd[2], res[2], i;
	pid_t pid;

	if (pipe2(cmd, O_CLOEXEC))
		return -errno;
	if (pipe2(res, O_CLOEXEC)) {
		int err = -errno;

		close(cmd[0]);
		close(cmd[1]);
		return err;
	}
	fflush(NULL);		/* nothing buffered is written twice */
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(cmd[0]);
		close(cmd[1]);
		close(res[0]);
		close(res[1]);
		return err;
	}
	if (!pid) {
		/* Other workers' pipes would hide their end of file. */
		for (i = 0; i < pp->nr; i++)
			if (&pp->w[i] != w) {
				if (pp->w[i].cmd >= 0)
					close(pp->w[i].cmd);
				if (pp->w[i].res >= 0)
					close(pp->w[i].res);
			}
		close(cmd[1]);
		close(res[0]);
		worker_main(pp, cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	fcntl(res[0], F_SETFL, fcntl(res[0], F_GETFL) | O_NONBLOCK);
	w->pid = pid;
	w->cmd = cmd[1];
	w->res = res[0];
	w->busy = false;
	w->buf.len = 0;
	return 0;
}

enum end { END_DIED, END_TIMEOUT, END_PROTOCOL, END_MEMORY };

/* How a worker ended, for the item it was doing. */
static char *describe_end(pid_t pid, enum end how, unsigned int timeout,
			  unsigned long memory_mib)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (how == END_TIMEOUT)
		return xasprintf("timed out after %u s (parser killed)",
				 timeout);
	if (how == END_PROTOCOL)
		return xstrdup("parser sent a malformed result (killed)");
	if (how == END_MEMORY)
		return xasprintf("used more than %lu MiB of memory (parser "
				 "killed; --tu-memory)", memory_mib);
	if (WIFSIGNALED(status))
		return xasprintf("parser crashed (signal %d: %s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (WIFEXITED(status))
		return xasprintf("parser exited with status %d before "
				 "finishing", WEXITSTATUS(status));
	return xstrdup("parser ended unexpectedly");
}

static void fail_item(struct pool *pp, struct worker *w, enum end how)
{
	size_t item = w->item;
	char *why;

	if (how != END_DIED)
		kill(w->pid, SIGKILL);
	why = describe_end(w->pid, how, pp->o->timeout, pp->o->memory_mib);
	close_worker(w);
	pp->ops->failed(pp->ops->ctx, item, why);
	free(why);
}

/* Read what is there; a whole result is handed to ops->done(). */
static void drain(struct pool *pp, struct worker *w)
{
	struct msg_head h;
	bool eof = false;

	for (;;) {
		unsigned char chunk[65536];
		ssize_t n = read(w->res, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			eof = true;
			break;
		}
		bytes_put(&w->buf, chunk, (size_t)n);
	}
	if (w->buf.len >= sizeof(h)) {
		memcpy(&h, w->buf.data, sizeof(h));
		if (h.item != w->item || w->buf.len - sizeof(h) > h.len) {
			fail_item(pp, w, END_PROTOCOL);
			return;
		}
		if (w->buf.len - sizeof(h) == h.len) {
			w->busy = false;
			w->buf.len = 0;
			pp->ops->done(pp->ops->ctx, w->item,
				      w->buf.data + sizeof(h), h.len);
		}
	}
	if (!eof)
		return;
	if (w->busy) {
		fail_item(pp, w, END_DIED);	/* mid-item */
	} else {
		/* Between items: the next hand_out() starts another. */
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_worker(w);
	}
}

/*
 * Resident memory of process @pid in MiB (/proc/PID/statm), or 0 when it
 * cannot be read. A parser reading a device or a FIFO without end (a
 * header named /dev/zero) grows until this bound, not until the machine's
 * memory is gone.
 */
static unsigned long rss_mib(pid_t pid)
{
	char path[64];
	unsigned long size = 0, rss = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return rss * (unsigned long)sysconf(_SC_PAGESIZE) >> 20;
}

/* How often a busy worker's memory is looked at. */
#define MEMORY_CHECK_MS	250

static long ms_left(const struct worker *w, unsigned int timeout,
		    const struct timespec *now)
{
	long ms = (long)(w->started.tv_sec + timeout - now->tv_sec) * 1000 +
		  (w->started.tv_nsec - now->tv_nsec) / 1000000;

	return ms < 0 ? 0 : ms;
}

/* Give @item to @w, starting a process when it has none. */
static int hand_out(struct pool *pp, struct worker *w, size_t item)
{
	uint64_t v = item;
	int tries, ret = 0;

	for (tries = 0; tries < 3; tries++) {
		if (!w->pid) {
			ret = spawn(pp, w);
			if (ret)
				return ret;
		}
		if (!write_full(w->cmd, &v, sizeof(v))) {
			w->busy = true;
			w->item = item;
			clock_gettime(CLOCK_MONOTONIC, &w->started);
			return 0;
		}
		/* It died between items: reap it and start another. */
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_worker(w);
		ret = -EPIPE;
	}
	return ret;
}

static void stop_all(struct pool *pp, bool kill_them)
{
	int i, status = 0;

	for (i = 0; i < pp->nr; i++) {
		struct worker *w = &pp->w[i];

		if (!w->pid)
			continue;
		if (kill_them)
			kill(w->pid, SIGKILL);
		close(w->cmd);		/* end of file: the worker exits */
		w->cmd = -1;
		while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
			;
		/* All its items were done: a sanitizer's exit, say. */
		if (!kill_them && (!WIFEXITED(status) || WEXITSTATUS(status)))
			diag_warning("a parser process ended with %s %d "
				     "after its last TU",
				WIFEXITED(status) ? "status" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) :
				WTERMSIG(status));
		close_worker(w);
	}
}

int procpool_run(const size_t *items, size_t nr, const struct procpool_opts *o,
		 const struct procpool_ops *ops)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	struct pool pp = { .o = o, .ops = ops, .parent = getpid() };
	struct pollfd *fds;
	int *who, i, ret = 0;
	size_t next = 0;

	pp.nr = o->jobs > 0 ? o->jobs : 1;
	if ((size_t)pp.nr > nr)
		pp.nr = nr ? (int)nr : 1;
	pp.w = xcalloc(pp.nr, sizeof(*pp.w));
	for (i = 0; i < pp.nr; i++)
		pp.w[i].cmd = pp.w[i].res = -1;
	fds = xcalloc(pp.nr, sizeof(*fds));
	who = xcalloc(pp.nr, sizeof(*who));
	/* A worker that died must not take the parent with it. */
	sigaction(SIGPIPE, &ign, &old_pipe);

	for (;;) {
		struct timespec now;
		long wait = -1;
		int nfds = 0;

		if (o->stop && *o->stop) {
			ret = -EINTR;
			break;
		}
		for (i = 0; i < pp.nr && next < nr; i++) {
			if (pp.w[i].busy)
				continue;
			ret = hand_out(&pp, &pp.w[i], items[next]);
			if (ret)
				break;
			next++;
		}
		if (ret) {
			/* No process to do it: fail what is left. */
			char *why = xasprintf("no parser process: %s",
					      strerror(-ret));

			while (next < nr)
				ops->failed(ops->ctx, items[next++], why);
			free(why);
			ret = 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (i = 0; i < pp.nr; i++) {
			struct worker *w = &pp.w[i];
			long left;

			if (!w->busy)
				continue;
			if (o->timeout) {
				left = ms_left(w, o->timeout, &now);
				if (!left) {
					fail_item(&pp, w, END_TIMEOUT);
					continue;
				}
				if (wait < 0 || left < wait)
					wait = left;
			}
			if (o->memory_mib) {
				if (rss_mib(w->pid) > o->memory_mib) {
					fail_item(&pp, w, END_MEMORY);
					continue;
				}
				if (wait < 0 || wait > MEMORY_CHECK_MS)
					wait = MEMORY_CHECK_MS;
			}
			fds[nfds].fd = w->res;
			fds[nfds].events = POLLIN;
			who[nfds++] = i;
		}
		if (!nfds) {
			if (next >= nr)
				break;		/* all done */
			continue;		/* timed out ones: hand out */
		}
		if (poll(fds, nfds, (int)wait) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (i = 0; i < nfds; i++)
			if (fds[i].revents)
				drain(&pp, &pp.w[who[i]]);
	}
	stop_all(&pp, ret != 0);
	sigaction(SIGPIPE, &old_pipe, NULL);
	for (i = 0; i < pp.nr; i++)
		bytes_free(&pp.w[i].buf);
	free(pp.w);
	free(fds);
	free(who);
	return ret;
}
