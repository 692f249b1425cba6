#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/e2e/trust.t under ASan, UBSan and LSan (tests/asan/run.sh).
exec "$(dirname "$0")/run.sh" trust
