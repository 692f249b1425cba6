// SPDX-License-Identifier: GPL-2.0
/*
 * switches.c - -W<rule>, -Wno-<rule>, -Werror[=<rule>] and
 * -Wno-error[=<rule>] over the rule table (rules.def's ids).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trapcheck/rules/rules.h"
#include "trapcheck/rules/switches.h"
#include "trapcheck/base/util.h"

void switches_init(struct rule_switches *s, enum rule_level level)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->base = level;
	for (i = 0; i < SWITCHES_MAX_RULES; i++)
		s->level[i] = level;
}

static int rule_index(const char *id)
{
	size_t i;

	for (i = 0; rules_at(i) && i < SWITCHES_MAX_RULES; i++)
		if (!strcmp(rules_at(i)->id, id))
			return (int)i;
	return -1;
}

/* "unknown rule 'x' (trapping-idreg-read, ...)" into @err. */
static int unknown(const char *word, const char *id, char *err, size_t len)
{
	size_t i, n;

	n = (size_t)snprintf(err, len, "%s: no rule '%s' (rules:", word, id);
	for (i = 0; rules_at(i) && n < len; i++)
		n += (size_t)snprintf(err + n, len - n, "%s %s",
				      i ? "," : "", rules_at(i)->id);
	if (n < len)
		snprintf(err + n, len - n, ")");
	return -EINVAL;
}

static void set_all(struct rule_switches *s, enum rule_level from,
		    enum rule_level to)
{
	size_t i;

	for (i = 0; i < SWITCHES_MAX_RULES; i++)
		if (s->level[i] == from)
			s->level[i] = to;
}

int switches_take(struct rule_switches *s, const char *word,
		  unsigned int how, char *err, size_t len)
{
	const char *w = word, *id;
	enum rule_level to;
	bool error_form;
	int k;

	if (!strncmp(w, "-W", 2))
		w += 2;
	if ((how & SWITCH_BARE) && (!strcmp(w, "error") || !strcmp(w, "no-error"))) {
		if (w[0] == 'e')
			set_all(s, RULE_WARNING, RULE_ERROR);
		else
			set_all(s, RULE_ERROR, RULE_WARNING);
		s->changed = true;
		return 1;
	}
	error_form = !strncmp(w, "error=", 6) || !strncmp(w, "no-error=", 9);
	if (!strncmp(w, "error=", 6)) {
		id = w + 6;
		to = RULE_ERROR;
	} else if (!strncmp(w, "no-error=", 9)) {
		id = w + 9;
		to = RULE_WARNING;
	} else if (!strncmp(w, "no-", 3)) {
		id = w + 3;
		to = RULE_OFF;
	} else {
		id = w;
		to = RULE_WARNING;
	}
	k = rule_index(id);
	if (k < 0) {
		/* Among gcc's flags, -Wno-<its warning> is not ours. */
		if (!(how & SWITCH_STRICT))
			return 0;
		return unknown(word, id, err, len);
	}
	/* -W<rule> turns a rule on, at the run's level; on, it stays. */
	if (to == RULE_WARNING && !error_form)
		to = s->level[k] == RULE_OFF ? s->base : s->level[k];
	s->level[k] = to;
	s->changed = true;
	return 1;
}

enum rule_level switches_level(const struct rule_switches *s,
			       const char *rule)
{
	int k = rule ? rule_index(rule) : -1;

	return k < 0 ? RULE_ERROR : s->level[k];
}

static bool rule_on(const struct finding *f, void *data)
{
	return switches_level(data, f->rule) != RULE_OFF;
}

void switches_filter(const struct rule_switches *s, struct findings *fs,
		     struct findings *out)
{
	findings_filter_into(fs, rule_on, (void *)s, out);
}

size_t switches_errors(const struct rule_switches *s,
		       const struct findings *fs)
{
	size_t i, n = 0;

	for (i = 0; i < fs->nr; i++)
		n += switches_level(s, fs->v[i].rule) == RULE_ERROR;
	return n;
}
