#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-process cost of nictuned's sampling loop: CPU share of one core (utime + stime from
# /proc/PID/stat) and resident memory, over a measured span after a warm-up. A figure, not a test.
#   tests/bench/agent_cost.sh [BUILD_DIR=build] [SECONDS=30] [extra nictuned flags...]
# Environment:
#   DROPS=N      also run a bounded UDP flood that a slow receiver drops about N datagrams/s of
#                (as root): two network namespaces this script creates and deletes, joined by a
#                veth pair, private addresses inside them only; the receiver is
#                tools/demo/udp_sink.py with SO_RCVBUF 2048 at nice 19 on the sender's CPU, so it
#                drains between the sender's 10 ms bursts and a burst overflows it. The drop rate
#                printed is the receiving namespace's Udp RcvbufErrors over the measured span.
#   RCVBUF=2048  the receiver's SO_RCVBUF request (the kernel doubles it, up to rmem_max); one
#                that holds a burst makes a flood the receiver keeps up with, DROPS then being
#                the rate sent, and the row shows what it still dropped.
#   FLOOD_CPU=1  the CPU that the sender and the receiver share.
#   BPF_STATS=1  also report the run time of nictuned's BPF programs over the span (enables
#                kernel.bpf_stats_enabled for the run and restores its previous value).
# nictuned gets its own state directory, a private CLI socket and an HTTP port of its own, so that
# another nictuned on this host is not disturbed; flags given here come later and win.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$top/build}
seconds=${2:-30}
shift $(( $# >= 2 ? 2 : $# ))
drops_wanted=${DROPS:-0}
flood_cpu=${FLOOD_CPU:-1}
bpf_stats=${BPF_STATS:-0}
# The system's interpreter: a version manager's shim can take seconds to start on a loaded host.
python=/usr/bin/python3
warm_up=5  # probes attached, the first windows written, the per-packet probes switched on

if (( drops_wanted > 0 || bpf_stats == 1 )) && [[ $(id -u) != 0 ]]; then
  echo "agent_cost.sh: DROPS and BPF_STATS need root (namespaces, sysctl)" >&2
  exit 2
fi

state=$(mktemp -d /tmp/nictune-agent-cost-XXXXXX)
pid= sender_pid= sink_pid=
ns_tx=ntcost-tx-$$
ns_rx=ntcost-rx-$$
stats_before=
cleanup() {
  [[ -n $pid ]] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  [[ -n $sender_pid ]] && { kill "$sender_pid" 2>/dev/null || true; wait "$sender_pid" 2>/dev/null || true; }
  [[ -n $sink_pid ]] && { kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; }
  # Deleting a namespace deletes the veth end inside it, and with it the pair.
  for ns in "$ns_tx" "$ns_rx"; do
    [[ -e /run/netns/$ns ]] && { ip netns del "$ns" 2>/dev/null || true; }
  done
  [[ -n $stats_before ]] && echo "$stats_before" >/proc/sys/kernel/bpf_stats_enabled
  rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if (( bpf_stats == 1 )); then
  stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)
  echo 1 >/proc/sys/kernel/bpf_stats_enabled
fi

# nictuned's BPF programs: every prog_id its program and link fds name. Summing the fds' own
# counters would count a program once per fd, and the probe budget opens and closes link fds as
# it attaches and detaches, so the ids are gathered every half second through the span.
prog_ids() {
  awk '/^prog_id:/ {print $2}' /proc/"$pid"/fdinfo/* 2>/dev/null
}
watch_prog_ids() {
  while kill -0 "$pid" 2>/dev/null; do prog_ids >>"$state/prog_ids"; sleep 0.5; done
}
# Sum of run_time_ns and run_cnt over the programs `ids` names, in a `bpftool -j prog show` list
# on standard input. A program loaded after that list was taken counts from zero.
sum_runs() {
  "$python" -c '
import json, sys
ids = {int(i) for i in sys.argv[1:]}
progs = [p for p in json.load(sys.stdin) if p["id"] in ids]
print(sum(p.get("run_time_ns", 0) for p in progs), sum(p.get("run_cnt", 0) for p in progs))
' $ids
}
# The receiving namespace's Udp counter FIELD.
rx_udp() {
  ip netns exec "$ns_rx" awk -v f="$1" \
    '/^Udp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == f) c = i; n = 1 } else print $c }' \
    /proc/net/snmp
}

if (( drops_wanted > 0 )); then
  ip netns add "$ns_tx"
  ip netns add "$ns_rx"
  ip -n "$ns_tx" link add veth0 type veth peer name veth1 netns "$ns_rx"
  ip -n "$ns_tx" addr add 10.213.0.1/30 dev veth0
  ip -n "$ns_rx" addr add 10.213.0.2/30 dev veth1
  for ns in "$ns_tx" "$ns_rx"; do ip -n "$ns" link set lo up; done
  ip -n "$ns_tx" link set veth0 up
  ip -n "$ns_rx" link set veth1 up
  flood_seconds=$(( warm_up + seconds + 5 ))
  ip netns exec "$ns_rx" nice -n 19 taskset -c "$flood_cpu" "$python" "$top/tools/demo/udp_sink.py" \
    --address=10.213.0.2 --port=9000 --rcvbuf="${RCVBUF:-2048}" --duration="$flood_seconds" \
    >"$state/sink.out" 2>&1 &
  sink_pid=$!
  for _ in $(seq 100); do grep -q '^rcvbuf' "$state/sink.out" 2>/dev/null && break; sleep 0.1; done
  grep -q '^rcvbuf' "$state/sink.out" || { cat "$state/sink.out" >&2; exit 1; }
fi

"$build_dir/agent/nictuned" --state_dir="$state" --socket="$state/nictune.sock" \
  --listen="127.0.0.1:$(( 20000 + $$ % 20000 ))" "$@" 2>"$state/nictuned.err" &
pid=$!

if (( drops_wanted > 0 )); then
  # Bursts every 10 ms of a hundredth of the rate (plus the two the socket holds), 64-byte
  # payloads, bounded by time and by count.
  ip netns exec "$ns_tx" taskset -c "$flood_cpu" "$python" - "$drops_wanted" "$flood_seconds" \
    >"$state/sender.out" 2>&1 <<'PY' &
import socket, sys, time
rate, duration = int(sys.argv[1]), float(sys.argv[2])
burst = rate // 100 + 2
limit = int(burst * 100 * duration)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = b"x" * 64
sent, start = 0, time.monotonic()
next_burst = start
while sent < limit and time.monotonic() - start < duration:
    for _ in range(burst):
        tx.sendto(payload, ("10.213.0.2", 9000))
    sent += burst
    next_burst += 0.01
    delay = next_burst - time.monotonic()
    if delay > 0:
        time.sleep(delay)
print(f"sent {sent}")
PY
  sender_pid=$!
fi

sleep "$warm_up"
kill -0 "$pid" 2>/dev/null || { echo "agent_cost.sh: nictuned exited:" >&2; cat "$state/nictuned.err" >&2; exit 1; }
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
bpf_ns0=0 bpf_cnt0=0 bpf_ns1=0 bpf_cnt1=0
if (( bpf_stats == 1 )); then
  watch_prog_ids &
  watcher_pid=$!
fi
t0=$(ticks)
(( bpf_stats == 1 )) && bpf_t0=$(bpftool -j prog show)
(( drops_wanted > 0 )) && { err0=$(rx_udp RcvbufErrors); in0=$(rx_udp InDatagrams); }
sleep "$seconds"
t1=$(ticks)
if (( bpf_stats == 1 )); then
  ids=$(sort -u "$state/prog_ids")
  kill "$watcher_pid" 2>/dev/null || true
  read -r bpf_ns1 bpf_cnt1 < <(bpftool -j prog show | sum_runs)
  read -r bpf_ns0 bpf_cnt0 < <(echo "$bpf_t0" | sum_runs)
fi
(( drops_wanted > 0 )) && { err1=$(rx_udp RcvbufErrors); in1=$(rx_udp InDatagrams); }
hz=$(getconf CLK_TCK)
rss_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
load=$(cut -d' ' -f1-3 /proc/loadavg)

drops_column="idle"
if (( drops_wanted > 0 )); then
  drops_column=$(awk -v d="$((err1 - err0))" -v r="$((in1 - in0))" -v s="$seconds" \
    'BEGIN { printf "%.0f drops/s (%.0f received/s)", d / s, r / s }')
fi
bpf_column="-"
if (( bpf_stats == 1 )); then
  bpf_column=$(awk -v t="$((bpf_ns1 - bpf_ns0))" -v c="$((bpf_cnt1 - bpf_cnt0))" -v s="$seconds" \
    'BEGIN { printf "%.3f (%.0f runs/s, %.0f ns/run)", 100 * t / 1e9 / s, c / s, c ? t / c : 0 }')
fi
awk -v t="$((t1 - t0))" -v hz="$hz" -v s="$seconds" -v rss="$rss_kib" -v flags="${*:-defaults}" \
  -v traffic="$drops_column" -v bpf="$bpf_column" -v load="$load" 'BEGIN {
  printf "| nictuned flags | traffic | CPU (%% of one core) | BPF programs (%% of one core) | RSS (MiB) | load average |\n"
  printf "|---|---|---:|---|---:|---|\n"
  printf "| %s | %s | %.2f | %s | %.1f | %s |\n", flags, traffic, 100 * t / hz / s, bpf, rss / 1024, load }'
if (( drops_wanted > 0 )); then
  # Whether the flood made nictuned switch its per-packet probes on, as it should under drops.
  grep -m1 'per-packet probes' "$state/nictuned.err" | sed 's/^<[0-9]>/nictuned: /' ||
    echo "nictuned: per-packet probes were not switched on"
fi
