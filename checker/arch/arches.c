// SPDX-License-Identifier: GPL-2.0
/*
 * arches.c - the registry of architectures: each one's struct arch, in
 * the order of arches.def (the first is the default), given to the
 * generic layers (model/arch.h: arch_register()) before main() runs. No
 * generic module names an architecture's symbol: the seam runs one way
 * (tests/e2e/layers.t). The programs link every object of checker/arch/
 * whole (the Makefile), as the kernel links its initcalls.
 */
#include "trapcheck/model/arch.h"
#include "trapcheck/base/util.h"

#define ARCH(name) extern const struct arch arch_##name;
#include "arches.def"
#undef ARCH

static const struct arch *const arches[] = {
#define ARCH(name) &arch_##name,
#include "arches.def"
#undef ARCH
};

static void __attribute__((constructor)) arches_register(void)
{
	arch_register(arches, ARRAY_SIZE(arches));
}
