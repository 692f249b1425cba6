/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emit-internal.h - what the JSON and SARIF emitters share (not public
 * API: include/trapcheck/output/emit.h is).
 */
#ifndef TRAPCHECK_EMIT_INTERNAL_H
#define TRAPCHECK_EMIT_INTERNAL_H

#include <jansson.h>

/* @s as a JSON string, or null. */
json_t *jstr(const char *s);

#endif /* TRAPCHECK_EMIT_INTERNAL_H */
