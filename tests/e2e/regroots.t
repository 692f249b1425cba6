#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Roots from registrations (regroots.h): the shipped root sets' "register:"
# and "member:" lines make a root of each function a driver registers (an
# interrupt handler given to set_handle_irq() or request_threaded_irq(),
# an irq_chip's ->irq_eoi, a NAPI poll, a clocksource's ->read), found by
# its node: a static function of the same name in another TU, registered
# nowhere, is no root. --list-roots names each with where it was
# registered; a roots file's bad registration line is refused.
. "$(dirname "$0")/../tap.sh"
FX="$TOP/tests/fixtures/kernel"
cd "$SCRATCH" || exit 1

cp -a "$FX" rt
mkdir -p rt/drivers/irqchip rt/drivers/net rt/drivers/clocksource
# Declarations as the kernel's headers give them (6.12).
cat > rt/include/linux/fx-reg.h <<'C'
struct pt_regs;
struct irq_data;
struct net_device;
struct napi_struct;
struct clocksource;
typedef int irqreturn_t;
typedef irqreturn_t (*irq_handler_t)(int, void *);
int set_handle_irq(void (*handle_irq)(struct pt_regs *));
int request_threaded_irq(unsigned int irq, irq_handler_t handler,
			 irq_handler_t thread_fn, unsigned long flags,
			 const char *name, void *dev);
void netif_napi_add_weight(struct net_device *dev, struct napi_struct *napi,
			   int (*poll)(struct napi_struct *, int), int weight);
struct irq_chip {
	const char *name;
	void (*irq_eoi)(struct irq_data *data);
};
struct clocksource {
	u64 (*read)(struct clocksource *cs);
};
C
cat > rt/drivers/irqchip/irq-fx.c <<'C'
#include <linux/types.h>
#include <linux/fx-reg.h>
#include <asm/cputype.h>
#include <asm/cpufeature.h>

static u64 fx_state;

static void fx_handle_irq(struct pt_regs *regs)
{
	fx_state = read_cpuid(ID_AA64PFR0_EL1);
}

static void fx_eoi(struct irq_data *d)
{
	fx_state = read_cpuid(ID_AA64ISAR0_EL1);
}

static irqreturn_t fx_dev_irq(int irq, void *dev)
{
	fx_state = read_cpuid(ID_AA64MMFR0_EL1);
	return 1;
}

static irqreturn_t fx_dev_thread(int irq, void *dev)
{
	fx_state = read_cpuid(ID_AA64PFR1_EL1);
	return 1;
}

static struct irq_chip fx_chip = {
	.name = "fx",
	.irq_eoi = fx_eoi,
};

struct irq_chip *fx_chip_get(void)
{
	return &fx_chip;
}

static int __init fx_init(void)
{
	request_threaded_irq(1, fx_dev_irq, fx_dev_thread, 0, "fx", NULL);
	return set_handle_irq(fx_handle_irq);
}
C
cat > rt/drivers/net/fx-net.c <<'C'
#include <linux/types.h>
#include <linux/fx-reg.h>
#include <asm/cputype.h>
#include <asm/cpufeature.h>

static u64 fx_net_state;

/* The same name as irq-fx.c's handler, registered nowhere. */
static void fx_handle_irq(struct pt_regs *regs)
{
	fx_net_state = read_cpuid(ID_AA64MMFR1_EL1);
}

static int fx_poll(struct napi_struct *napi, int budget)
{
	fx_net_state = read_cpuid(ID_AA64ISAR0_EL1);
	return 0;
}

void fx_net_setup(struct net_device *dev, struct napi_struct *napi)
{
	netif_napi_add_weight(dev, napi, fx_poll, 64);
	fx_handle_irq(NULL);
}
C
cat > rt/drivers/clocksource/fx-clock.c <<'C'
#include <linux/types.h>
#include <linux/fx-reg.h>
#include <asm/cputype.h>
#include <asm/cpufeature.h>

static u64 fx_read(struct clocksource *cs)
{
	return read_cpuid(ID_AA64MMFR0_EL1);
}

struct clocksource fx_clocksource = {
	.read = fx_read,
};
C
python3 - rt <<'PY'
import json, sys
tree = sys.argv[1]
path = tree + '/compile_commands.json'
d = json.load(open(path))
base = [e for e in d if e['file'] == 'mm/memory.c'][0]
for f in ('drivers/irqchip/irq-fx.c', 'drivers/net/fx-net.c',
          'drivers/clocksource/fx-clock.c'):
    e = dict(base, file=f)
    stem = f[:-2]
    if 'arguments' in e:
        e['arguments'] = [a.replace('mm/memory', stem) for a in base['arguments']]
    else:
        e['command'] = base['command'].replace('mm/memory', stem)
    d.append(e)
json.dump(d, open(path, 'w'), indent=1)
PY

"$TRAPCHECK" -p rt --format=json -o rt.json 2> rt.err
rc=$?
sed 's/^/# /' rt.err | tail -n 3
# site ROOTSET FUNCTION: "file:line rule root chain" of the finding in
# FUNCTION reached from ROOTSET (any of its chains), or nothing.
site() {
	python3 - rt.json "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d['findings']:
    roots = [f['root']] + [a['root'] for a in f.get('also_reached', [])]
    chains = [f['chain']] + [a['chain'] for a in f.get('also_reached', [])]
    for root, chain in zip(roots, chains):
        if root == sys.argv[2] and f['function'] == sys.argv[3]:
            print('%s:%d %s %s %s' % (f['file'], f['line'], f['rule'], root,
                  ' -> '.join(s['function'] for s in chain)))
PY
}
check_that "set_handle_irq(fx_handle_irq): irq-fx.c:10 trapping-idreg-read from irq, the handler its root ($(site irq fx_handle_irq))" \
	'[ $rc -eq 1 ] && site irq fx_handle_irq | grep -qx "drivers/irqchip/irq-fx.c:10 trapping-idreg-read irq fx_handle_irq"'
check_that "an irq_chip's .irq_eoi: irq-fx.c:15 from irq ($(site irq fx_eoi))" \
	'site irq fx_eoi | grep -qx "drivers/irqchip/irq-fx.c:15 trapping-idreg-read irq fx_eoi"'
check_that "request_threaded_irq()'s handler (argument 1): irq-fx.c:20 from irq" \
	'site irq fx_dev_irq | grep -qx "drivers/irqchip/irq-fx.c:20 trapping-idreg-read irq fx_dev_irq"'
check_that "... its thread function (argument 2) is no irq root" \
	'[ -z "$(site irq fx_dev_thread)" ]'
check_that "the same-named static fx_handle_irq() of fx-net.c, registered nowhere: not from irq" \
	'[ -z "$(site irq fx_handle_irq | grep fx-net.c)" ] &&
	 grep -q "drivers/net/fx-net.c" rt.json'
check_that "netif_napi_add_weight()'s poll: fx-net.c:16 from net-rx ($(site net-rx fx_poll))" \
	'site net-rx fx_poll | grep -qx "drivers/net/fx-net.c:16 trapping-idreg-read net-rx fx_poll"'
check_that "a clocksource's .read: fx-clock.c:8 from timekeeping" \
	'site timekeeping fx_read | grep -qx "drivers/clocksource/fx-clock.c:8 trapping-idreg-read timekeeping fx_read"'

"$TRAPCHECK" -p rt --list-roots > roots.txt 2> roots.err
sed -n '/registered$/s/^/# /p' roots.txt
check "--list-roots: fx_handle_irq registered as argument 0 of set_handle_irq() at irq-fx.c:43" \
	grep -q "^irq	100000	fx_handle_irq	.*: registered as argument 0 of set_handle_irq() at drivers/irqchip/irq-fx.c:43	registered$" roots.txt
check "--list-roots: fx_eoi registered as .irq_eoi of struct irq_chip at irq-fx.c:32" \
	grep -q "^irq	100000	fx_eoi	.*: registered as .irq_eoi of struct irq_chip at drivers/irqchip/irq-fx.c:32	registered$" roots.txt
check "--list-roots: fx_dev_irq registered as argument 1 of request_threaded_irq() at irq-fx.c:42" \
	grep -q "^irq	100000	fx_dev_irq	.*: registered as argument 1 of request_threaded_irq() at drivers/irqchip/irq-fx.c:42	registered$" roots.txt
check "--list-roots: fx_poll registered as argument 2 of netif_napi_add_weight() at fx-net.c:22" \
	grep -q "^net-rx	10000	fx_poll	.*: registered as argument 2 of netif_napi_add_weight() at drivers/net/fx-net.c:22	registered$" roots.txt
check_that "--list-roots: only those registrations ($(grep -c 'registered$' roots.txt))" \
	'[ "$(grep -c "registered$" roots.txt)" = 5 ]'
"$TRAPCHECK" --list-roots > lines.txt
check "--list-roots without a tree: the registration lines" \
	grep -q "^irq	100000	(argument 1 of request_threaded_irq())	a device's hard interrupt handler$" lines.txt

# A database run, then a warm one: the same (the slot and its place are
# stored facts).
"$TRAPCHECK" -p rt --db rt.db --format=json -o db1.json 2> /dev/null
"$TRAPCHECK" -p rt --db rt.db --format=json -o db2.json 2> db2.err
check_that "with a facts database, cold and warm: the same findings as without" \
	'grep -q "^trapcheck: 0 TUs parsed" db2.err &&
	 python3 -c "
import json, sys
f = lambda p: sorted((x[\"file\"], x[\"line\"], x[\"root\"]) for x in json.load(open(p))[\"findings\"])
sys.exit(not (f(\"rt.json\") == f(\"db1.json\") == f(\"db2.json\")))"'

printf 'weight: 10\nregister: request_irq one\n' > bad.roots
"$TRAPCHECK" --roots bad.roots --list-roots > /dev/null 2> bad.err
rc=$?
check_that "a register: line without an argument number: exit 2, the line named" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: bad.roots:2: register: wants a function and an argument number: .request_irq one.$" bad.err'
printf 'member: irq_eoi\n' > bad2.roots
"$TRAPCHECK" --roots bad2.roots --list-roots > /dev/null 2> bad2.err
rc=$?
check_that "a member: line without STRUCT.: exit 2" \
	'[ $rc -eq 2 ] && grep -q "^trapcheck: error: bad2.roots:1: member: wants STRUCT.MEMBER: .irq_eoi.$" bad2.err'

done_testing
