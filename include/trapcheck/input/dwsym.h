/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest PCs to source: a vmlinux with DWARF, read with elfutils' libdw
 * (libdwfl). An address gives the innermost function there (an inlined
 * one's own name: cpu_has_hw_af(), not its caller) and the source line of
 * the instruction, as the compiler recorded them.
 */
#ifndef TRAPCHECK_DWSYM_H
#define TRAPCHECK_DWSYM_H

#include <stdbool.h>
#include <stddef.h>

struct dwsym;

/* Open @vmlinux; 0, or -errno with a one-line message in @err. */
int dwsym_open(struct dwsym **out, const char *vmlinux, char *err,
	       size_t errlen);
/*
 * The function, source file (as DWARF names it) and line of @addr, a
 * link-time address. Strings live as long as @s. False when no DWARF
 * covers it.
 */
bool dwsym_lookup(struct dwsym *s, unsigned long long addr,
		  const char **func, const char **file, int *line);
/* A function the code at an address runs in, innermost first. */
struct dwsym_frame {
	const char *func;
	const char *file;	/* the instruction's, or the call's inlined */
	int line;
};

/*
 * The functions inlined into one another at @addr, innermost first, each
 * with where its code runs: the innermost's instruction, then for each
 * outer one the line that called (inlined) the one inside. Fills at most
 * @max; returns how many (0: no DWARF covers @addr).
 */
size_t dwsym_frames(struct dwsym *s, unsigned long long addr,
		    struct dwsym_frame *f, size_t max);
/* The link-time address of symbol @name (_text); false when absent. */
bool dwsym_symbol(struct dwsym *s, const char *name,
		  unsigned long long *addr);

/* Trapping instructions, as the guest's code has them. */
enum dwsym_insn {
	DWSYM_MRS,		/* arm64: MRS Xt, S3_<op1>_C<n>_C<m>_<op2> */
	DWSYM_CPUID,		/* x86: 0f a2 */
	DWSYM_RDMSR,		/* x86: 0f 32 */
};

/*
 * The addresses of every @kind instruction in the executable sections of
 * the vmlinux (x86: every place the two bytes occur, instruction or not),
 * into a malloc'ed *@addrs, ascending. Returns how many (0: none, or the
 * vmlinux is of another architecture).
 */
size_t dwsym_insns(struct dwsym *s, enum dwsym_insn kind,
		   unsigned long long **addrs);
void dwsym_close(struct dwsym *s);

#endif /* TRAPCHECK_DWSYM_H */
