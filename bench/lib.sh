# shellcheck shell=sh disable=SC2154
# SPDX-License-Identifier: GPL-2.0
# Shared by bench/run and bench/whole (sourced; $out and $csv set).

# measure NAME CMD...: wall seconds and peak RSS of CMD, and how many TUs
# trapcheck parsed, appended to $csv.raw.
measure() {
	m_name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$out/$m_name.time" "$@" \
		> "$out/$m_name.out" 2> "$out/$m_name.err"
	# shellcheck disable=SC2046
	set -- $(tail -n 1 "$out/$m_name.time")
	parsed=$(sed -n 's/^trapcheck: \([0-9]*\) TUs parsed, .*/\1/p' \
		"$out/$m_name.err")
	echo "$m_name,$1,$2,${parsed:--}" >> "$csv.raw"
}

# The pre-submit lint rows (bench/run, bench/whole, tests/kernel/lint.t),
# each a patch of TREE made with plain diff -u into $out/lint-NAME.patch:
#   body         a89c6bcdac22 reverted: one line inside a function body of
#                asm/cpufeature.h (every TU includes it)
#   macro-rare   FTR_STRICT's value (asm/cpufeature.h): one TU expands it
#   macro-some   NET_IP_ALIGN's value (asm/processor.h): a macro a few
#                hundred TUs of the whole build expand
#   macro-new    a #define added to asm/cpufeature.h that nothing names
#   c-body       a line inside a function body of drivers/char/random.c
#   new-file     a new .c file (no compile command: noted, not analysed)
lint_names="body macro-rare macro-some macro-new c-body new-file"

# lint_patch NAME FILE SED: $out/lint-NAME.patch, FILE of $l_tree edited
# by the sed script SED (a new FILE: SED is its one line)
lint_patch() {
	mkdir -p "$out/lint/a/${2%/*}" "$out/lint/b/${2%/*}"
	if [ -f "$l_tree/$2" ]; then
		cp "$l_tree/$2" "$out/lint/a/$2"
		sed "$3" "$out/lint/a/$2" > "$out/lint/b/$2"
		(cd "$out/lint" && diff -u "a/$2" "b/$2") > "$out/lint-$1.patch"
	else
		printf '%s\n' "$3" > "$out/lint/b/$2"
		(cd "$out/lint" && diff -u /dev/null "b/$2") \
			> "$out/lint-$1.patch"
	fi
	if [ ! -s "$out/lint-$1.patch" ]; then
		echo "bench: lint-$1: the edit of $2 changed nothing" >&2
		return 1
	fi
}

# lint_patches TREE: every patch of $lint_names.
lint_patches() {
	l_tree=$1
	rm -rf "$out/lint"
	l_f=arch/arm64/include/asm/cpufeature.h
	lint_patch body $l_f 's/mmfr1 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);/mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/' &&
	lint_patch macro-rare $l_f 's/^#define FTR_STRICT\ttrue/#define FTR_STRICT\tfalse/' &&
	lint_patch macro-some arch/arm64/include/asm/processor.h 's/^#define NET_IP_ALIGN\t0$/#define NET_IP_ALIGN\t2/' &&
	lint_patch macro-new $l_f '0,/^#define __ASM_CPUFEATURE_H$/s//&\n#define TRAPCHECK_BENCH 1/' &&
	lint_patch c-body drivers/char/random.c '0,/^\tBUG_ON(random_data_len > 32);$/s//&\n\tBUG_ON(!random_data);/' &&
	lint_patch new-file drivers/char/trapcheck_bench.c 'int trapcheck_bench(void) { return 0; }'
}
