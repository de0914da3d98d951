#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The emulated NIC's timing accuracy (driver/emulated/README.md "Timing"). As root:
#   tools/demo/nic_timing.sh [BUILD_DIR]        (default: build)
# Runs nictune-emulated-nic for 3 s per row (its own namespace, nothing of the host's network
# touched), with the normal scheduler (fifo 0) and SCHED_FIFO 10, and prints from its final
# counters: rate = generated / elapsed_ns, interval = elapsed_ns / interrupts, lateness =
# late_ns_total / interrupts and late_ns_max, write per frame = flush_ns_total / delivered.
set -euo pipefail

NIC_BIN=${1:-build}/driver/emulated/nictune-emulated-nic
[[ -x $NIC_BIN ]] || { echo "nic_timing.sh: $NIC_BIN not built" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "nic_timing.sh: needs root (namespaces, TAP, SCHED_FIFO)" >&2; exit 2; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in "2000 2100" "20000 1000" "20000 100"; do
  read -r pps rx_usecs <<<"$run"
  for fifo in 0 10; do
    "$NIC_BIN" --netns="nt-timing-$$" --control_socket="/tmp/nictune-timing-$$.sock" \
      --flows="port=9000,pps=$pps,bytes=200" --rx_usecs="$rx_usecs" --duration=3s \
      --fifo_priority="$fifo" | grep '^final' | tr ' ' '\n' |
      awk -F= -v pps="$pps" -v us="$rx_usecs" -v fifo="$fifo" '{ c[$1] = $2 } END {
        printf "%6d pps, rx-usecs %4d, fifo %2d: %6.0f pps, interval %7.1f us, late %6.1f us mean / %5.1f ms max, write %5.1f us/frame\n",
          pps, us, fifo, c["generated"] * 1e9 / c["elapsed_ns"], c["elapsed_ns"] / c["interrupts"] / 1e3,
          c["late_ns_total"] / c["interrupts"] / 1e3, c["late_ns_max"] / 1e6,
          c["flush_ns_total"] / c["delivered"] / 1e3 }'
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
