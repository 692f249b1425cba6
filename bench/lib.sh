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

# lint_patches TREE: $out/lint-body.patch (a89c6bcdac22 reverted: one line
# inside a function body of asm/cpufeature.h) and $out/lint-macro.patch (a
# #define added to that header), as plain diff -u.
lint_patches() {
	l_f=arch/arm64/include/asm/cpufeature.h
	mkdir -p "$out/lint/a/${l_f%/*}" "$out/lint/b/${l_f%/*}"
	cp "$1/$l_f" "$out/lint/a/$l_f"
	sed 's/mmfr1 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);/mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/' \
		"$1/$l_f" > "$out/lint/b/$l_f"
	(cd "$out/lint" && diff -u "a/$l_f" "b/$l_f") > "$out/lint-body.patch"
	sed '0,/^#define __ASM_CPUFEATURE_H$/s//&\n#define TRAPCHECK_BENCH 1/' \
		"$1/$l_f" > "$out/lint/b/$l_f"
	(cd "$out/lint" && diff -u "a/$l_f" "b/$l_f") > "$out/lint-macro.patch"
}
