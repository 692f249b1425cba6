// SPDX-License-Identifier: GPL-2.0
/*
 * failwrite.c - an LD_PRELOAD shim that makes the Nth write to a file fail,
 * as SQLite's own tests inject I/O errors (test_vfs.c): what trapcheck
 * does when its facts database cannot be written (tests/e2e/dbfail.t).
 *
 *   TRAPCHECK_FAILWRITE_PATH=PREFIX   which files count: those whose path
 *                                     starts with PREFIX (the database,
 *                                     its -wal, -shm and -journal)
 *   TRAPCHECK_FAILWRITE=N[:ERRNO][:sticky]
 *                                     the Nth write (write, pwrite,
 *                                     pwrite64, writev, fsync, fdatasync,
 *                                     fallocate) fails with
 *                                     ERRNO (EIO, ENOSPC; default EIO);
 *                                     sticky: every one after it too (a
 *                                     full disk); N = 0: none fails
 *   TRAPCHECK_FAILWRITE_COUNT=FILE    at exit, how many writes counted
 *
 * Only the process that loads it first counts (the parent: forked parser
 * processes never write the database). ftruncate() is not counted: SQLite
 * itself ignores a failed truncation after a checkpoint (the file keeps
 * its size; nothing is lost), so no caller can see one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long fail_at, count;
static int fail_errno = EIO;
static int sticky;
static const char *prefix;
static pid_t owner;

__attribute__((constructor)) static void setup(void)
{
	const char *s = getenv("TRAPCHECK_FAILWRITE");
	char *end;

	prefix = getenv("TRAPCHECK_FAILWRITE_PATH");
	owner = getpid();
	if (!s)
		return;
	fail_at = strtol(s, &end, 10);
	if (strstr(end, "ENOSPC"))
		fail_errno = ENOSPC;
	sticky = strstr(end, "sticky") != NULL;
}

__attribute__((destructor)) static void report(void)
{
	const char *out = getenv("TRAPCHECK_FAILWRITE_COUNT");
	FILE *f;

	if (!out || getpid() != owner)
		return;
	f = fopen(out, "w");
	if (f) {
		fprintf(f, "%ld\n", count);
		fclose(f);
	}
}

/* Does a write to @fd count, and is it the one to fail? */
static int should_fail(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	if (!prefix || getpid() != owner)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	if (strncmp(path, prefix, strlen(prefix)))
		return 0;
	count++;
	if (fail_at && (count == fail_at || (sticky && count > fail_at))) {
		errno = fail_errno;
		return 1;
	}
	return 0;
}

#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (!real_##name) \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(write);
	if (should_fail(fd))
		return -1;
	return real_write(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	REAL(pwrite);
	if (should_fail(fd))
		return -1;
	return real_pwrite(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	REAL(pwrite64);
	if (should_fail(fd))
		return -1;
	return real_pwrite64(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	REAL(writev);
	if (should_fail(fd))
		return -1;
	return real_writev(fd, iov, n);
}

int fsync(int fd)
{
	REAL(fsync);
	if (should_fail(fd))
		return -1;
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(fdatasync);
	if (should_fail(fd))
		return -1;
	return real_fdatasync(fd);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	REAL(fallocate);
	if (should_fail(fd))
		return -1;
	return real_fallocate(fd, mode, off, len);
}

int posix_fallocate(int fd, off_t off, off_t len)
{
	REAL(posix_fallocate);
	if (should_fail(fd))
		return errno;
	return real_posix_fallocate(fd, off, len);
}
