#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/e2e/dbfail.t under ASan, UBSan and LSan (tests/asan/run.sh): a
# sparser set of failed writes and kill points (every 12th).
TRAPCHECK_DBFAIL_STEP=12 exec "$(dirname "$0")/run.sh" dbfail
