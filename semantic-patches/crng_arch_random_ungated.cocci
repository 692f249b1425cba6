// SPDX-License-Identifier: GPL-2.0-only
/// RDRAND, RDSEED and RNDR are not fast: hundreds of cycles each. Once the
/// CRNG is ready its output does not need architectural entropy, so an
/// arch_get_random_*() call on the CRNG extraction path only costs time
/// ("random: avoid superfluous call to RDRAND in CRNG extraction":
/// removing it made get_random_bytes() 370% faster on an i7-11850H).
/// Before the CRNG is ready the call is worth it: gate it with
/// unlikely(!crng_ready()).
///
//# Finds arch_get_random_long/int/seed_long/seed_int/longs/seed_longs()
//# in the condition of an if statement in the CRNG code, which is
//# drivers/char/random.c or any file that defines crng_ready() (a macro or
//# a function), unless !crng_ready() gates it: in the same condition
//# (`!crng_ready() && arch_get_random_long(&v)`, unlikely() or not) or in
//# the condition of an enclosing if. Patch mode rewrites the condition
//# only when the call is the whole condition, `if (arch_get_random_long(&v))`
//# becoming `if (unlikely(!crng_ready()) && arch_get_random_long(&v))`
//# (that patch's fix); other conditions are reported. Not found: calls
//# outside if conditions (6.12's extract_entropy() assigns the result of
//# arch_get_random_longs(), and runs only while !crng_ready() in its
//# caller, crng_make_state(): trapcheck's slow-entropy rule follows that).
//
// Confidence: High
// Copyright: (C) 2026 The trapcheck authors.
// Options: --no-includes --include-headers
// Requires: 1.1.1
// Keywords: arch_get_random_long, crng_ready, RDRAND

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

CRNG_DEF = re.compile(r"^[ \t]*#[ \t]*define[ \t]+crng_ready\b|"
		      r"^[A-Za-z_][\w \t*]*\bcrng_ready[ \t]*\([^;{]*\)[ \t\n]*\{",
		      re.M)
scope_cache = {}

def in_crng_code(path):
	if path.endswith("drivers/char/random.c"):
		return True
	if path not in scope_cache:
		try:
			with open(path, errors="replace") as f:
				scope_cache[path] = bool(CRNG_DEF.search(f.read()))
		except OSError:
			scope_cache[path] = False
	return scope_cache[path]

def message(f):
	return ("WARNING: %s() executes a slow entropy instruction in CRNG "
		"extraction; gate it with unlikely(!crng_ready())" % f)

// Calls that !crng_ready() already gates.
@gated@
identifier f = {arch_get_random_long, arch_get_random_int,
		arch_get_random_seed_long, arch_get_random_seed_int,
		arch_get_random_longs, arch_get_random_seed_longs};
position p;
statement S1, S2;
@@

(
 if (<+... !crng_ready(...) ...+> && <+... f@p(...) ...+>) S1 else S2
|
 if (<+... !crng_ready(...) ...+> && <+... f@p(...) ...+>) S1
|
 if (<+... !crng_ready(...) ...+>) { <+... f@p(...) ...+> } else S2
|
 if (<+... !crng_ready(...) ...+>) { <+... f@p(...) ...+> }
)

// f is bound twice: as an identifier for the messages and the rewrite, and
// as a disjunction of the calls, which gives spatch's token prefilter
// something to look for (an identifier list does not).
@r@
identifier f = {arch_get_random_long, arch_get_random_int,
		arch_get_random_seed_long, arch_get_random_seed_int,
		arch_get_random_longs, arch_get_random_seed_longs};
position p != gated.p;
statement S1, S2;
@@

(
 if (<+... \(f@p(...) \& \(arch_get_random_long(...)\|arch_get_random_int(...)\|
     arch_get_random_seed_long(...)\|arch_get_random_seed_int(...)\|
     arch_get_random_longs(...)\|arch_get_random_seed_longs(...)\)\) ...+>) S1 else S2
|
 if (<+... \(f@p(...) \& \(arch_get_random_long(...)\|arch_get_random_int(...)\|
     arch_get_random_seed_long(...)\|arch_get_random_seed_int(...)\|
     arch_get_random_longs(...)\|arch_get_random_seed_longs(...)\)\) ...+>) S1
)

@script:python@
p << r.p;
@@
if not in_crng_code(p[0].file):
	cocci.include_match(False)

@depends on context@
identifier r.f;
position r.p;
@@

* f@p(...)

@script:python depends on report@
f << r.f;
p << r.p;
@@
coccilib.report.print_report(p[0], message(f))

@script:python depends on org@
f << r.f;
p << r.p;
@@
coccilib.org.print_todo(p[0], message(f))

@depends on patch@
identifier r.f;
position r.p;
expression list es;
statement S1, S2;
@@

(
 if (
-    f@p(es)
+    unlikely(!crng_ready()) && f(es)
 ) S1 else S2
|
 if (
-    f@p(es)
+    unlikely(!crng_ready()) && f(es)
 ) S1
)
