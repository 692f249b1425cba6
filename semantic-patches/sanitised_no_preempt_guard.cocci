// SPDX-License-Identifier: GPL-2.0-only
/// Before the capabilities are finalized, the sanitised ID register values
/// in arm64_ftr_regs[] are still being lowered by secondary CPUs as they come
/// online (a CPU can clear a feature field, never set it). A
/// read_sanitised_ftr_reg() that stands in for a per-CPU check in a
/// !system_capabilities_finalized() branch is right only for the CPU the
/// caller is pinned to: keep !preemptible() in the condition, as the
/// reviewed "arm64: archrandom: avoid trapping ID register read in
/// __cpu_has_rng()" does,
/// if (unlikely(!system_capabilities_finalized() && !preemptible())).
///
//# Finds read_sanitised_ftr_reg() (alone, or inside SYS_FIELD_GET() or
//# cpuid_feature_extract_*()) in the then-branch of an if statement whose
//# condition tests !system_capabilities_finalized() and not !preemptible().
//# There is no patch mode: whether the branch may run preemptible, and
//# whether the caller needs a per-CPU answer at all, is for a human to
//# decide. False positives: a branch that is non-preemptible for another
//# reason (preempt_disable() before it, an IRQ handler), or a value that
//# is system-wide by design. Not found: a read after an early return
//# `if (system_capabilities_finalized()) return ...;`.
//
// Confidence: Moderate
// Copyright: (C) 2026 The trapcheck authors.
// Options: --no-includes --include-headers
// Requires: 1.1.1
// Keywords: read_sanitised_ftr_reg, system_capabilities_finalized, preemptible

virtual context
virtual org
virtual report

// The first two branches take the guarded ifs; the disjunction tries them
// first, so the last two see only ifs without !preemptible().
@r depends on context || org || report@
position p;
statement S1, S2;
@@

(
 if (\(<+... !preemptible(...) ...+> \& <+... !system_capabilities_finalized(...) ...+>\)) S1 else S2
|
 if (\(<+... !preemptible(...) ...+> \& <+... !system_capabilities_finalized(...) ...+>\)) S1
|
 if (<+... !system_capabilities_finalized(...) ...+>) {
 <+...
*read_sanitised_ftr_reg@p(...)
 ...+>
 } else S2
|
 if (<+... !system_capabilities_finalized(...) ...+>) {
 <+...
*read_sanitised_ftr_reg@p(...)
 ...+>
 }
)

@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0],
	"WARNING: read_sanitised_ftr_reg() stands in for a per-CPU check "
	"before capabilities are finalized but !preemptible() does not "
	"guard it: the answer may belong to another CPU; keep the "
	"!preemptible() guard")

@script:python depends on org@
p << r.p;
@@
coccilib.org.print_todo(p[0],
	"WARNING: read_sanitised_ftr_reg() stands in for a per-CPU check "
	"before capabilities are finalized but !preemptible() does not "
	"guard it: the answer may belong to another CPU; keep the "
	"!preemptible() guard")
