/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hypervisor traces of a guest's traps, as text: the lines of `trace-cmd
 * report` or of tracefs's trace file. What a KVM host records per exit
 * that trapcheck's sinks cause:
 *
 *   kvm_sys_access (arm64, arch/arm64/kvm/trace_handle_exit.h): one per
 *     trapped system register access, "PC: %lx %s (%d,%d,%d,%d,%d) %s"
 *     (guest PC, register name, Op0..Op2, read or write);
 *   kvm_exit (x86, arch/x86/kvm/trace.h): "[vcpu %u ]reason %s rip 0x%lx
 *     info1 ..." with the exit reason (VMX: CPUID, MSR_READ; SVM: cpuid,
 *     msr with info1 0 for a read);
 *   kvm_msr (x86): "msr_read %x = 0x%llx", after the kvm_exit of an MSR
 *     read on the same CPU: which MSR it was.
 *
 * The exit reasons that count come from the run's architecture
 * (struct trace_exit). Other events are skipped; a line that is no event line, no comment and
 * no header of either format is an error naming the line.
 */
#ifndef TRAPCHECK_TRACE_H
#define TRAPCHECK_TRACE_H

#include <stdbool.h>
#include <stddef.h>

enum trace_kind {
	TRACE_SYSREG,		/* arm64: a trapped system register read */
	TRACE_CPUID,		/* x86: a CPUID exit */
	TRACE_MSR,		/* x86: an RDMSR exit */
};

/* The traps at one guest PC of one kind and register: how many. */
struct trace_site {
	unsigned long long pc;
	enum trace_kind kind;
	char *what;		/* "ID_AA64MMFR1_EL1", "CPUID", "MSR 0x48" */
	unsigned long count;
};

/*
 * A kvm_exit reason that a sink causes, as the trace names it ("CPUID",
 * "EXIT_MSR"): an architecture's table (x86/kvm-exits.def), given to the
 * reader in struct trace; @read: only with info1 0 (SVM's MSR exit).
 */
struct trace_exit {
	const char *reason;
	enum trace_kind kind;	/* TRACE_CPUID or TRACE_MSR */
	bool read;
};

struct trace {
	/* In: the kvm_exit reasons to count (none: kvm_exit is skipped). */
	const struct trace_exit *exits;
	size_t nr_exits;
	/* Out: */
	struct trace_site *sites;
	size_t nr, alloc;
	unsigned long total;	/* traps counted */
	unsigned long lines;	/* event lines read */
};

/*
 * Count the traps of trace file @path into @t. Returns 0, or -EINVAL
 * with "FILE:LINE: why" in @err (a line that is no trace line, a trap
 * event whose fields do not parse), or -errno (unreadable).
 */
int trace_read(struct trace *t, const char *path, char *err, size_t errlen);
/* Count the traps of the lines of @text (for the fuzz target). */
int trace_read_text(struct trace *t, const char *name, const char *text,
		    char *err, size_t errlen);
void trace_free(struct trace *t);

struct dwsym;

/*
 * The KASLR offset that puts the most of the trace's busiest PCs on a
 * trapping instruction of the vmlinux (an MRS of an op0=3 register,
 * CPUID, RDMSR): each PC votes for every offset, a multiple of the
 * randomisation's granularity (arm64 64 KiB, x86 2 MiB), that places it
 * on one (trace-kaslr.c). 0 when the trace has no trap or the PCs are
 * where the vmlinux has them; -EINVAL with a message in @err when no
 * offset stands out.
 */
int trace_kaslr_infer(const struct trace *t, struct dwsym *d,
		      unsigned long long *off, char *err, size_t errlen);

#endif /* TRAPCHECK_TRACE_H */
