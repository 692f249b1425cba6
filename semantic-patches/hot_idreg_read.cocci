// SPDX-License-Identifier: GPL-2.0-only
/// Under KVM, HCR_EL2.TID3 traps every guest read of the ID group 3
/// registers: each read_cpuid(ID_*), read_sysreg_s(SYS_ID_*) or
/// read_sysreg(id_*) is a vmexit of a few microseconds. On a hot path that
/// adds up (commit a89c6bcdac22, "arm64: Avoid repeated AA64MMFR1_EL1
/// register read on pagefault path": cpu_has_hw_af() on every page fault
/// cost 15% more system time in kernbench). The registers are invariant
/// after boot and the kernel keeps a sanitised copy: read it with
/// read_sanitised_ftr_reg().
///
//# Finds the reads inside the functions listed as hot. The built-in list
//# (HOT below) is generated from trapcheck's shipped root sets
//# (roots/*.roots, by scripts/gen-cocci-hot.py): the entry points of the
//# hot paths, nothing chosen for a known bug. Replace it with
//# -D hot_functions=f1,f2,... and/or -D hot_file=FILE (one function per
//# line, `#` comments: trapcheck's roots/*.roots format); under make
//# coccicheck pass them in SPFLAGS. Coccinelle sees one function at a
//# time: reachability from the hot paths, through calls and macro aliases
//# (arch_wants_old_prefaulted_pte -> cpu_has_hw_af), is trapcheck's job:
//# the functions on its chains (the JSON's chain[].function) are the
//# hot_functions to pass for the helpers it finds.
//# read_cpuid(reg) pastes SYS_ ## reg: the rule matches the macro call as
//# written and builds the SYS_ name itself. Patch mode rewrites only the
//# registers that have a sanitised copy (SANITISED below: arm64_ftr_regs[]
//# of Linux 6.12); it adds no comment (the comment of commit a89c6bcdac22
//# is optional and a tree may already carry it), so on a tree with that
//# commit reverted the patch restores cpu_has_hw_af() exactly.
//
// Confidence: Moderate
// Copyright: (C) 2026 The trapcheck authors.
// Options: --no-includes --include-headers
// Requires: 1.1.1
// Keywords: read_cpuid, read_sysreg_s, read_sysreg, read_sanitised_ftr_reg

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
HOT = set([
	# BEGIN HOT (scripts/gen-cocci-hot.py, from roots/*.roots)
	# roots/block.roots
	"blk_mq_dispatch_rq_list",
	# roots/compress.roots
	"zcomp_compress", "zcomp_decompress", "zswap_compress",
	"zswap_decompress", "zstd_compress_folios", "zstd_decompress_bio",
	"zstd_decompress", "zstd_uncompress", "z_erofs_zstd_decompress",
	# roots/crng.roots
	"get_random_bytes", "get_random_bytes_user", "get_random_u8",
	"get_random_u16", "get_random_u32", "get_random_u64",
	"get_random_long", "get_random_u32_below", "get_random_u32_inclusive",
	"__get_random_u32_below", "urandom_read_iter", "random_read_iter",
	"__do_sys_getrandom",
	# roots/idle.roots
	"do_idle", "default_idle_call", "arch_cpu_idle", "cpuidle_enter",
	# roots/irq.roots
	"el1h_64_irq_handler", "el0t_64_irq_handler",
	"generic_handle_domain_irq", "handle_irq_event", "common_interrupt",
	"sysvec_apic_timer_interrupt", "sysvec_call_function",
	"sysvec_call_function_single",
	# roots/kvm-load.roots
	"kvm_arch_vcpu_load", "kvm_arch_vcpu_put",
	# roots/kvm-run.roots
	"kvm_arch_vcpu_ioctl_run", "__kvm_vcpu_run", "handle_exit",
	"vcpu_run", "vcpu_enter_guest", "vmx_vcpu_run", "svm_vcpu_run",
	"vmx_handle_exit", "svm_handle_exit", "nested_vmx_run",
	"nested_svm_vmrun",
	# roots/net-rx.roots
	"net_rx_action",
	# roots/net-tx.roots
	"dev_hard_start_xmit",
	# roots/page-fault.roots
	"do_mem_abort", "do_page_fault", "do_translation_fault",
	"handle_mm_fault", "fixup_user_fault", "exc_page_fault",
	"handle_page_fault",
	# roots/perf.roots

	# roots/sched.roots
	"__schedule", "__switch_to", "finish_task_switch", "schedule_tail",
	# roots/softirq.roots
	"handle_softirqs",
	# roots/syscall.roots
	"el0_svc", "el0_svc_common", "invoke_syscall", "do_el0_svc",
	"do_syscall_64", "x64_sys_call",
	# roots/timekeeping.roots
	"ktime_get", "sched_clock",
	# roots/timer.roots
	"hrtimer_interrupt", "__hrtimer_run_queues", "tick_sched_timer",
	"update_process_times", "sched_tick",
	# END HOT
])
hot_given = set()

def add_hot(names):
	# the first -D replaces the built-in list; further ones add to it
	global HOT
	if not hot_given:
		HOT = set()
	for n in names:
		n = n.split("#", 1)[0].strip()
		if n:
			HOT.add(n)
			hot_given.add(n)

# registers with a sanitised copy: arm64_ftr_regs[] of Linux 6.12
SANITISED = set("""
	ID_PFR0_EL1 ID_PFR1_EL1 ID_PFR2_EL1 ID_DFR0_EL1 ID_DFR1_EL1
	ID_MMFR0_EL1 ID_MMFR1_EL1 ID_MMFR2_EL1 ID_MMFR3_EL1 ID_MMFR4_EL1
	ID_MMFR5_EL1 ID_ISAR0_EL1 ID_ISAR1_EL1 ID_ISAR2_EL1 ID_ISAR3_EL1
	ID_ISAR4_EL1 ID_ISAR5_EL1 ID_ISAR6_EL1
	ID_AA64PFR0_EL1 ID_AA64PFR1_EL1 ID_AA64PFR2_EL1 ID_AA64ZFR0_EL1
	ID_AA64SMFR0_EL1 ID_AA64FPFR0_EL1 ID_AA64DFR0_EL1 ID_AA64DFR1_EL1
	ID_AA64ISAR0_EL1 ID_AA64ISAR1_EL1 ID_AA64ISAR2_EL1 ID_AA64ISAR3_EL1
	ID_AA64MMFR0_EL1 ID_AA64MMFR1_EL1 ID_AA64MMFR2_EL1 ID_AA64MMFR3_EL1
	ID_AA64MMFR4_EL1
""".split())

def register(rd, arg):
	# the register a read names, or None when the argument does not
	# spell an ID register for that accessor
	if rd == "read_cpuid" and arg.startswith("ID_"):
		return arg
	if rd == "read_sysreg_s" and arg.startswith("SYS_ID_"):
		return arg[len("SYS_"):]
	if rd == "read_sysreg" and arg.startswith("id_"):
		return arg.upper()
	return None

def message(rd, arg, fn):
	reg = register(rd, arg)
	head = ("WARNING: %s(%s) reads %s from hardware in hot function %s() "
		"(traps under HCR_EL2.TID3); " % (rd, arg, reg, fn))
	if reg in SANITISED:
		return head + "the sanitised copy is read_sanitised_ftr_reg(SYS_%s)" % reg
	return head + "%s is not in arm64_ftr_regs[]: cache a per-CPU or boot-time value" % reg

// The accessor is bound twice: as rd for the messages and the rewrite, and
// as a disjunction of the three names, which gives spatch's token
// prefilter something to look for (an identifier list does not).
@r@
identifier rd = {read_cpuid, read_sysreg_s, read_sysreg};
identifier reg =~ "^(ID_|SYS_ID_|id_)";
position p;
@@

\(rd@p(reg) \& \(read_cpuid(reg)\|read_sysreg_s(reg)\|read_sysreg(reg)\)\)

// -D hot_functions= and -D hot_file=. depends on r: a script rule that
// depends on nothing would turn spatch's token prefilter off.
@script:python depends on r@
h << virtual.hot_functions;
@@
add_hot(h.split(","))

@script:python depends on r@
h << virtual.hot_file;
@@
with open(h) as f:
	add_hot(f.read().splitlines())

// p.current_element: the function the read is in.
@script:python@
rd << r.rd;
reg << r.reg;
p << r.p;
@@
if p[0].current_element not in HOT or register(rd, reg) is None:
	cocci.include_match(False)

@depends on context@
identifier r.rd, r.reg;
position r.p;
@@

* rd@p(reg)

@script:python depends on report@
rd << r.rd;
reg << r.reg;
p << r.p;
@@
coccilib.report.print_report(p[0], message(rd, reg, p[0].current_element))

@script:python depends on org@
rd << r.rd;
reg << r.reg;
p << r.p;
@@
coccilib.org.print_todo(p[0], message(rd, reg, p[0].current_element))

@script:python mk depends on patch@
rd << r.rd;
reg << r.reg;
sysreg;
@@
name = register(rd, reg)
if name not in SANITISED:
	cocci.include_match(False)
else:
	coccinelle.sysreg = cocci.make_ident("SYS_" + name)

@depends on patch@
identifier r.rd, r.reg;
position r.p;
identifier mk.sysreg;
@@

- rd@p(reg)
+ read_sanitised_ftr_reg(sysreg)
