#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, coverage-instrumented libraries) and runs
# each for a bounded time on a corpus seeded from the recorded fixtures.
#
#   deploy/fuzz.sh [SECONDS] [TARGET...]     SECONDS per target, default 60; all targets by default
#
# BUILD_DIR (default ./build-fuzz) holds the build, the growing corpora (fuzz-corpus/TARGET) and
# any crashing inputs (fuzz-artifacts/). Exits non-zero if any target found a crash.
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

CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$top" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNICTUNE_FUZZ=ON -DNICTUNE_BENCH=OFF >/dev/null
# The machine is shared: two jobs at most. Keep going past a target that does not compile so
# the others still run; it is reported below and fails the run.
cmake --build "$build_dir" -j2 --target "${targets[@]}" -- -k 0 ||
  echo "fuzz: some targets did not build; the rest run" >&2

# Seeds: the fixtures of the file the target parses (snmp and netstat share one parser).
seed_dirs() {
  case $1 in
    procfs_interrupts_fuzz) echo "$fixtures/interrupts" ;;
    procfs_softirqs_fuzz) echo "$fixtures/softirqs" ;;
    procfs_softnet_stat_fuzz) echo "$fixtures/softnet_stat" ;;
    procfs_snmp_fuzz) echo "$fixtures/snmp $fixtures/netstat" ;;
    procfs_stat_fuzz) echo "$fixtures/stat" ;;
    *) ;;
  esac
}

mkdir -p "$build_dir/fuzz-artifacts"
failed=()
summary=()
for target in "${targets[@]}"; do
  corpus=$build_dir/fuzz-corpus/$target
  mkdir -p "$corpus"
  if [[ $target == procfs_cpu_list_fuzz ]]; then
    printf '0-3,8,10-11\n' >"$corpus/seed-ranges"
    printf '0\n' >"$corpus/seed-single"
    printf '0-127\n' >"$corpus/seed-wide"
  fi
  if [[ ! -x $build_dir/tests/fuzz/$target ]]; then
    failed+=("$target")
    summary+=("$(printf '%-28s NOT BUILT (see the build output above)' "$target")")
    continue
  fi
  read -r -a seeds <<<"$(seed_dirs "$target")"
  log=$build_dir/fuzz-artifacts/$target.log
  echo "fuzz: $target for ${seconds}s"
  if "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -max_len=65536 \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build_dir/fuzz-artifacts/$target-" \
    "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    summary+=("$(printf '%-28s ok     %10s runs  corpus %s files' "$target" "${runs:-?}" \
      "$(find "$corpus" -type f | wc -l)")")
  else
    failed+=("$target")
    summary+=("$(printf '%-28s CRASH  see %s' "$target" "$log")")
  fi
done

printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failed: ${failed[*]}; crashing inputs in $build_dir/fuzz-artifacts/" >&2
  exit 1
fi
