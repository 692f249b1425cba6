// SPDX-License-Identifier: GPL-2.0-only
/// Before the capabilities are finalized, this_cpu_has_cap() resolves a
/// register-field capability with SCOPE_LOCAL_CPU: it reads the ID register
/// from hardware through __read_sysreg_by_encoding() on every call. Under a
/// hypervisor that sets HCR_EL2.TID3 every such read traps (a vmexit);
/// "arm64: archrandom: avoid trapping ID register read in __cpu_has_rng()":
/// about 200k trapped ID_AA64ISAR0_EL1 reads, 6.3% of a direct boot. The
/// register is invariant: test the field of the sanitised copy,
/// read_sanitised_ftr_reg(), which returns the value cached in
/// arm64_ftr_regs[] without a trap. Keep the !preemptible() guard: a
/// secondary CPU coming online can only lower a field of the sanitised
/// value, so the answer holds for the CPU the caller is pinned to.
///
//# Shape: `return this_cpu_has_cap(CAP);` as the (unbraced) branch of
//# `if (unlikely(!system_capabilities_finalized() && !preemptible()))`
//# (unlikely() optional, either order of the two tests). Report, context
//# and org modes flag any CAP. Coccinelle cannot know which register and
//# field a capability reads, so patch mode rewrites only the capabilities
//# of the CAPS table below (register, field, minimum value, copied from
//# ARM64_CPUID_FIELDS() in arm64_features[] of Linux 6.12; all are
//# unsigned fields). The rewrite is the reviewed form of that patch (Will
//# Deacon's SYS_FIELD_GET() version, Linux 6.1 and later) and keeps the
//# guard. The block
//# comment's continuation lines are aligned for an if statement at
//# function-body level, as in __cpu_has_rng(); re-indent it elsewhere.
//# trapcheck's local-cap-check rule finds the same call from the hot
//# paths, whatever the shape of the branch.
//
// Confidence: High
// Copyright: (C) 2026 The trapcheck authors.
// Options: --no-includes --include-headers
// Requires: 1.1.1
// Keywords: this_cpu_has_cap, read_sanitised_ftr_reg, SYS_FIELD_GET

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
# capability: (register, field, minimum) as in ARM64_CPUID_FIELDS()
CAPS = {
	"ARM64_HAS_RNG": ("ID_AA64ISAR0_EL1", "RNDR", "IMP"),
	"ARM64_HAS_RAS_EXTN": ("ID_AA64PFR0_EL1", "RAS", "IMP"),
	"ARM64_HAS_DIT": ("ID_AA64PFR0_EL1", "DIT", "IMP"),
	"ARM64_SSBS": ("ID_AA64PFR1_EL1", "SSBS", "IMP"),
	"ARM64_HAS_E0PD": ("ID_AA64MMFR2_EL1", "E0PD", "IMP"),
	"ARM64_HAS_PAN": ("ID_AA64MMFR1_EL1", "PAN", "IMP"),
	"ARM64_HAS_LSE_ATOMICS": ("ID_AA64ISAR0_EL1", "ATOMIC", "IMP"),
}

def short(reg):
	# ID_AA64ISAR0_EL1 -> isar0, as in the reviewed fix
	s = reg[:-len("_EL1")] if reg.endswith("_EL1") else reg
	for pfx in ("ID_AA64", "ID_"):
		if s.startswith(pfx):
			s = s[len(pfx):]
			break
	return s.lower()

def message(cap):
	if cap in CAPS:
		reg, field, _ = CAPS[cap]
		return ("WARNING: this_cpu_has_cap(%s) reads %s from hardware "
			"before the capabilities are finalized (traps under "
			"HCR_EL2.TID3); test field %s of "
			"read_sanitised_ftr_reg(SYS_%s), keeping !preemptible()"
			% (cap, reg, field, reg))
	return ("WARNING: this_cpu_has_cap(%s) reads an ID register from "
		"hardware before the capabilities are finalized (traps under "
		"HCR_EL2.TID3); test the field of read_sanitised_ftr_reg(), "
		"keeping !preemptible()" % cap)

// report, context, org: any capability. The zero-argument calls are
// written f(...): two f() in one pattern make spatch 1.1.1 fail with
// "index ... already used".

@r depends on !patch@
expression cap;
position p;
@@

 if (\(unlikely(!system_capabilities_finalized(...) && !preemptible(...))\|unlikely(!preemptible(...) && !system_capabilities_finalized(...))\))
*	return this_cpu_has_cap@p(cap);

@script:python depends on report@
cap << r.cap;
p << r.p;
@@
coccilib.report.print_report(p[0], message(cap))

@script:python depends on org@
cap << r.cap;
p << r.p;
@@
coccilib.org.print_todo(p[0], message(cap))

// patch: the capabilities of CAPS only

@pr depends on patch@
identifier cap;
expression C;
position p;
@@

 if (\(C@p \& \(unlikely(!system_capabilities_finalized(...) && !preemptible(...))\|unlikely(!preemptible(...) && !system_capabilities_finalized(...))\)\))
	return this_cpu_has_cap(cap);

@script:python mk depends on patch@
cap << pr.cap;
sysreg;
reg;
fld;
lim;
v;
f;
@@
if cap not in CAPS:
	cocci.include_match(False)
else:
	r, fl, m = CAPS[cap]
	coccinelle.sysreg = cocci.make_ident("SYS_" + r)
	coccinelle.reg = cocci.make_ident(r)
	coccinelle.fld = cocci.make_ident(fl)
	coccinelle.lim = cocci.make_ident("%s_%s_%s" % (r, fl, m))
	coccinelle.v = cocci.make_ident(short(r))
	coccinelle.f = cocci.make_ident(fl.lower())

// Followed by a return: the reviewed form, with a blank line before it.
@depends on patch@
expression pr.C, E;
identifier pr.cap;
position pr.p;
identifier mk.sysreg, mk.reg, mk.fld, mk.lim, mk.v, mk.f;
@@

-if (C@p)
-	return this_cpu_has_cap(cap);
-return E;
+if (C) {
+		/*
+		 * Query the in-memory sanitised value to avoid a potential
+		 * trap when accessing the ID register under a hypervisor.
+		 */
+	u64 v = read_sanitised_ftr_reg(sysreg);
+	u64 f = SYS_FIELD_GET(reg, fld, v);
+
+	return f >= lim;
+}
+
+return E;

// Any other statement follows: the same block.
@depends on patch@
expression pr.C;
identifier pr.cap;
identifier mk.sysreg, mk.reg, mk.fld, mk.lim, mk.v, mk.f;
@@

-if (C)
-	return this_cpu_has_cap(cap);
+if (C) {
+		/*
+		 * Query the in-memory sanitised value to avoid a potential
+		 * trap when accessing the ID register under a hypervisor.
+		 */
+	u64 v = read_sanitised_ftr_reg(sysreg);
+	u64 f = SYS_FIELD_GET(reg, fld, v);
+
+	return f >= lim;
+}
