// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - what every JSON emitter writes a finding's fields with
 * (emit.c, emit-sarif.c, baseline.c, trapcheck trace): strings made
 * valid UTF-8, and a finding's configurations as arrays.
 */
#include <stdlib.h>

#include "trapcheck/output/json.h"

json_t *json_text(const char *s)
{
	json_t *j;
	char *e;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	e = utf8_escape(s);
	j = json_string(e);
	free(e);
	return j ? j : json_null();
}

json_t *json_path(const char *s)
{
	char *e;
	json_t *j;

	if (!s)
		return json_null();
	e = utf8_escape(s);
	j = json_string(e);
	free(e);
	return j ? j : json_null();
}

static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
}

json_t *json_finding_configs(const struct finding_note *n)
{
	return strings_json(n->configs, n->nr_configs);
}

json_t *json_finding_config_syms(const struct finding_note *n)
{
	return strings_json((const char *const *)n->config_syms,
			    n->nr_config_syms);
}
