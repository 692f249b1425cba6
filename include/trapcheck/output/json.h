/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields of findings as JSON values (jansson), for the emitters.
 */
#ifndef TRAPCHECK_JSON_H
#define TRAPCHECK_JSON_H

#include <jansson.h>

#include "trapcheck/finding/finding.h"

/*
 * A JSON string of @s made valid UTF-8 (util.h utf8_escape()): jansson
 * refuses other bytes, and a field must never be dropped; null for NULL.
 */
json_t *json_text(const char *s);
/*
 * A file name or a fingerprint: always through utf8_escape(), so that a
 * name spelled with "%XX" is never another's escaped byte.
 */
json_t *json_path(const char *s);
/*
 * The configurations of a finding's note (trapcheck report --db
 * NAME=FILE).
 */
json_t *json_finding_configs(const struct finding_note *n);
/* Its config_syms, a JSON array of strings. */
json_t *json_finding_config_syms(const struct finding_note *n);

#endif /* TRAPCHECK_JSON_H */
