// SPDX-License-Identifier: GPL-2.0
/*
 * emit-codequality.c - the findings as a GitLab code quality report (the
 * Code Climate issue format GitLab reads from artifacts:reports:
 * codequality): one issue per finding, with its rule, place, message
 * and fingerprint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "trapcheck/output/emit.h"
#include "trapcheck/output/json.h"

/* A guest's warning is major; a nested host's minor; a low one info. */
static json_t *issue_json(const struct finding *f, bool low)
{
	json_t *o = json_object(), *loc = json_object(), *lines = json_object();
	char *fp = finding_fingerprint_hash(f);
	const char *sev = low ? "info" :
			  !strcmp(finding_context(f), "nested") ? "minor" :
			  "major";

	json_object_set_new(o, "description", json_text(f->message));
	json_object_set_new(o, "check_name", json_text(f->rule));
	json_object_set_new(o, "fingerprint", json_path(fp));
	json_object_set_new(o, "severity", json_string(sev));
	json_object_set_new(lines, "begin", json_integer(f->site->line));
	json_object_set_new(loc, "path", json_path(f->site->file));
	json_object_set_new(loc, "lines", lines);
	json_object_set_new(o, "location", loc);
	free(fp);
	return o;
}

int emit_codequality(FILE *out, const struct findings *fs,
		     const struct findings *low)
{
	json_t *arr = json_array();
	size_t i;
	int ret = 0;

	for (i = 0; i < fs->nr; i++)
		json_array_append_new(arr, issue_json(&fs->v[i], false));
	for (i = 0; low && i < low->nr; i++)
		json_array_append_new(arr, issue_json(&low->v[i], true));
	if (json_dumpf(arr, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || fflush(out))
		ret = -EIO;
	json_decref(arr);
	return ret || ferror(out) ? -EIO : 0;
}
