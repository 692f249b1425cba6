#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/e2e/hostdata.t under ASan, UBSan and LSan (tests/asan/run.sh): the
# fix writer's groups and multi-file patches, a one-edit fix among them.
exec "$(dirname "$0")/run.sh" hostdata
