#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Make a copy of a prepared kernel tree with seed 004 reverted: the
# sanitised read in cpu_has_hw_af() becomes read_cpuid(ID_AA64MMFR1_EL1)
# again. The copy is hard-linked (cp -al, seconds, no extra space); the
# two files that change are written anew, so the original keeps its own.
#
# Usage: tests/kernel/revert-seed-004.sh TREE COPY

set -eu
tree=$1
copy=$2
hdr=arch/arm64/include/asm/cpufeature.h

if [ ! -f "$copy/.trapcheck-seed-004-reverted" ]; then
	rm -rf "$copy" "$copy.tmp"
	cp -al "$tree" "$copy.tmp"
	sed 's/mmfr1 = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);/mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);/' \
		"$tree/$hdr" > "$copy.tmp/$hdr.new"
	grep -q 'mmfr1 = read_cpuid(ID_AA64MMFR1_EL1);' "$copy.tmp/$hdr.new"
	mv "$copy.tmp/$hdr.new" "$copy.tmp/$hdr"
	sed "s#$tree#$copy#g" "$tree/compile_commands.json" \
		> "$copy.tmp/compile_commands.json.new"
	mv "$copy.tmp/compile_commands.json.new" \
		"$copy.tmp/compile_commands.json"
	touch "$copy.tmp/.trapcheck-seed-004-reverted"
	mv "$copy.tmp" "$copy"
fi
grep -n 'read_cpuid(ID_AA64MMFR1_EL1)' "$copy/$hdr" | head -1
