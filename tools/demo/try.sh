#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A loaded host to carry a recommendation out on by hand, without touching the host's own network
# (README "Try it in five minutes"). As root, from the repository:
#   tools/demo/try.sh [BUILD_DIR] [SECONDS]    (default: build, else build-package; 600 s)
# The demos' loaded host (loaded_host.sh): the emulated NIC emu0 in a namespace of its own, taking
# 20,000 pps of 1514-byte frames at rx-usecs 8000 into a socket that overflows between interrupts,
# and an agent in recommend mode that watches it on its own port. Once the agent recommends for
# emu0, this prints the commands to run in another terminal: the recommendation, its by-hand
# line (for the emulated NIC a request to its control socket, where a NIC's is `ethtool -C`),
# and how to read the setting back. It stays up SECONDS, or until Ctrl-C; everything it started
# is stopped and deleted on exit. A kill ends it as Ctrl-C does.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then  # the comment above, without its '#'s
  sed -n '3,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi

BUILD=${1:-}
SECONDS_UP=${2:-600}
DEMO=try
. "$(dirname "$0")/loaded_host.sh"
demo_require "$NIC_BIN" "$AGENT_BIN" "$CLI_BIN"
command -v socat >/dev/null || { echo "try: needs socat (deploy/bootstrap.sh --agent installs it)" >&2; exit 2; }
demo_setup
# Ctrl-C or the end: the demo's cleanup, and a word that it is done.
trap 'demo_cleanup; echo "try: stopped; $NETNS, emu0, the sink and the agent are gone" >&2' EXIT
trap 'exit 130' INT TERM
HTTP_PORT=${HTTP_PORT:-19879}
URL=http://127.0.0.1:$HTTP_PORT

demo_start_nic 10.77.0.1/24 "$SECONDS_UP"
demo_start_sink 10.77.0.1 "$SECONDS_UP"
"$AGENT_BIN" --mode=recommend --emulated_nic="emu0=$CONTROL" --listen="127.0.0.1:$HTTP_PORT" \
  --state_dir="$STATE/agent" --socket= --interval=1s --window=5s \
  >"$STATE/agent.out" 2>"$STATE/agent.err" &
AGENT_PID=$!

# The CLI of the build given, else the installed one (the package's), else the build's found.
if [[ -n ${1:-} ]]; then
  CLI=$(realpath "$CLI_BIN")
else
  CLI=$(command -v nictune || realpath "$CLI_BIN")
fi
recommended=
for _ in $(seq 45); do
  sleep 1
  # Its own agent, not another one on the port (another try.sh's): that one stops at once.
  kill -0 "$AGENT_PID" 2>/dev/null || {
    echo "try: the agent stopped (another try.sh on port $HTTP_PORT? HTTP_PORT=N picks another):" >&2
    tail -3 "$STATE/agent.err" >&2
    exit 1
  }
  "$CLI" --url="$URL" recommend 2>/dev/null | grep -q '^rx_usecs  *emu0 ' && recommended=yes && break
done
[[ -n $recommended ]] ||
  { echo "try: no recommendation for emu0 within 45 s" >&2; tail -5 "$STATE/agent.err" >&2; exit 1; }

cat <<TEXT
try: up for ${SECONDS_UP} s. emu0, an emulated NIC in namespace $NETNS, takes $RATE pps of
$FRAME-byte frames at rx-usecs $START_RX_USECS into a UDP socket of $RCVBUF bytes that overflows
between interrupts; an agent in recommend mode watches it at $URL.
In another terminal, as root:

  $CLI --url=$URL recommend
  $CLI --url=$URL recommend --as=ethtool

and run the lines the second prints for emu0 (requests to the NIC's control socket; for a NIC
they are ethtool -C). Then read the setting back, and watch interrupts and drops change:

  printf 'GET rx_usecs\\n' | socat - UNIX-CONNECT:$CONTROL
  $CLI --url=$URL top --count=3

Ctrl-C here stops it all and deletes what it made.
TEXT
wait "$NIC_PID" || true
