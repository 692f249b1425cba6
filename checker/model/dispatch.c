// SPDX-License-Identifier: GPL-2.0
/*
 * dispatch.c - the tables of calls through members that registration
 * fills (checker/model/dispatch.def): which members, which register and
 * dispatch functions, which control blocks. The resolution over the
 * graph, per list head, is graph/graph-dispatch.c's; what it does:
 *
 * Facts (extract.h): at each call, the arguments of a registration type
 * and what they name ("var:oom_notify_list", "$0" for the caller's first
 * parameter); at each assignment of a function to a member, the object
 * whose member it is ("var:foo_nb@mm/x.c", "kvm_arch.pm_nb").
 *
 * 1. Register and dispatch functions: the table's, and every function
 *    that passes its own parameter on as the block or head of one of
 *    them (register_oom_notifier(nb) calls
 *    blocking_notifier_chain_register(&oom_notify_list, nb)): a fixed
 *    point over the call sites, so wrappers of wrappers count.
 * 2. Registrations: calls of a register function whose head and block
 *    both name something: (head, object).
 * 3. Callbacks of a head: the functions stored in the registry member of
 *    the objects registered on it.
 * 4. Each call of a dispatch function on a named head gets an inferred
 *    edge to each callback of that head (via: the head's name); a head
 *    that is the caller's own parameter makes the caller a dispatch
 *    function (step 1); any other head is counted as unresolved, with
 *    examples for the summary, and reaches nothing.
 *
 * Control blocks (CTL_MEMBER, struct rmap_walk_control) are resolved per
 * object the same way, with no registration in between: a function that
 * calls through such a member of its parameter, and its wrappers (step
 * 1), dispatch on that parameter; a call of one on a named object (a
 * local "struct rmap_walk_control rwc = { .rmap_one = ... }") gets an
 * edge to each function stored in that object's control members (via:
 * "rwc.rmap_one"), and so does a call through the member made on a named
 * object directly. On an object that cannot be named, the call reaches
 * every function stored in those members, as an ops-table call would.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/dispatch.h"
#include "trapcheck/base/util.h"

/* "struct.member" of a table line. */
struct member_ref {
	const char *type, *member;
};

static const struct member_ref reg_members[] = {
#define REG_MEMBER(s, m) { s, m },
#include "dispatch.def"
};

static const struct {
	const char *name;
	int head, block;
} reg_fns[] = {
#define REG_FN(f, h, b) { f, h, b },
#include "dispatch.def"
};

static const struct {
	const char *name;
	int head;
} dispatch_fns[] = {
#define DISPATCH_FN(f, h) { f, h },
#include "dispatch.def"
};

static const struct member_ref ctl_members[] = {
#define CTL_MEMBER(s, m) { s, m },
#include "dispatch.def"
};

/* The length of the struct name when @t lists "struct.member", or 0. */
static size_t member_in(const struct member_ref *t, size_t nr,
			const char *member)
{
	size_t i, n;

	for (i = 0; i < nr; i++) {
		n = strlen(t[i].type);
		if (!strncmp(member, t[i].type, n) && member[n] == '.' &&
		    !strcmp(member + n + 1, t[i].member))
			return n;
	}
	return 0;
}

size_t dispatch_ctl_struct_len(const char *member)
{
	return member_in(ctl_members, ARRAY_SIZE(ctl_members), member);
}

bool dispatch_ctl_member(const char *member)
{
	return dispatch_ctl_struct_len(member) > 0;
}

bool dispatch_member(const char *member)
{
	return member_in(reg_members, ARRAY_SIZE(reg_members), member) > 0;
}

bool dispatch_reg_fn(const char *name, int *head, int *block)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reg_fns); i++)
		if (!strcmp(name, reg_fns[i].name)) {
			*head = reg_fns[i].head;
			*block = reg_fns[i].block;
			return true;
		}
	return false;
}

bool dispatch_fn(const char *name, int *head)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dispatch_fns); i++)
		if (!strcmp(name, dispatch_fns[i].name)) {
			*head = dispatch_fns[i].head;
			return true;
		}
	return false;
}

char *dispatch_head_name(const char *id)
{
	const char *s = !strncmp(id, "var:", 4) ? id + 4 :
			!strncmp(id, "local:", 6) ? id + 6 : id;

	return xstrndup(s, strcspn(s, "@"));
}

