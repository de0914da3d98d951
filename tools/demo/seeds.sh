#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The seeds, replayed live on the emulated NIC (docs/testing.md "The demo"). As root, from the
# repository:
#   tools/demo/seeds.sh [BUILD_DIR]        (default: build, else build-package)
# Starts nictune-emulated-nic in a namespace of its own (nothing of the host's network is
# touched), a UDP sink in that namespace on the NIC's CPU, and nictuned in apply mode tuning the
# NIC over its control socket. Prints:
#   seed 001: a UDP stream into a socket of rmem_default 212992, in netperf's UDP_STREAM format,
#             before and after nictune raises the interrupt rate to the fill-time floor;
#   seed 000: polls per interrupt and the rx vs tx share of the polls, measured live;
#   seed 003: interrupts per second sampled each 500 ms interval, first and last samples dropped: the
#             NIC's own counter, read as each of nictune's intervals closes (a TAP has no
#             /proc/interrupts line), beside nictune's figure for that interval (GET
#             /api/v1/snapshot emulated_nics).
# Bounded: about 2 minutes of traffic; everything it starts is stopped on exit, also on Ctrl-C.
set -euo pipefail

BUILD=${1:-}
HERE=$(cd "$(dirname "$0")" && pwd)
DEMO=seeds
. "$HERE/loaded_host.sh"
demo_require "$NIC_BIN" "$AGENT_BIN"
# Seed 001's numbers scaled to what a TAP takes on a small VM: 1514-byte frames into a socket of
# rmem_default 212992 at RATE pps, starting at an rx-usecs whose burst overflows it.
demo_setup
PHASE_S=${PHASE_S:-10}
HTTP_PORT=${HTTP_PORT:-19877}

control() {  # control 'GET counters' -> the value of the OK line
  python3 "$HERE/nic_control.py" "$CONTROL" "$1"
}
counter() {  # counter NAME "<counters line>"
  tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}
snmp_udp() {  # snmp_udp FIELD: the namespace's Udp counter
  ip netns exec "$NETNS" awk -v f="$1" '/^Udp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == f) c = i; n = 1 } else print $c }' /proc/net/snmp
}

demo_start_nic 10.77.0.1/24 240
demo_start_sink 10.77.0.1 240

netperf_phase() {  # netperf_phase TITLE: PHASE_S seconds of the stream, in UDP_STREAM's format
  local c0 c1 ok0 ok1 err0 err1 t0 t1
  c0=$(control 'GET counters'); ok0=$(snmp_udp InDatagrams); err0=$(snmp_udp RcvbufErrors)
  sleep "$PHASE_S"
  c1=$(control 'GET counters'); ok1=$(snmp_udp InDatagrams); err1=$(snmp_udp RcvbufErrors)
  t0=$(counter elapsed_ns "$c0"); t1=$(counter elapsed_ns "$c1")
  local sent=$(( $(counter generated "$c1") - $(counter generated "$c0") ))
  local irqs=$(( $(counter interrupts "$c1") - $(counter interrupts "$c0") ))
  python3 - "$1" "$sent" $((ok1 - ok0)) $((err1 - err0)) $((t1 - t0)) "$RCVBUF" "$FRAME" "$irqs" \
    "$(counter rx_usecs "$c1")" <<'EOF'
import sys
title, sent, ok, err, ns, rcvbuf, frame, irqs, rx_usecs = sys.argv[1], *map(int, sys.argv[2:])
secs = ns / 1e9
payload = frame - 14 - 20 - 8  # Ethernet, IPv4 and UDP headers
mbps = lambda n: n * payload * 8 / secs / 1e6
print(f"{title} (rx-usecs {rx_usecs}, {irqs / secs:.0f} interrupts/s)")
print("Socket  Message  Elapsed      Messages")
print("Size    Size     Time         Okay Errors   Throughput")
print("bytes   bytes    secs            #      #   10^6bits/sec")
print()
print(f"{'-':<7} {payload:>7} {secs:>7.2f} {sent:>11} {0:>6} {mbps(sent):>10.1f}")
print(f"{rcvbuf:<7} {'':>7} {secs:>7.2f} {ok:>11} {err:>6} {mbps(ok):>10.1f}")
print()
EOF
}

echo "== seed 001: UDP stream, $RATE pps of $FRAME-byte frames, socket rcvbuf $RCVBUF =="
netperf_phase "Before nictune"

"$AGENT_BIN" --mode=apply --emulated_nic="emu0=$CONTROL" --listen="127.0.0.1:$HTTP_PORT" \
  --state_dir="$STATE/agent" --socket= --interval=500ms --window=2s --on_exit=restore \
  ${AGENT_FLAGS:-} >"$STATE/agent.out" 2>"$STATE/agent.err" &
AGENT_PID=$!
# Wait until nictune has moved rx-usecs and left it alone for a window and a half.
last=$(control 'GET rx_usecs'); still=0
for _ in $(seq 30); do
  sleep 1
  now=$(control 'GET rx_usecs')
  if [[ $now != "$START_RX_USECS" && $now == "$last" ]]; then still=$((still + 1)); else still=0; fi
  last=$now
  (( still >= 3 )) && break
done
[[ $(control 'GET rx_usecs') == "$START_RX_USECS" ]] && echo "nictune left rx-usecs at $START_RX_USECS within 30 s (see GET /api/v1/recommendations)"
echo "nictune's changes (GET /api/v1/changes):"
python3 - "$HTTP_PORT" <<'EOF'
import json, sys, urllib.request
body = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/changes?since=0", timeout=5))
for c in body["changes"]:
    print(f"  {c['knob']} {c['target']}: {c['original']} -> {c['new_value']} [{c['state']}] {c['reason'][:160]}")
EOF
echo
netperf_phase "After nictune"

echo "== seed 000: how often the poll loops per interrupt, and rx vs tx share =="
PYTHONPATH="$HERE" python3 - "$HTTP_PORT" "$CONTROL" <<'EOF'
import json, sys, time, urllib.request
from nic_control import counters
port, control = sys.argv[1], sys.argv[2]
print(f"{'second':>6} {'interrupts/s':>12} {'polls/s':>9} {'polls/irq':>9} {'pkts/poll':>9} {'rx share':>8} {'tx share':>8}")
for second in range(1, 6):
    c0 = counters(control); time.sleep(1.0); c1 = counters(control)
    irqs = (c1["interrupts"] - c0["interrupts"]) * 1e9 / (c1["elapsed_ns"] - c0["elapsed_ns"])
    snap = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/snapshot", timeout=5))
    napis = [n for n in snap.get("napis", []) if "emu0" in str(n.get("device", "")) or "@netns" in str(n.get("device", ""))]
    polls = sum(n["polls_per_s"] for n in napis)
    work = sum(n["polls_per_s"] * n.get("packets_per_poll", 0) for n in napis)
    rx = (sum(n["rx_share"] * n["polls_per_s"] for n in napis) / polls) if polls else float("nan")
    print(f"{second:>6} {irqs:>12.0f} {polls:>9.0f} {polls / irqs if irqs else float('nan'):>9.2f} "
          f"{work / polls if polls else float('nan'):>9.2f} {rx:>8.1%} {1 - rx:>8.1%}")
EOF
echo

echo "== seed 003: interrupts per second, sampled each 500 ms interval (first and last dropped) =="
echo "NIC counter: this script reads the emulated NIC's own interrupt counter (GET counters) as each"
echo "  of nictune's 500 ms intervals closes: the /proc/interrupts sampler's analogue, since a TAP has no"
echo "  /proc/interrupts line (the interrupt is the emulated part)."
echo "nictune: its per-second figure for the same interval, GET /api/v1/snapshot emulated_nics[emu0]"
echo "  interrupts_per_s (also nictune_emulated_nic_interrupts_total on /metrics)."
PYTHONPATH="$HERE" python3 - "$HTTP_PORT" "$CONTROL" <<'EOF'
import json, sys, time, urllib.request
from nic_control import counters
port, control = sys.argv[1], sys.argv[2]
def nic_interrupts():
    c = counters(control)
    return c["interrupts"], c["elapsed_ns"]
def nictune_interval():
    """(end of nictune's latest interval, its emu0 interrupts/s, the figure's source)"""
    snap = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/snapshot", timeout=5))
    for nic in snap.get("emulated_nics", []):
        if nic.get("device") == "emu0":
            return snap["end_unix_ns"], nic["interrupts_per_s"], nic["source"]
    return snap.get("end_unix_ns"), None, None
def next_interval(after_end):
    """Waits (up to 3 s) until nictune closes its next interval, so both columns cover one interval."""
    deadline = time.monotonic() + 3
    while True:
        end, ours, source = nictune_interval()
        if end != after_end or time.monotonic() > deadline:
            return end, ours, source
        time.sleep(0.02)
rows, sources = [], set()
end, _, _ = next_interval(None)
end, _, _ = next_interval(end)
prev = nic_interrupts()
for _ in range(12):
    end, ours, source = next_interval(end)
    cur = nic_interrupts()
    rows.append(((cur[0] - prev[0]) * 1e9 / (cur[1] - prev[1]), ours))
    if source:
        sources.add(source)
    prev = cur
kept = rows[1:-1]
print(f"{'sample':>6} {'NIC counter':>12} {'nictune':>10} {'diff':>7}")
for i, (nic, ours) in enumerate(rows):
    mark = "" if 0 < i < len(rows) - 1 else "  (dropped)"
    diff = "" if ours is None or not nic else f"{(ours - nic) / nic:+.1%}"
    print(f"{i + 1:>6} {nic:>12.0f} {'n/a' if ours is None else f'{ours:.0f}':>10} {diff:>7}{mark}")
avg = sum(r[0] for r in kept) / len(kept)
ours = [r[1] for r in kept if r[1] is not None]
line = f"{len(kept)} samples: {avg:.0f} avg (NIC counter)"
if ours:
    line += f", {sum(ours) / len(ours):.0f} avg (nictune, source: {', '.join(sorted(sources))})"
else:
    line += ", nictune: no per-second figure for emu0 (see GET /api/v1/snapshot sources)"
print(line)
EOF
