// SPDX-License-Identifier: GPL-2.0
/*
 * test-machine.c - what the machine profile says of a chain that needs a
 * CPU capability (rules/machine.c): of an architecture made here, so
 * that each answer is reached whatever the shipped machine.def holds (x86's
 * offers LBR and BTS on both of its profiles, so no shipped profile
 * lacks a capability): a note of the machine when no machine of the
 * profile is known to offer it, a doubt naming the machines that may,
 * and those not known to, nothing under --machine=any or for a chain
 * that needs no such CPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/graph.h"
#include "trapcheck/input/roots.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/rules/rules.h"

static const struct arch_cpu_file cpu_files[] = {
	{ "drivers/fakepmu/", "FAKECAP", "the fake PMU is registered" },
	{ "fake_*able_trace", "TRACECAP", "an event is on the trace unit" },
};

/* Two profiles; virt may offer FAKECAP, no profile TRACECAP. */
static const struct arch_device machine[] = {
	{ "virt", "pci", "1af4:*", "virtio" },
	{ "virt", "cpu", "FAKECAP", "a VMM with the fake PMU" },
	{ "cloud", "pci", "1d0f:*", "a cloud's devices" },
};

static const struct arch fake = {
	.name = "fake",
	.machine = machine,
	.nr_machine = 3,
	.cpu_files = cpu_files,
	.nr_cpu_files = 2,
};

struct world {
	struct graph g;
	struct root_set set;
	struct chain_step steps[2];
	struct chain c;
};

static void chain_of(struct world *w, const char *fn, const char *file)
{
	memset(w->steps, 0, sizeof(w->steps));
	w->steps[0].function = "fake_event_start";
	w->steps[0].file = file;
	w->steps[1].function = fn;
	w->steps[1].file = file;
	memset(&w->c, 0, sizeof(w->c));
	w->c.steps = w->steps;
	w->c.len = 2;
}

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	graph_init(&w->g);
	arch_set(&fake);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	graph_free(&w->g);
	arch_set(NULL);
	free(w);
	return 0;
}

/* Ask profile @profile about the world's chain. */
static char *ask(struct world *w, const char *profile, char **doubt)
{
	struct machine m;
	char *why;

	machine_init(&m, &w->g, profile);
	why = machine_refusal(&m, &w->g, &w->set, &w->c, NULL, 0, doubt);
	machine_free(&m);
	return why;
}

static void test_no_machine(void **state)
{
	struct world *w = *state;
	char *doubt, *why;

	/* TRACECAP: no line in any profile. */
	chain_of(w, "fake_enable_trace", "kernel/fake.c");
	why = ask(w, "guest", &doubt);
	assert_null(doubt);
	assert_string_equal(why,
		"it runs only when an event is on the trace unit, "
		"fake_enable_trace() being its code, on a CPU with TRACECAP, "
		"which no machine of --machine=guest is known to offer a "
		"guest");
	free(why);
	/* FAKECAP: a line for virt only, so none for cloud. */
	chain_of(w, "fake_read", "drivers/fakepmu/pmu.c");
	why = ask(w, "cloud", &doubt);
	assert_null(doubt);
	assert_string_equal(why,
		"it runs only when the fake PMU is registered, "
		"fake_event_start() being its code, on a CPU with FAKECAP, "
		"which no machine of --machine=cloud is known to offer a "
		"guest");
	free(why);
}

static void test_some_machines(void **state)
{
	struct world *w = *state;
	char *doubt, *why;

	chain_of(w, "fake_read", "drivers/fakepmu/pmu.c");
	why = ask(w, "virt", &doubt);
	assert_null(why);
	assert_string_equal(doubt,
		"it runs only when the fake PMU is registered, "
		"fake_event_start() being its code, on a CPU with FAKECAP, "
		"which only some guests have: virt (a VMM with the fake PMU)");
	free(doubt);
	why = ask(w, "guest", &doubt);
	assert_null(why);
	assert_string_equal(doubt,
		"it runs only when the fake PMU is registered, "
		"fake_event_start() being its code, on a CPU with FAKECAP, "
		"which only some guests have: virt (a VMM with the fake PMU); "
		"those of cloud are not known to");
	free(doubt);
}

static void test_nothing_said(void **state)
{
	struct world *w = *state;
	char *doubt, *why;

	/* --machine=any: no profile. */
	chain_of(w, "fake_read", "drivers/fakepmu/pmu.c");
	why = ask(w, NULL, &doubt);
	assert_null(why);
	assert_null(doubt);
	/* Code no CPU_FILE line names. */
	chain_of(w, "fake_read", "drivers/other/pmu.c");
	why = ask(w, "cloud", &doubt);
	assert_null(why);
	assert_null(doubt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_machine, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_some_machines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nothing_said, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
