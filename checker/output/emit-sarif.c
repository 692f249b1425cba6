// SPDX-License-Identifier: GPL-2.0
/*
 * emit-sarif.c - SARIF 2.1.0 output (jansson): one result a finding, each
 * root set's chain a code flow, the rules with their help from
 * docs/diagnostics.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "trapcheck/output/emit.h"
#include "trapcheck/rules/rules.h"
#include "trapcheck/base/util.h"
#include "trapcheck/output/json.h"


#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

/* Rule help, word for word from docs/diagnostics.md (generated). */
static const struct {
	const char *id, *help;
} rule_help[] = {
#define RULE_HELP(id, text) { id, text },
#include "rule-help.inc"
#undef RULE_HELP
};

static const char *help_of(const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rule_help); i++)
		if (!strcmp(rule_help[i].id, id))
			return rule_help[i].help;
	return "";
}

static json_t *sarif_location(const char *file, unsigned int line,
			      unsigned int col, const char *msg)
{
	json_t *loc = json_object(), *phys = json_object();
	json_t *art = json_object(), *reg = json_object();
	char *uri = uri_escape(file);

	json_object_set_new(art, "uri", json_text(uri));
	free(uri);
	json_object_set_new(art, "uriBaseId", json_text("SRCROOT"));
	json_object_set_new(phys, "artifactLocation", art);
	if (line) {
		json_object_set_new(reg, "startLine", json_integer(line));
		if (col)
			json_object_set_new(reg, "startColumn",
					    json_integer(col));
		json_object_set_new(phys, "region", reg);
	} else {
		json_decref(reg);
	}
	json_object_set_new(loc, "physicalLocation", phys);
	if (msg) {
		json_t *m = json_object();

		json_object_set_new(m, "text", json_text(msg));
		json_object_set_new(loc, "message", m);
	}
	return loc;
}

static json_t *sarif_flow(const struct chain *c)
{
	json_t *flow = json_object(), *tfs = json_array(), *tf = json_object();
	json_t *locs = json_array();
	size_t i;

	for (i = 0; i < c->len; i++) {
		const struct chain_step *s = &c->steps[i];
		json_t *tfl = json_object();
		char *msg;

		if (i + 1 < c->len)
			msg = xasprintf("%s() calls %s()%s%s%s%s",
					s->function, c->steps[i + 1].function,
					!c->steps[i + 1].via ? "" :
					c->steps[i + 1].inferred ? " through " :
					" as ",
					c->steps[i + 1].via ?
					c->steps[i + 1].via : "",
					s->guards ? " when " : "",
					s->guards ? s->guards : "");
		else
			msg = xasprintf("the sink, in %s()", s->function);
		json_object_set_new(tfl, "location",
				    sarif_location(s->file, s->line, s->col,
						   msg));
		json_object_set_new(tfl, "nestingLevel", json_integer(i));
		json_array_append_new(locs, tfl);
		free(msg);
	}
	json_object_set_new(tf, "locations", locs);
	json_array_append_new(tfs, tf);
	json_object_set_new(flow, "threadFlows", tfs);
	return flow;
}

/* "trapping-idreg-read" -> "TrappingIdregRead": SARIF's rule name. */
static const char *camel(const char *id, char *buf, size_t len)
{
	size_t n = 0;
	bool up = true;

	for (; *id && n + 1 < len; id++) {
		if (*id == '-') {
			up = true;
			continue;
		}
		buf[n++] = up && *id >= 'a' && *id <= 'z' ? *id - 32 : *id;
		up = false;
	}
	buf[n] = '\0';
	return buf;
}

static json_t *text_obj(const char *text)
{
	json_t *o = json_object();

	json_object_set_new(o, "text", json_text(text));
	return o;
}

/*
 * One result per site: each root set's chain (and the other chains of
 * the best one) a codeFlow. A KVM host's read (it traps only under
 * nested virtualisation) and a site of low confidence are notes.
 */
static json_t *sarif_result(const struct findings *fs,
			    const struct finding *f)
{
	const struct finding_note *n = finding_note_of(fs, f);
	json_t *res = json_object(), *locs = json_array();
	json_t *flows = json_array(), *fps = json_object();
	json_t *props = json_object(), *roots = json_array();
	char *fp = finding_fingerprint_hash(f);
	bool note = finding_low(f) || !strcmp(finding_context(f), "nested");
	size_t j, k;

	for (k = 0; rules_at(k); k++)
		if (!strcmp(rules_at(k)->id, f->rule))
			break;
	json_object_set_new(res, "ruleId", json_text(f->rule));
	if (rules_at(k))
		json_object_set_new(res, "ruleIndex", json_integer(k));
	json_object_set_new(res, "level", json_text(note ? "note" :
						      "warning"));
	json_object_set_new(res, "message", text_obj(f->message));
	json_array_append_new(locs, sarif_location(FINDING_AT(f), NULL));
	json_object_set_new(res, "locations", locs);
	if (f->root) {
		json_array_append_new(flows, sarif_flow(&f->chains[0]));
		json_array_append_new(roots, json_text(f->root));
		for (j = 1; j < f->nr_chains; j++)
			json_array_append_new(flows,
					      sarif_flow(&f->chains[j]));
	}
	for (j = 0; j < f->nr_also; j++) {
		json_array_append_new(flows,
				      sarif_flow(&f->also[j].chains[0]));
		json_array_append_new(roots, json_text(f->also[j].root));
	}
	json_object_set_new(res, "codeFlows", flows);
	json_object_set_new(fps, "trapcheck/v2", json_text(fp));
	json_object_set_new(res, "partialFingerprints", fps);
	json_object_set_new(props, "root", json_text(f->root));
	json_object_set_new(props, "roots", roots);
	json_object_set_new(props, "phase", json_text(f->phase));
	json_object_set_new(props, "context", json_text(finding_context(f)));
	if (n && n->nr_configs)
		json_object_set_new(props, "configs",
				    json_finding_configs(n));
	if (n && n->nr_config_syms)
		json_object_set_new(props, "config_symbols",
				    json_finding_config_syms(n));
	json_object_set_new(props, "confidence",
			    json_text(finding_low(f) ? "low" : "high"));
	json_object_set_new(props, "register", json_text(f->read.reg));
	json_object_set_new(props, "trapClass", json_text(f->read.trap));
	json_object_set_new(props, "capability", json_text(f->read.cap));
	json_object_set_new(props, "function", json_text(f->fn->name));
	if (n && n->waiver)
		json_object_set_new(props, "waiver", json_text(n->waiver));
	if (n && n->patch)
		json_object_set_new(props, "patch", json_text(n->patch));
	if (n && n->has_measured)
		json_object_set_new(
			props, "measured",
			n->measured ?
				json_pack("{s:I, s:f}", "count",
					  (json_int_t)n->measured,
					  "share", n->measured_share) :
				json_null());
	json_object_set_new(res, "properties", props);
	if (n && n->waiver) {
		json_t *sups = json_array(), *sup = json_object();

		json_object_set_new(sup, "kind", json_text("inSource"));
		json_object_set_new(sup, "justification",
				    json_text(n->waiver));
		json_array_append_new(sups, sup);
		json_object_set_new(res, "suppressions", sups);
	}
	free(fp);
	return res;
}

int emit_sarif(FILE *out, const struct findings *fs,
	       const struct findings *low, const struct summary *sum,
	       const char *root)
{
	return emit_sarif_more(out, fs, low, sum, root, NULL, NULL);
}

int emit_sarif_more(FILE *out, const struct findings *fs,
		    const struct findings *low, const struct summary *sum,
		    const char *root, json_t *more_rules, json_t *more_results)
{
	json_t *log = json_object(), *runs = json_array(), *run = json_object();
	json_t *tool = json_object(), *driver = json_object();
	json_t *rules = json_array(), *results = json_array();
	json_t *bases = json_object(), *srcroot = json_object();
	const struct rule *rule;
	size_t i;
	char *uri, *esc;
	int ret = 0;

	(void)sum;
	json_object_set_new(log, "$schema", json_text(
		"https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(log, "version", json_text("2.1.0"));
	json_object_set_new(driver, "name", json_text("trapcheck"));
	json_object_set_new(driver, "version", json_text(TRAPCHECK_VERSION));
	json_object_set_new(driver, "informationUri", json_text(
		"https://github.com/trapcheck/trapcheck"));
	for (i = 0; (rule = rules_at(i)); i++) {
		json_t *r = json_object(), *conf = json_object();
		char name[64];

		json_object_set_new(r, "id", json_text(rule->id));
		json_object_set_new(r, "name", json_text(camel(
					    rule->id, name, sizeof(name))));
		json_object_set_new(r, "shortDescription",
				    text_obj(rule->summary));
		json_object_set_new(r, "fullDescription",
				    text_obj(rule->summary));
		json_object_set_new(r, "help", text_obj(help_of(rule->id)));
		json_object_set_new(conf, "level", json_text("warning"));
		json_object_set_new(r, "defaultConfiguration", conf);
		json_array_append_new(rules, r);
	}
	if (more_rules)
		json_array_extend(rules, more_rules);
	json_object_set_new(driver, "rules", rules);
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	esc = uri_escape(root);
	uri = xasprintf("file://%s/", esc);
	json_object_set_new(srcroot, "uri", json_text(uri));
	free(uri);
	free(esc);
	json_object_set_new(bases, "SRCROOT", srcroot);
	json_object_set_new(run, "originalUriBaseIds", bases);

	for (i = 0; i < fs->nr; i++)
		json_array_append_new(results, sarif_result(fs, &fs->v[i]));
	for (i = 0; low && i < low->nr; i++)
		json_array_append_new(results, sarif_result(low, &low->v[i]));
	for (i = 0; more_results && i < json_array_size(more_results); i++) {
		json_t *r = json_deep_copy(json_array_get(more_results, i));
		const char *id = json_string_value(json_object_get(r,
								   "ruleId"));
		size_t k;

		for (k = 0; id && k < json_array_size(rules); k++)
			if (!strcmp(id, json_string_value(json_object_get(
					json_array_get(rules, k), "id"))))
				json_object_set_new(r, "ruleIndex",
						    json_integer((json_int_t)k));
		json_array_append_new(results, r);
	}
	json_object_set_new(run, "results", results);
	json_array_append_new(runs, run);
	json_object_set_new(log, "runs", runs);
	if (json_dumpf(log, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', out) == EOF || fflush(out))
		ret = -EIO;
	json_decref(log);
	return ret || ferror(out) ? -EIO : 0;
}
