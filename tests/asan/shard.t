#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/e2e/shard.t under ASan, UBSan and LSan (tests/asan/run.sh).
exec "$(dirname "$0")/run.sh" shard
