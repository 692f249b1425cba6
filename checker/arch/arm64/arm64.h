/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64.h - what the files of checker/arch/arm64/ share: the rules' part
 * (arm64-rules.c), which arm64.c's struct arch points at, and the rewrite
 * of a local-CPU capability check (arm64-capfix.c) it holds.
 */
#ifndef TRAPCHECK_ARCH_ARM64_H
#define TRAPCHECK_ARCH_ARM64_H

#include "trapcheck/model/arch.h"

extern const struct arch_rules arm64_rules;

bool arm64_fix_cap_check(const struct fix_ctx *ctx, struct fix_edit *e,
			 char **why);

#endif /* TRAPCHECK_ARCH_ARM64_H */
