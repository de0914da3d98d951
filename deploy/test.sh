#!/usr/bin/env bash
# Sets up (packages, build) and runs every test layer: unit tests, then the privileged layer
# (BPF, network namespaces) which needs root. Under CI=true a skipped test is a failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
"$top/deploy/bootstrap.sh"
"$top/deploy/build.sh"
cd "$build_dir"
ctest --output-on-failure -j"$(nproc)" -L unit
# Every parser of kernel text and of request input, fuzzed briefly with ASan + UBSan in a clang
# build of its own (they link only their parser libraries: a minute or two to build). The long
# runs are deploy/fuzz.sh's default of 60 s per target, and the whatif target, which links the
# whole agent.
fuzz_targets=(http_message_fuzz http_query_fuzz)
for src in "$top"/tests/fuzz/procfs_*_fuzz.cc; do fuzz_targets+=("$(basename "$src" .cc)"); done
BUILD_DIR="$build_dir-fuzz" "$top/deploy/fuzz.sh" "${FUZZ_SECONDS:-15}" "${fuzz_targets[@]}"
# Privileged tests share the kernel's counters and the machine's cores: run them one at a time.
ctest --output-on-failure -j1 -L privileged
