# SPDX-License-Identifier: Apache-2.0
# The loaded host the demos run (seeds.sh, recommend.sh, try.sh, walk.sh), sourced by them: nictune-emulated-nic in
# a network namespace of its own taking RATE pps of FRAME-byte frames at START_RX_USECS, and a UDP
# sink there whose socket has rmem_default's size, on the NIC's CPU below its SCHED_FIFO priority
# (it drains between bursts, as a reader on the softirq's CPU does). Nothing of the host's network
# is touched. The script sets DEMO (its name, in messages and in what it creates) and BUILD, then
# calls demo_require with the binaries it runs, demo_setup, demo_start_nic and demo_start_sink;
# everything started is stopped on exit, also on Ctrl-C, the agent's pid being AGENT_PID.

DEMO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# No BUILD given: deploy/run.sh's build, else deploy/package.sh's, whichever has the emulated NIC.
if [[ -z ${BUILD:-} ]]; then
  for BUILD in build build-package; do
    [[ -x $BUILD/driver/emulated/nictune-emulated-nic ]] && break
  done
fi
NIC_BIN=$BUILD/driver/emulated/nictune-emulated-nic
AGENT_BIN=$BUILD/agent/nictuned
CLI_BIN=$BUILD/agent/nictune

demo_require() {  # demo_require BINARY...: each built, and root
  local bin
  for bin in "$@"; do
    [[ -x $bin ]] || {
      echo "$DEMO: $bin not built (deploy/run.sh or deploy/package.sh builds it; or give the" \
        "build directory as the first argument)" >&2
      exit 2
    }
  done
  [[ $(id -u) == 0 ]] || { echo "$DEMO: needs root (namespaces, BPF, SCHED_FIFO)" >&2; exit 2; }
}

demo_cleanup() {
  local pid
  for pid in "$AGENT_PID" "$SINK_PID" "$NIC_PID"; do
    [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  done
  [[ -e /run/netns/$NETNS ]] && ip netns del "$NETNS" 2>/dev/null || true
  rm -f "$CONTROL"
  rm -rf "$STATE"
}

demo_setup() {  # the knobs of the load, the names of what is made, and the cleanup on exit
  RATE=${RATE:-20000}
  FRAME=1514
  PORT=9000
  START_RX_USECS=${START_RX_USECS:-8000}
  CPU=${CPU:-1}
  NETNS=nt-$DEMO-$$
  CONTROL=/run/nictune-$DEMO-$$.sock
  STATE=$(mktemp -d "/tmp/nictune-$DEMO-XXXXXX")
  NIC_PID= SINK_PID= AGENT_PID=
  trap demo_cleanup EXIT INT TERM
}

demo_start_nic() {  # demo_start_nic ADDRESS/PREFIX SECONDS: the NIC, once it says ready
  "$NIC_BIN" --netns="$NETNS" --control_socket="$CONTROL" --device=emu0 --address="$1" \
    --flows="port=$PORT,pps=$RATE,bytes=$FRAME" --rx_usecs="$START_RX_USECS" --ring_size=4096 \
    --cpu="$CPU" --fifo_priority=10 --duration="$2s" >"$STATE/nic.out" 2>"$STATE/nic.err" &
  NIC_PID=$!
  for _ in $(seq 100); do grep -q '^ready' "$STATE/nic.out" 2>/dev/null && break; sleep 0.1; done
  grep -q '^ready' "$STATE/nic.out" || { cat "$STATE/nic.err" >&2; exit 1; }
}

demo_start_sink() {  # demo_start_sink ADDRESS SECONDS: the sink, once it reports its rcvbuf
  chrt -f 5 taskset -c "$CPU" ip netns exec "$NETNS" python3 "$DEMO_DIR/udp_sink.py" \
    --address="$1" --port="$PORT" --duration="$2" >"$STATE/sink.out" 2>&1 &
  SINK_PID=$!
  for _ in $(seq 50); do grep -q '^rcvbuf' "$STATE/sink.out" 2>/dev/null && break; sleep 0.1; done
  RCVBUF=$(awk '/^rcvbuf/ {print $2}' "$STATE/sink.out")
}
