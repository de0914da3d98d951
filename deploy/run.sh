#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up (packages, build) and runs nictuned in the foreground with its state in ./state.
# Extra arguments go to nictuned, e.g. `deploy/run.sh --once --json`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# Only the agent's packages and targets: the tests and benchmarks are deploy/test.sh's.
"$top/deploy/bootstrap.sh" --agent
"$top/deploy/build.sh" -DNICTUNE_TESTS=OFF -DNICTUNE_BENCH=OFF
mkdir -p "$top/state"
exec "${BUILD_DIR:-$top/build}/agent/nictuned" --state_dir="$top/state" "$@"
