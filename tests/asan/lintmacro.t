#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/e2e/lintmacro.t under ASan, UBSan and LSan (tests/asan/run.sh):
# macro sets decoded, definitions read from text, closures followed.
exec "$(dirname "$0")/run.sh" lintmacro
