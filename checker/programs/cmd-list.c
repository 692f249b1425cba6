// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-list.c - --list-roots, --list-caps and --print-clang-commands: what
 * trapcheck would work from, printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "prog.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/graph/regroots.h"
#include "trapcheck/base/diag.h"
#include "trapcheck/input/kconfig.h"
#include "trapcheck/base/util.h"

/* --list-caps: the architecture's tables as it resolved them. */
static int list_tables(FILE *out, const struct graph *g)
{
	const struct arch *a = arch_current();

	if (a->tables_print && g->arch_tables)
		return a->tables_print(out, g->arch_tables);
	fprintf(out, "# %s reads no tables from the tree\n", a->name);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

/*
 * Does configuration @k build none of set @s's entry points (its
 * "config:" options all unset)? False when unknown (no .config).
 */
static bool set_unbuilt(const struct root_set *s, const struct kconfig *k)
{
	size_t i;

	if (!k || !s->nr_configs)
		return false;
	for (i = 0; i < s->nr_configs; i++)
		if (kconfig_value(k, s->configs[i]))
			return false;
	return true;
}

/* "argument 1 of request_threaded_irq()", ".irq_eoi of struct irq_chip". */
static char *slot_text(const char *slot)
{
	const char *hash = strstr(slot, "()#"), *dot = strchr(slot, '.');

	if (hash)
		return xasprintf("argument %s of %.*s()", hash + 3,
				 (int)(hash - slot), slot);
	if (dot)
		return xasprintf(".%s of struct %.*s", dot + 1,
				 (int)(dot - slot), slot);
	return xstrdup(slot);
}

/*
 * The set's registration lines: without a graph, each line; with one,
 * each function registered so, "registered as SLOT at FILE:LINE".
 */
static void print_regs(FILE *out, const struct root_set *s,
		       const struct graph *g)
{
	size_t i, j;

	for (i = 0; i < s->nr_regs; i++) {
		const struct root_reg *r = &s->regs[i];
		char *what = slot_text(r->slot);

		if (!g)
			fprintf(out, "%s\t%g\t(%s)\t%s\n", s->name,
				s->weight, what, r->reason);
		for (j = 0; g && j < g->nr_regroots; j++) {
			const struct groot *gr = &g->regroots[j];
			const struct gnode *n = &g->nodes[gr->node];

			if (strcmp(gr->set, s->name) || strcmp(gr->slot, r->slot))
				continue;
			fprintf(out, "%s\t%g\t%s\t%s: registered as %s at "
				"%s:%u\tregistered\n", s->name, s->weight,
				n->name, r->reason, what, gr->file, gr->line);
		}
		free(what);
	}
}

/*
 * --list-roots: "set<TAB>weight<TAB>function<TAB>reason", and with a
 * graph whether the function exists there: present, missing, or unbuilt
 * (not there, and the tree's .config @k sets none of the set's "config:"
 * options). Returns the number missing.
 */
static size_t print_roots(FILE *out, const struct root_sets *rs,
			  const struct graph *g, const struct kconfig *k)
{
	size_t i, j, missing = 0;

	for (i = 0; i < rs->nr; i++) {
		const struct root_set *s = &rs->sets[i];
		bool unbuilt = set_unbuilt(s, k);

		for (j = 0; j < s->nr; j++) {
			int n[1];
			bool have = g && graph_find_name(g, s->funcs[j], n, 1);

			fprintf(out, "%s\t%g\t%s\t%s", s->name, s->weight,
				s->funcs[j], s->reasons[j]);
			if (g) {
				fprintf(out, "\t%s", have ? "present" :
					unbuilt ? "unbuilt" : "missing");
				missing += !have && !unbuilt;
			}
			fputc('\n', out);
		}
		print_regs(out, s, g);
	}
	return missing;
}

/* The .config beside the compile database of -p TREE, or NULL. */
static bool load_config(const struct prog *p, struct kconfig *k)
{
	char *db, *slash;
	bool ok;

	if (!p->tree)
		return false;
	db = prog_compdb(p->tree);
	slash = strrchr(db, '/');
	if (slash)
		*slash = '\0';
	ok = !kconfig_load(k, slash ? db : ".");
	if (!ok)
		kconfig_free(k);
	free(db);
	return ok;
}

/* --list-roots with a tree or a database, or --list-caps. */
static int list(struct prog *p, struct analysis *a)
{
	struct summary sum;
	int ret;

	if (p->list_roots) {
		struct kconfig k = { 0 };
		bool have = load_config(p, &k);
		size_t missing = print_roots(stdout, &p->roots, &a->graph,
					     have ? &k : NULL);

		if (have)
			kconfig_free(&k);
		return missing ? TC_EXIT_FINDINGS : TC_EXIT_CLEAN;
	}
	ret = list_tables(stdout, &a->graph) ? TC_EXIT_OUTPUT :
						 TC_EXIT_CLEAN;
	analysis_summary(a, &sum);
	if (!p->quiet)
		emit_summary(stderr, &sum, a->findings.nr);
	return ret;
}

int cmd_list(struct prog *p)
{
	char err[1024];
	int ret;

	if (p->print_commands) {
		char *db = prog_compdb(p->tree);

		ret = analysis_print_commands(db, stdout, err, sizeof(err));
		free(db);
		if (ret)
			diag_error("%s", err);
		return ret == -EIO ? TC_EXIT_OUTPUT :
		       ret ? TC_EXIT_USAGE : TC_EXIT_CLEAN;
	}
	if (p->list_roots && !p->tree && !p->ao.db_path) {
		print_roots(stdout, &p->roots, NULL, NULL);
		return TC_EXIT_CLEAN;
	}
	return prog_analysed(p, list);
}
