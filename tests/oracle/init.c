// SPDX-License-Identifier: GPL-2.0
/*
 * init of the oracle kernel (tests/oracle/run-qemu.sh, docs/measured.md):
 * the guest workload whose trapping ID-register reads QEMU counts.
 *
 * Built static with the kernel's own nolibc (tools/include/nolibc), so no
 * arm64 C library is needed. The kernel passes what follows "--" on its
 * command line as arguments: "boot" powers off at once (the boot's reads
 * alone), "workload" runs each part below first, then powers off.
 *
 * The parts are what the root sets of trapcheck name as hot: page faults
 * (anonymous, file-backed, copy-on-write after fork), the CRNG
 * (getrandom()), plain system calls, and exec (which takes random numbers
 * for the stack and mmap bases).
 */

#define PAGE 4096UL
#define ANON_PAGES 4096UL	/* 16 MiB */
#define FILE_PAGES 1024UL	/* 4 MiB */
#define ROUNDS 4
#define GETRANDOM_CALLS 20000
#define SYSCALLS 50000
#define EXECS 8

static void say(const char *s)
{
	write(1, s, strlen(s));
}

static void power_off(void)
{
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	for (;;)
		;
}

static void anon_faults(void)
{
	char *p;
	unsigned long i;

	p = mmap(NULL, ANON_PAGES * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		say("oracle: mmap failed\n");
		return;
	}
	for (i = 0; i < ANON_PAGES; i++)
		p[i * PAGE] = (char)i;
	munmap(p, ANON_PAGES * PAGE);
}

/* A file in the initramfs's tmpfs, mapped and read: filemap faults. */
static void file_faults(void)
{
	static char buf[PAGE];
	volatile char sum = 0;
	unsigned long i;
	char *p;
	int fd;

	fd = open("/oracle.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		say("oracle: open failed\n");
		return;
	}
	for (i = 0; i < FILE_PAGES; i++) {
		buf[0] = (char)i;
		write(fd, buf, PAGE);
	}
	p = mmap(NULL, FILE_PAGES * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		for (i = 0; i < FILE_PAGES; i++)
			sum += p[i * PAGE];
		munmap(p, FILE_PAGES * PAGE);
	}
	close(fd);
	unlink("/oracle.dat");
}

/* Copy-on-write: the child writes to pages the parent wrote first. */
static void cow_faults(void)
{
	char *p;
	unsigned long i;
	int status;
	pid_t pid;

	p = mmap(NULL, ANON_PAGES * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (i = 0; i < ANON_PAGES; i++)
		p[i * PAGE] = 1;
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < ANON_PAGES; i++)
			p[i * PAGE] = 2;
		exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	munmap(p, ANON_PAGES * PAGE);
}

static void random_numbers(void)
{
	unsigned char buf[16];
	int i;

	for (i = 0; i < GETRANDOM_CALLS; i++)
		my_syscall3(__NR_getrandom, buf, sizeof(buf), 0);
}

static void syscalls(void)
{
	int i;

	for (i = 0; i < SYSCALLS; i++)
		getppid();
}

static void execs(const char *self)
{
	char *argv[] = { (char *)self, "exit", NULL };
	char *envp[] = { NULL };
	int i, status;
	pid_t pid;

	for (i = 0; i < EXECS; i++) {
		pid = fork();
		if (pid == 0) {
			execve(self, argv, envp);
			exit(1);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
	}
}

int main(int argc, char **argv)
{
	/* The kernel passes on what it does not know too: the last word. */
	const char *what = argc > 1 ? argv[argc - 1] : "";
	int round;

	if (!strcmp(what, "exit") || getpid() != 1)
		return 0;
	if (!strcmp(what, "workload")) {
		say("oracle: workload\n");
		for (round = 0; round < ROUNDS; round++) {
			anon_faults();
			file_faults();
			cow_faults();
			random_numbers();
			syscalls();
			execs(argv[0]);
		}
	}
	say("oracle: power off\n");
	power_off();
	return 0;
}
