#!/usr/bin/env bash
# Whole-process cost of nictuned's sampling loop: CPU share of one core (utime + stime from
# /proc/PID/stat) and resident memory, over a measured span after a warm-up. A figure, not a test.
#   tests/bench/agent_cost.sh [BUILD_DIR=build] [SECONDS=30] [extra nictuned flags...]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$top/build}
seconds=${2:-30}
shift $(( $# >= 2 ? 2 : $# ))
state=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$state"' EXIT
"$build_dir/agent/nictuned" --state_dir="$state" "$@" 2>/dev/null &
pid=$!
sleep 5  # probes attached and the first windows written
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(ticks)
sleep "$seconds"
t1=$(ticks)
hz=$(getconf CLK_TCK)
rss_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
awk -v t="$((t1 - t0))" -v hz="$hz" -v s="$seconds" -v rss="$rss_kib" -v flags="${*:-defaults}" 'BEGIN {
  printf "| nictuned flags | CPU (%% of one core) | RSS (MiB) |\n|---|---:|---:|\n"
  printf "| %s | %.2f | %.1f |\n", flags, 100 * t / hz / s, rss / 1024 }'
