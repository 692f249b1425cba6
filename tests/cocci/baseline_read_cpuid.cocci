// SPDX-License-Identifier: GPL-2.0-only
/// Timing baseline, not installed: a one-line rule (every read_cpuid()).
// Options: --no-includes --include-headers

virtual context
virtual report

@@ @@
* read_cpuid(...)
