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

/*
 * A trapping instruction as the guest's code has it (an architecture's,
 * trace.h struct trace_kind_def): @size bytes read as an integer in the
 * ELF file's byte order, equal to @value under @mask, at every @align
 * bytes of the executable sections, in a vmlinux of machine @machine or
 * @machine2 (EM_*; 0: none).
 */
struct dwsym_insn {
	unsigned short machine, machine2;
	unsigned int size, align;
	unsigned long value, mask;
};

/*
 * The addresses of every @insn instruction in the executable sections of
 * the vmlinux (x86: every place the two bytes occur, instruction or not),
 * into a malloc'ed *@addrs, ascending. Returns how many (0: none, or the
 * vmlinux is of another architecture).
 */
size_t dwsym_insns(struct dwsym *s, const struct dwsym_insn *insn,
		   unsigned long long **addrs);
void dwsym_close(struct dwsym *s);

#endif /* TRAPCHECK_DWSYM_H */
