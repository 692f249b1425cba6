/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86.h - what the files of checker/arch/x86/ share: the rules' part
 * (x86-rules.c), which x86.c's struct arch points at.
 */
#ifndef TRAPCHECK_ARCH_X86_H
#define TRAPCHECK_ARCH_X86_H

#include "trapcheck/model/arch.h"

extern const struct arch_rules x86_rules;

#endif /* TRAPCHECK_ARCH_X86_H */
