/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rule switches, as gcc and sparse spell them: -W<rule>, -Wno-<rule>,
 * -Werror, -Werror=<rule>, -Wno-error and -Wno-error=<rule>, read left to
 * right, the last word about a rule winning. A rule is off (its findings
 * dropped, nothing else), a warning (printed; the exit status ignores it)
 * or an error (printed; exit status 1). A run of trapcheck starts with
 * every rule an error (a gate), trapcheck check with every rule a
 * warning (a checker must not break the kernel build).
 */
#ifndef TRAPCHECK_SWITCHES_H
#define TRAPCHECK_SWITCHES_H

#include <stdbool.h>
#include <stddef.h>

#include "trapcheck/finding/finding.h"

enum rule_level { RULE_OFF, RULE_WARNING, RULE_ERROR };

#define SWITCHES_MAX_RULES 32

struct rule_switches {
	enum rule_level level[SWITCHES_MAX_RULES];	/* by rule_table[] */
	enum rule_level base;	/* the run's: what -W<rule> turns on */
	bool changed;		/* any word taken */
};

/* Every rule at @level. */
void switches_init(struct rule_switches *s, enum rule_level level);

/*
 * One word, with or without its leading "-W" ("no-preempt-guard" and
 * "-Wno-preempt-guard" alike). 1 when taken; 0 when it is not about a
 * rule of ours (another tool's warning: "-Wbitwise"); -EINVAL when it
 * names no rule and @how has SWITCH_STRICT ("-Werror=no-such-rule";
 * @err says which rules exist). SWITCH_BARE: take the words that name
 * no rule ("-Werror", "-Wno-error").
 */
#define SWITCH_BARE	1u
#define SWITCH_STRICT	2u
int switches_take(struct rule_switches *s, const char *word,
		  unsigned int how, char *err, size_t len);

/* @rule's level (a rule_table id; an unknown one is an error). */
enum rule_level switches_level(const struct rule_switches *s,
			       const char *rule);

/* Drop the findings of the rules that are off (to @out; NULL: freed). */
void switches_filter(const struct rule_switches *s, struct findings *fs,
		     struct findings *out);

/* How many of @fs are errors. */
size_t switches_errors(const struct rule_switches *s,
		       const struct findings *fs);

#endif /* TRAPCHECK_SWITCHES_H */
