// SPDX-License-Identifier: GPL-2.0
/*
 * arch/x86.c - x86: its sinks (x86/sinks.def: the CPUID wrappers and
 * CPUID in inline assembly), what they cost in a guest
 * (x86/registers.def), where its KVM host code lives (x86/context.def),
 * its patch subjects, and its advice (x86-rules.c). No tables read from
 * the tree yet, no guard atoms of its own, no rewrite.
 */
#include "trapcheck/arch.h"
#include "trapcheck/util.h"

#define CALL SINK_CALL
#define ASM SINK_ASM
#define IDREG SINK_IDREG
#define ENTROPY SINK_ENTROPY
#define LEAF SINK_ARG_LEAF
#define NONE SINK_ARG_NONE
static const struct sink_def sinks[] = {
#define SINK(how, name, class, arg, opaque, reg) \
	{ how, name, class, arg, opaque, reg },
#include "x86/sinks.def"
#undef SINK
};
#undef NONE

/* What makes an identification read exit. */
enum { X86_NONE = TRAP_NONE, X86_CPUID };

static const struct reg_def regs[] = {
#define REG(name, trap) { #name, X86_ ## trap },
#include "x86/registers.def"
#undef REG
};

static const char *const trap_names[] = {
	[X86_NONE] = "none", [X86_CPUID] = "unconditional CPUID exit",
};

static const char *const triples[] = {
	"x86_64-", "i386-", "i486-", "i586-", "i686-",
};

static const struct arch_path areas[] = {
	{ "arch/x86/kvm/", "KVM: x86" },
	{ "arch/x86/", NULL },
};

static const char *const host_paths[] = {
#define NESTED_PATH(prefix) prefix,
#include "x86/context.def"
#undef NESTED_PATH
};

const struct arch arch_x86 = {
	.name = "x86",
	ARCH_TABLE(triples),
	ARCH_TABLE(sinks),
	ARCH_TABLE(regs),
	ARCH_TABLE(trap_names),
	ARCH_TABLE(areas),
	ARCH_TABLE(host_paths),
	.rules = &x86_rules,
};
