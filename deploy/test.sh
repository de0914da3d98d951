#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up (packages, build) and runs every test layer: unit tests, the fuzzers, then the
# privileged layer (BPF, network namespaces) which needs root. Under CI=true a skipped test is a
# failure. Every layer runs even when an earlier one failed, and the run ends with a summary of
# every failed test and its first failing assertion (deploy/test_summary.py).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
phase_start=$SECONDS
phases=()
phase_done() { phases+=("$1 $((SECONDS - phase_start)) s"); phase_start=$SECONDS; }
"$top/deploy/bootstrap.sh"
# Only what the tests run: the benchmarks are built on request (docs/benchmarks.md).
"$top/deploy/build.sh" -DNICTUNE_TESTS=ON -DNICTUNE_BENCH=OFF
phase_done "setup and build:"
cd "$build_dir"
logs=$build_dir/test-logs
mkdir -p "$logs"
verdict=0

# Each test's TIMEOUT is a property of the test (tests/CMakeLists.txt). Unit tests get no retry.
ctest --output-on-failure -j"$(nproc)" -L unit 2>&1 | tee "$logs/unit.log" || verdict=$?
phase_done "unit:"

# The README's package build as a newcomer runs it (a unity build: each library's sources compiled
# in batches), here without its file-by-file fallback, so that two sources defining the same
# file-local name fail CI instead of doubling a newcomer's wait; then the .deb holds the agent.
package_verdict=0
if deb=$(UNITY_FALLBACK=0 BUILD_DIR="$build_dir-package" "$top/deploy/package.sh" 2>"$logs/package.log"); then
  dpkg-deb --contents "$deb" | grep ' \./usr/sbin/nictuned$' >/dev/null ||
    { echo "package: $deb holds no /usr/sbin/nictuned" >>"$logs/package.log"; package_verdict=1; }
else
  package_verdict=1
fi
phase_done "package (unity):"

# Every parser of kernel text and of request input, fuzzed with ASan + UBSan for FUZZ_SECONDS
# (default 30) each, one target per CPU at a time, in a clang build of its own (they link only
# their parser libraries: a minute or two to build). Longer runs: deploy/fuzz.sh SECONDS.
fuzz_verdict=0
BUILD_DIR="$build_dir-fuzz" "$top/deploy/fuzz.sh" "${FUZZ_SECONDS:-30}" || fuzz_verdict=$?
phase_done "fuzz (build and run):"

# Privileged tests share the kernel's counters and the machine's cores: run them one at a time.
# A test that fails gets one retry, a safety net against a VM's stalls: the summary names every
# test that needed it, a defect to fix as much as a failure is.
ctest --output-on-failure -j1 -L privileged --repeat until-pass:2 2>&1 |
  tee "$logs/privileged.log" || verdict=$?
phase_done "privileged:"

printf 'test.sh: time per phase:'; printf ' %s;' "${phases[@]}"; echo
"$top/deploy/test_summary.py" "$logs/unit.log" "$logs/privileged.log"
if [[ $package_verdict -ne 0 ]]; then
  verdict=1
  echo "  PACKAGE FAILED: deploy/package.sh with UNITY_FALLBACK=0 ($logs/package.log):"
  grep -m5 -E 'error|FAILED|package:' "$logs/package.log" | cut -c1-300 | sed 's/^/    /' || true
fi
if [[ $fuzz_verdict -ne 0 ]]; then
  verdict=$fuzz_verdict
  for v in "$build_dir-fuzz"/fuzz-artifacts/*.verdict; do
    grep -q ' ok ' "$v" && continue
    echo "  FUZZ FAILED: $(cat "$v")"
    grep -m3 -E '^==[0-9]+==ERROR|runtime error|^SUMMARY' "${v%.verdict}.log" 2>/dev/null |
      cut -c1-300 | sed 's/^/    /' || true
  done
fi
exit "$verdict"
