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
 *
 * "io" (the x86 oracle, tests/oracle/run-qemu-x86.sh) runs instead, each
 * round: every file of the zstd-compressed squashfs image on /dev/vda
 * read after the page cache is dropped (one decompression per block),
 * ZRAM_PAGES pages written to and read back from a zstd zram disk with
 * O_DIRECT (one compression and one decompression per page), and
 * GETRANDOM_CALLS getrandom() calls.
 *
 * "kvm" (arm64, the nested oracle, tests/oracle/run-qemu-kvm.sh): this
 * kernel is a KVM host at the EL2 QEMU gives it; init makes a VM with one
 * vCPU whose code stores to an address no memory slot covers, forever,
 * and runs it KVM_RUNS times: each KVM_RUN is a vcpu load and put and one
 * world switch in and out (an MMIO exit back to init). "kvm-debug": the
 * guest first sets MDSCR_EL1.MDE (monitor debug on), so KVM saves and
 * restores the debug registers on every world switch.
 *
 * "exec": EXEC_ROUNDS * EXECS short-lived processes, each a fork() and an
 * execve() of init that exits at once, then EXEC_FRESH of a copy of init
 * written again before each run (its pages mapped executable while not
 * known clean: the instruction cache maintenance of a new binary); the
 * plugin oracle's exec-heavy run, tests/oracle/run-qemu-kvm.sh with
 * TRAPCHECK_ORACLE_MODES=guest.
 */

#define PAGE 4096UL
#define ANON_PAGES 4096UL	/* 16 MiB */
#define FILE_PAGES 1024UL	/* 4 MiB */
#define ROUNDS 4
#define GETRANDOM_CALLS 20000
#define SYSCALLS 50000
#define EXECS 8
/* "exec": many short-lived processes, each a fork() and an execve(). */
#define EXEC_ROUNDS	250
/* ... and as many of a copy of init written again before each. */
#define EXEC_FRESH	200
#define FRESH		"/fresh"
#define ZRAM_PAGES 1024UL	/* 4 MiB */
#define KVM_RUNS 2000

#ifndef O_DIRECT
#define O_DIRECT 040000		/* x86's and the generic value */
#endif
#ifndef MS_RDONLY
#define MS_RDONLY 1
#endif

static void say(const char *s)
{
	write(1, s, strlen(s));
}

static void power_off(void)
{
#ifdef __x86_64__
	/* No ACPI in the x86 oracle kernel: a restart, which QEMU's
	 * -no-reboot turns into its exit.
	 */
	reboot(LINUX_REBOOT_CMD_RESTART);
#else
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
#endif
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

/*
 * A fresh copy of init written to FRESH (the page cache's pages of it
 * written again, so not known clean: arm64's __sync_icache_dcache()
 * maintains each page when it is first mapped executable), then run:
 * EXEC_FRESH times. Returns how many ran.
 */
static int fresh_execs(const char *self)
{
	static char buf[1 << 20];
	char *argv[] = { FRESH, "exit", NULL };
	char *envp[] = { NULL };
	int i, fd, status, ran = 0;
	ssize_t n;
	pid_t pid;

	fd = open(self, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || n == sizeof(buf))
		return 0;
	for (i = 0; i < EXEC_FRESH; i++) {
		fd = open(FRESH, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		if (fd < 0 || write(fd, buf, n) != n) {
			if (fd >= 0)
				close(fd);
			return ran;
		}
		close(fd);
		pid = fork();
		if (pid == 0) {
			execve(FRESH, argv, envp);
			exit(1);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && !WEXITSTATUS(status))
			ran++;
	}
	return ran;
}

/* Writes S to the file PATH (a sysfs or procfs knob); 0 or -1. */
static int knob(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static void say_num(const char *what, unsigned long n)
{
	char buf[24];
	int i = sizeof(buf);

	buf[--i] = 0;
	do {
		buf[--i] = '0' + n % 10;
		n /= 10;
	} while (n);
	say(what);
	say(buf + i);
	say("\n");
}

/* Every file under /mnt (the image's flat directory), read whole. */
static unsigned long read_image(void)
{
	static char buf[65536];
	unsigned long total = 0;
	char name[] = "/mnt/f00";
	int i, fd;
	ssize_t n;

	for (i = 0; i < 100; i++) {
		name[6] = '0' + i / 10;
		name[7] = '0' + i % 10;
		fd = open(name, O_RDONLY);
		if (fd < 0)
			break;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		close(fd);
	}
	return total;
}

static void squashfs_reads(int round)
{
	if (round == 0 &&
	    mount("/dev/vda", "/mnt", "squashfs", MS_RDONLY, NULL) < 0) {
		say("oracle: io: cannot mount /dev/vda\n");
		return;
	}
	knob("/proc/sys/vm/drop_caches", "3");
	say_num("oracle: io: squashfs bytes read ", read_image());
}

static void zram_pages(int round)
{
	static char page[PAGE] __attribute__((aligned(4096)));
	unsigned long i, done = 0;
	int fd;

	if (round == 0 &&
	    (knob("/sys/block/zram0/comp_algorithm", "zstd") < 0 ||
	     knob("/sys/block/zram0/disksize", "16M") < 0)) {
		say("oracle: io: cannot set up zram0\n");
		return;
	}
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	if (fd < 0) {
		say("oracle: io: cannot open /dev/zram0\n");
		return;
	}
	for (i = 0; i < ZRAM_PAGES; i++) {
		memset(page, 'a' + i % 26, PAGE / 2);
		page[0] = (char)i;
		if (write(fd, page, PAGE) == PAGE)
			done++;
	}
	lseek(fd, 0, SEEK_SET);
	for (i = 0; i < ZRAM_PAGES; i++)
		if (read(fd, page, PAGE) == PAGE)
			done++;
	close(fd);
	say_num("oracle: io: zram pages written and read ", done);
}

static void io(void)
{
	int round;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/mnt", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	for (round = 0; round < ROUNDS; round++) {
		squashfs_reads(round);
		zram_pages(round);
		random_numbers();
	}
}

#ifdef __aarch64__
#include <linux/kvm.h>

/* The guest: x1 = 0x10000000 (no memory there); str x0, [x1]; b .-4 */
static const unsigned int guest_code[] = {
	0xd2a20001, 0xf9000020, 0x17ffffff,
};
/* The same after x0 = MDSCR_EL1.MDE; msr mdscr_el1, x0 */
static const unsigned int guest_debug_code[] = {
	0xd2900000, 0xd5100240, 0xd2a20001, 0xf9000020, 0x17ffffff,
};
#define GUEST_BASE 0x80000000UL

static void kvm_runs(int debug)
{
	struct kvm_userspace_memory_region mem = { 0 };
	struct kvm_vcpu_init init;
	struct kvm_one_reg reg;
	unsigned long long pc = GUEST_BASE;
	struct kvm_run *run;
	unsigned long exits = 0;
	int kvm, vm, vcpu, i, sz;
	char *ram;

	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	kvm = open("/dev/kvm", O_RDWR);
	vm = kvm < 0 ? -1 : ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		say("oracle: kvm: cannot create a VM\n");
		return;
	}
	ram = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (debug)
		memcpy(ram, guest_debug_code, sizeof(guest_debug_code));
	else
		memcpy(ram, guest_code, sizeof(guest_code));
	mem.guest_phys_addr = GUEST_BASE;
	mem.memory_size = 65536;
	mem.userspace_addr = (unsigned long)ram;
	vcpu = ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem) < 0 ? -1 :
		ioctl(vm, KVM_CREATE_VCPU, 0);
	sz = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || sz <= 0 ||
	    ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init) < 0 ||
	    ioctl(vcpu, KVM_ARM_VCPU_INIT, &init) < 0) {
		say("oracle: kvm: cannot make the vCPU\n");
		return;
	}
	reg.id = KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE |
		 (__builtin_offsetof(struct kvm_regs, regs.pc) / 4);
	reg.addr = (unsigned long)&pc;
	run = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (ioctl(vcpu, KVM_SET_ONE_REG, &reg) < 0 || run == MAP_FAILED) {
		say("oracle: kvm: cannot set the vCPU's PC\n");
		return;
	}
	for (i = 0; i < KVM_RUNS; i++)
		if (ioctl(vcpu, KVM_RUN, 0) == 0 &&
		    run->exit_reason == KVM_EXIT_MMIO)
			exits++;
	say_num("oracle: kvm: MMIO exits ", exits);
}
#else
static void kvm_runs(int debug)
{
	(void)debug;
	say("oracle: kvm: arm64 only\n");
}
#endif

/*
 * What the kernel decided of the CPU's vulnerabilities, as sysfs says it
 * (drivers/base/cpu.c: the files every architecture has): a fix must not
 * change it (tests/oracle/fixcheck.py compares two boots' lines).
 */
static const char *const vulnerabilities[] = {
	"meltdown", "spectre_v1", "spectre_v2", "spec_store_bypass",
	"l1tf", "mds", "tsx_async_abort", "itlb_multihit", "srbds",
	"mmio_stale_data", "retbleed", "spec_rstack_overflow",
	"gather_data_sampling", "reg_file_data_sampling",
};

static void say_vulnerabilities(void)
{
	char buf[256];
	unsigned int i;

	mkdir("/sys", 0755);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	for (i = 0; i < sizeof(vulnerabilities) / sizeof(*vulnerabilities);
	     i++) {
		static const char dir[] =
			"/sys/devices/system/cpu/vulnerabilities/";
		char path[128];
		ssize_t n;
		int fd;

		memcpy(path, dir, sizeof(dir) - 1);
		memcpy(path + sizeof(dir) - 1, vulnerabilities[i],
		       strlen(vulnerabilities[i]) + 1);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		say("oracle: vulnerabilities: ");
		say(vulnerabilities[i]);
		say(": ");
		say(buf);
		if (buf[n - 1] != '\n')
			say("\n");
	}
}

int main(int argc, char **argv)
{
	/* The kernel passes on what it does not know too: the last word. */
	const char *what = argc > 1 ? argv[argc - 1] : "";
	int round;

	if (!strcmp(what, "exit") || getpid() != 1)
		return 0;
	say_vulnerabilities();
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
	if (!strcmp(what, "io")) {
		say("oracle: io\n");
		io();
	}
	if (!strcmp(what, "exec")) {
		say("oracle: exec\n");
		for (round = 0; round < EXEC_ROUNDS; round++)
			execs(argv[0]);
		say_num("oracle: exec: processes run ", EXEC_ROUNDS * EXECS);
		say_num("oracle: exec: fresh copies run ",
			fresh_execs(argv[0]));
	}
	if (!strcmp(what, "kvm") || !strcmp(what, "kvm-debug")) {
		say("oracle: kvm\n");
		kvm_runs(!strcmp(what, "kvm-debug"));
	}
	say("oracle: power off\n");
	power_off();
	return 0;
}
