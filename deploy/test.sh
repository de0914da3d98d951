#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up (packages, build) and runs every test layer: unit tests, then the privileged layer
# (BPF, network namespaces) which needs root. Under CI=true a skipped test is a failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
"$top/deploy/bootstrap.sh"
"$top/deploy/build.sh"
cd "$build_dir"
ctest --output-on-failure -j"$(nproc)" -L unit
# Every parser of kernel text and of request input, fuzzed with ASan + UBSan for FUZZ_SECONDS
# (default 30) each, one target per CPU at a time, in a clang build of its own (they link only
# their parser libraries: a minute or two to build). Longer runs: deploy/fuzz.sh SECONDS.
BUILD_DIR="$build_dir-fuzz" "$top/deploy/fuzz.sh" "${FUZZ_SECONDS:-30}"
# Privileged tests share the kernel's counters and the machine's cores: run them one at a time.
# The slotted NAPI accuracy measurement runs on its own (docs/testing.md "Run separately"): on a
# VM whose link operations cost milliseconds, the slots disturb the flood they sample.
separately='NapiAccuracy.AFloodSlottedByTheProbeBudgetAgreesWithNapiPollAttachedWhole'
ctest --output-on-failure -j1 -L privileged -E "$separately"
