// SPDX-License-Identifier: GPL-2.0
/*
 * extract-regions.c - the regions of a function body between the calls
 * (or macros) that mask interrupts, disable preemption or take a lock
 * (checker/model/regions.def), in statement order; they become guards
 * with the region's atom (extract-guards.c).
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/guards.h"

#include "extract-internal.h"

/* Opening and closing calls of regions (checker/model/regions.def). */

static const struct {
	const char *name;
	enum region_kind kind;
	bool open, prefix;
} region_table[] = {
#define IRQ REGION_IRQ
#define PREEMPT REGION_PREEMPT
#define LOCK REGION_LOCK
#define OPEN true
#define CLOSE false
#define REGION(n, k, a, p) { n, k, a, p },
#include "model/regions.def"
#undef IRQ
#undef PREEMPT
#undef LOCK
#undef OPEN
#undef CLOSE
};

static const char *const unmask_args[] = {
#define UNMASK(arg) arg,
#include "model/regions.def"
};

static const struct {
	const char *name;
	enum region_kind kind;
	bool open;
} region_macros[] = {
#define PREEMPT REGION_PREEMPT
#define OPEN true
#define CLOSE false
#define REGION_MACRO(n, k, a) { n, k, a },
#include "model/regions.def"
#undef PREEMPT
#undef OPEN
#undef CLOSE
};

/* An open or a close of a region, at a file offset of the function. */
struct region_event {
	unsigned int off;
	int kind;
	bool open;
};

static int region_call(const struct tu_call *c, bool *open)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(region_table); i++) {
		const char *n = region_table[i].name;
		bool hit = region_table[i].prefix ?
			   !strncmp(c->callee_name, n, strlen(n)) :
			   !strcmp(c->callee_name, n) ||
			   (c->via && !strcmp(c->via, n));

		if (hit) {
			*open = region_table[i].open;
			return region_table[i].kind;
		}
	}
	return -1;
}

static void push_region(struct walk *w, unsigned int from, unsigned int to,
			enum region_kind kind)
{
	add_atoms_region(w, from, to > from ? to : from + 1,
			 xstrdup(region_atom[kind]));
}

static int event_order(const void *a, const void *b)
{
	const struct region_event *x = a, *y = b;

	if (x->off != y->off)
		return (x->off > y->off) - (x->off < y->off);
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return (int)y->open - (int)x->open;
}

/*
 * Is token @i of the function an expansion of a REGION_MACRO() macro?
 * A name followed by "(" where the preprocessor expanded a macro: the
 * cursor there is the expansion, not a line #if'd out (whose tokens
 * libclang still returns).
 */
static int region_macro(struct walk *w, unsigned int i, bool *open)
{
	const char *s = w->ftok.s[i];
	CXSourceLocation loc;
	CXCursor at;
	size_t k;

	if (i + 1 >= w->ftok.n || strcmp(w->ftok.s[i + 1], "("))
		return -1;
	for (k = 0; k < ARRAY_SIZE(region_macros); k++)
		if (!strcmp(s, region_macros[k].name))
			break;
	if (k == ARRAY_SIZE(region_macros))
		return -1;
	loc = clang_getLocationForOffset(w->tu, w->ftok_file, w->ftok.off[i]);
	at = clang_getCursor(w->tu, loc);
	if (clang_getCursorKind(at) != CXCursor_MacroExpansion)
		return -1;
	*open = region_macros[k].open;
	return region_macros[k].kind;
}

/*
 * The opens and closes of the body, in source order: the calls of
 * REGION() from @first on and the expansions of REGION_MACRO(); a macro
 * and the call it expands to are one event.
 */
static struct region_event *region_events(struct walk *w, size_t first,
					  size_t *nr)
{
	struct region_event *ev = NULL;
	size_t n = 0, alloc = 0, calls, i;
	unsigned int t;
	bool open;
	int k;

	for (i = first; i < w->out->nr_calls; i++) {
		k = region_call(&w->out->calls[i], &open);
		if (k >= 0)
			*PUSH(ev, n, alloc) = (struct region_event){
				w->out->calls[i].off, k, open };
	}
	calls = n;
	for (t = 0; w->ftok_file && t < w->ftok.n; t++) {
		k = region_macro(w, t, &open);
		if (k < 0)
			continue;
		for (i = 0; i < calls; i++)
			if (ev[i].off == w->ftok.off[t] && ev[i].kind == k &&
			    ev[i].open == open)
				break;
		if (i == calls)
			*PUSH(ev, n, alloc) = (struct region_event){
				w->ftok.off[t], k, open };
	}
	sort_n(ev, n, sizeof(*ev), event_order);
	*nr = n;
	return ev;
}

/*
 * Does the close at @off unmask whatever the caller had: no argument
 * (local_irq_enable()) or one of UNMASK() in regions.def
 * (local_daif_restore(DAIF_PROCCTX))? Then the function was entered
 * masked, and so were its callers up to the call (graph-regions.c).
 * local_irq_restore(flags) gives back what a local_irq_save() took, in
 * this function or its caller, and says nothing of how the function was
 * entered (6.12's ___slab_alloc() would make every kmalloc() caller
 * masked); local_daif_restore(DAIF_ERRCTX) keeps interrupts masked.
 */
static bool unmasks_all(struct walk *w, unsigned int off)
{
	unsigned int i, j;

	/* The call's name and its parenthesised arguments. */
	token_span(w, off, off + 1, &i, &j);
	if (j - i == 3)
		return true;
	return j - i == 4 && str_in(w->ftok.s[i + 2], unmask_args,
				    ARRAY_SIZE(unmask_args));
}

/*
 * The regions where this function cannot be preempted, in source order
 * (checker/model/regions.def): from an opening call to its closing one; from
 * the body's start to a close that nothing opened (entered so); from an
 * open nothing closed to the body's end.
 */
void add_mask_regions(struct walk *w, CXCursor fn, size_t first)
{
	unsigned int from, to, open_at[REGION_KINDS];
	unsigned int depth[REGION_KINDS] = { 0 };
	struct tu_func *fn_facts = &w->out->funcs[w->cur_func];
	struct region_event *ev;
	unsigned int seen_before;
	size_t n, i;
	int k;

	ev = region_events(w, first, &n);
	if (!n) {
		free(ev);
		return;
	}
	extent_offsets(fn, &from, &to);
	for (i = 0; i < n; i++) {
		k = ev[i].kind;
		seen_before = fn_facts->region_seen;
		fn_facts->region_seen |= 1U << k;
		if (ev[i].open) {
			if (!depth[k]++)
				open_at[k] = ev[i].off;
		} else if (depth[k]) {
			if (!--depth[k])
				push_region(w, open_at[k], ev[i].off, k);
		} else {
			push_region(w, from, ev[i].off, k);
			/*
			 * Entered so, for the callers too, when this close
			 * is the function's first region call and unmasks
			 * whatever was there: not a local_irq_enable() that
			 * ends a spin_lock_irq() (6.12's
			 * __folio_migrate_mapping()).
			 */
			if (!seen_before && unmasks_all(w, ev[i].off))
				fn_facts->region_in |= 1U << k;
		}
	}
	for (k = 0; k < REGION_KINDS; k++) {
		if (depth[k]) {
			push_region(w, open_at[k], to, k);
			fn_facts->region_out |= 1U << k;
		}
	}
	free(ev);
}
