#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent's whole cost (its CPU plus its BPF programs' run time, % of one core) at several probe
# budgets side by side, over rounds that alternate the budgets' order, at each drop rate: the
# figures behind the default --probe_budget. A benchmark, not a test; one run at a time (root).
#   tests/bench/budget_sweep.sh [BUILD_DIR=build] [ROUNDS=5] [SECONDS=30]
# Environment: BUDGETS (default "0.005 0.004 0.0035"), RATES (drops/s; default "10000 100000
# 1000000", the last the sender flat out). Each run is tests/bench/agent_cost.sh with DROPS=RATE
# BPF_STATS=1 --probe_budget=BUDGET; the table gives every round's figure and the median.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$top/build}
rounds=${2:-5}
seconds=${3:-30}
read -r -a budgets <<<"${BUDGETS:-0.005 0.004 0.0035}"
read -r -a rates <<<"${RATES:-10000 100000 1000000}"
results=$(mktemp /tmp/nictune-budget-sweep-XXXXXX)
trap 'rm -f "$results"' EXIT

# agent_cost.sh's row: "| flags | traffic | CPU | BPF (runs/s, ns/run) | RSS | load |".
whole_cost() {
  awk -F'|' '/^\| --/ { cpu = $4; split($5, bpf, " "); printf "%.2f", cpu + bpf[1] }'
}

for ((round = 1; round <= rounds; round++)); do
  order=("${budgets[@]}")
  # Odd rounds run the budgets as given, even ones reversed: neither goes first every time.
  if ((round % 2 == 0)); then
    order=()
    for ((i = ${#budgets[@]} - 1; i >= 0; i--)); do order+=("${budgets[i]}"); done
  fi
  for rate in "${rates[@]}"; do
    for budget in "${order[@]}"; do
      row=$(DROPS=$rate BPF_STATS=1 "$top/tests/bench/agent_cost.sh" "$build_dir" "$seconds" \
        --probe_budget="$budget" | grep '^| --')
      cost=$(whole_cost <<<"$row")
      echo "$rate $budget $round $cost" >>"$results"
      echo "round $round, $rate drops/s, budget $budget: whole cost $cost% ($row)" >&2
    done
  done
done

printf '| drops/s wanted |'
for budget in "${budgets[@]}"; do printf ' budget %s: per round; median |' "$budget"; done
printf '\n|---|'
for _ in "${budgets[@]}"; do printf -- '---|'; done
printf '\n'
for rate in "${rates[@]}"; do
  printf '| %s |' "$rate"
  for budget in "${budgets[@]}"; do
    figures=$(awk -v r="$rate" -v b="$budget" '$1 == r && $2 == b { print $4 }' "$results")
    median=$(sort -g <<<"$figures" | awk '{ v[NR] = $1 } END {
      print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    printf ' %s; **%s** |' "$(paste -sd, <<<"$figures" | sed 's/,/, /g')" "$median"
  done
  printf '\n'
done
