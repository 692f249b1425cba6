#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/e2e/lint.t under ASan, UBSan and LSan (tests/asan/run.sh): the
# series and range code joins analyses and moves findings between them.
exec "$(dirname "$0")/run.sh" lint
