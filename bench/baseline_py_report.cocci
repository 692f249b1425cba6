// SPDX-License-Identifier: GPL-2.0-only
/// Timing baseline, not installed: every read_cpuid(), reported through
/// Python as every kernel rule reports (spatch starts its Python then).
// Options: --no-includes --include-headers

virtual report

@r depends on report@
position p;
@@
read_cpuid@p(...)

@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0], "read_cpuid")
