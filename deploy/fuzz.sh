#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang, ASan + UBSan, coverage-instrumented libraries) and runs
# each for a bounded time on a corpus seeded from the recorded fixtures.
#
#   deploy/fuzz.sh [SECONDS] [TARGET...]     SECONDS per target, default 60; all targets by default
#
# BUILD_DIR (default ./build-fuzz) holds the build, the growing corpora (fuzz-corpus/TARGET) and
# any crashing inputs (fuzz-artifacts/). FUZZ_JOBS targets run at once (default: one per CPU; each
# libFuzzer process uses one). Exits non-zero if any target found a crash.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build-fuzz}
seconds=${1:-60}
[[ $# -gt 0 ]] && shift
if ! [[ $seconds =~ ^[0-9]+$ ]]; then
  echo "fuzz: SECONDS must be a whole number, got '$seconds'" >&2
  exit 2
fi
fixtures=$top/tests/unit/fixtures

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for src in "$top"/tests/fuzz/*_fuzz.cc; do targets+=("$(basename "$src" .cc)"); done
fi

. "$top/deploy/compiler_cache.sh"
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$top" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNICTUNE_FUZZ=ON -DNICTUNE_BENCH=OFF "${compiler_cache_args[@]}" >/dev/null
# The machine is shared: two jobs at most. Keep going past a target that does not compile so
# the others still run; it is reported below and fails the run.
cmake --build "$build_dir" -j2 --target "${targets[@]}" -- -k 0 ||
  echo "fuzz: some targets did not build; the rest run" >&2

# Seeds: the fixtures of the file the target parses (snmp and netstat share one parser); the
# whatif bodies that once went wrong; /proc/net/udp and udp6 as a kernel wrote them.
seed_dirs() {
  case $1 in
    procfs_interrupts_fuzz) echo "$fixtures/interrupts" ;;
    procfs_softirqs_fuzz) echo "$fixtures/softirqs" ;;
    procfs_softnet_stat_fuzz) echo "$fixtures/softnet_stat" ;;
    procfs_snmp_fuzz) echo "$fixtures/snmp $fixtures/netstat" ;;
    procfs_stat_fuzz) echo "$fixtures/stat" ;;
    http_whatif_fuzz) echo "$top/tests/fuzz/seeds/http_whatif" ;;
    kernel_proc_net_udp_fuzz) echo "$top/tests/fuzz/seeds/proc_net_udp" ;;
    *) ;;
  esac
}

mkdir -p "$build_dir/fuzz-artifacts"
# One target, its verdict in fuzz-artifacts/TARGET.verdict for the summary below.
fuzz_one() {
  local target=$1 corpus=$build_dir/fuzz-corpus/$1 log=$build_dir/fuzz-artifacts/$1.log
  local verdict=$build_dir/fuzz-artifacts/$1.verdict
  mkdir -p "$corpus"
  if [[ $target == procfs_cpu_list_fuzz ]]; then
    printf '0-3,8,10-11\n' >"$corpus/seed-ranges"
    printf '0\n' >"$corpus/seed-single"
    printf '0-127\n' >"$corpus/seed-wide"
  fi
  if [[ ! -x $build_dir/tests/fuzz/$target ]]; then
    printf '%-28s NOT BUILT (see the build output above)\n' "$target" >"$verdict"
    return
  fi
  local seeds
  read -r -a seeds <<<"$(seed_dirs "$target")"
  echo "fuzz: $target for ${seconds}s"
  if "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -max_len=65536 \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build_dir/fuzz-artifacts/$target-" \
    "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    printf '%-28s ok     %10s runs  corpus %s files\n' "$target" "${runs:-?}" \
      "$(find "$corpus" -type f | wc -l)" >"$verdict"
  else
    printf '%-28s CRASH  see %s\n' "$target" "$log" >"$verdict"
  fi
}

jobs_max=${FUZZ_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
  rm -f "$build_dir/fuzz-artifacts/$target.verdict"
  while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n || true; done
  fuzz_one "$target" &
done
wait

failed=()
for target in "${targets[@]}"; do
  verdict=$build_dir/fuzz-artifacts/$target.verdict
  if [[ -f $verdict ]]; then cat "$verdict"; else printf '%-28s NO VERDICT\n' "$target"; fi
  [[ -f $verdict ]] && grep -q ' ok ' "$verdict" || failed+=("$target")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failed: ${failed[*]}; crashing inputs in $build_dir/fuzz-artifacts/" >&2
  exit 1
fi
