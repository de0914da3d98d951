#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's way in, timed step by step (docs/benchmarks.md "The five-minute walk"): install the
# .deb, check the host, run the agent, read a recommendation and carry it out by hand. As root, on
# a Debian 12 host that has the package's dependencies (deploy/bootstrap.sh --agent installs them):
#   tools/demo/walk.sh DEB [BUILD_DIR]     (DEB: what deploy/package.sh printed; BUILD_DIR: build, else build-package)
# The traffic is the demos' loaded host (loaded_host.sh) with the emulated NIC from BUILD_DIR,
# which the package does not carry. Where systemd is PID 1 the package's service runs the agent;
# elsewhere this starts /usr/sbin/nictuned with the package's flagfile, as the unit does. The
# setting carried out by hand is the emulated NIC's, in its own namespace; nothing of the host's
# network is touched. The package is purged on exit, also on Ctrl-C. Bounded: about 2 minutes.
set -euo pipefail

DEB=${1:?usage: tools/demo/walk.sh DEB [BUILD_DIR]}
BUILD=${2:-}
DEMO=walk
. "$(dirname "$0")/loaded_host.sh"
demo_require "$NIC_BIN"
command -v socat >/dev/null || { echo "walk: needs socat (deploy/bootstrap.sh --agent installs it)" >&2; exit 2; }
demo_setup
dpkg -s nictune >/dev/null 2>&1 && {
  echo "walk: nictune is installed already; purge it first (apt-get purge nictune)" >&2
  exit 2
}
walk_cleanup() {
  demo_cleanup
  apt-get purge -y nictune >/dev/null 2>&1 || true
}
trap walk_cleanup EXIT INT TERM

seconds_since() { awk -v from="$1" -v to="$(date +%s.%N)" 'BEGIN { printf "%.1f", to - from }'; }
step_started=0
walk_seconds=0
begin() { step_started=$(date +%s.%N); }
took() {  # took STEP WHAT: the step's row
  local seconds
  seconds=$(seconds_since "$step_started")
  walk_seconds=$(awk -v a="$walk_seconds" -v b="$seconds" 'BEGIN { printf "%.1f", a + b }')
  printf '| %s | %s | %s |\n' "$1" "$seconds" "$2"
}
echo "| step | seconds | what it showed |"
echo "|---|---:|---|"

begin
apt-get install -y "$(realpath "$DEB")" >"$STATE/install.out" 2>&1 ||
  { tail -5 "$STATE/install.out" >&2; exit 1; }
took "apt-get install ./nictune_*.deb" "$(dpkg-query -W -f='${Package} ${Version}' nictune)"

begin
/usr/sbin/nictuned --check >"$STATE/check.out" 2>&1 || true
took "nictuned --check" "$(tail -1 "$STATE/check.out")"

# The traffic a newcomer's own host would have: not timed.
demo_start_nic 10.79.0.1/24 120
demo_start_sink 10.79.0.1 120

begin
if [[ -d /run/systemd/system ]]; then
  echo "--emulated_nic=emu0=$CONTROL" >>/etc/nictune/nictuned.flags
  systemctl restart nictuned
  started="systemctl restart nictuned"
else
  /usr/sbin/nictuned --flagfile=/etc/nictune/nictuned.flags --emulated_nic="emu0=$CONTROL" \
    >"$STATE/agent.out" 2>"$STATE/agent.err" &
  AGENT_PID=$!
  started="nictuned --flagfile=/etc/nictune/nictuned.flags (no systemd here)"
fi
for _ in $(seq 100); do nictune status >/dev/null 2>&1 && break; sleep 0.1; done
took "start the agent" "$started; nictune status answers"

# A newcomer asks again until the first window of traffic is in.
begin
recommended=
for _ in $(seq 60); do
  nictune recommend >"$STATE/recommend.out" 2>&1 || true
  recommended=$(awk '$1 == "rx_usecs" && $2 == "emu0" { print $5 }' "$STATE/recommend.out")
  [[ -n $recommended ]] && break
  sleep 1
done
[[ -n $recommended ]] || { cat "$STATE/recommend.out" >&2; exit 1; }
took "nictune recommend, until a recommendation" "rx_usecs emu0 8000 -> $recommended"

begin
nictune recommend --as=ethtool >"$STATE/by_hand.sh"
grep -q "rx_usecs $recommended" "$STATE/by_hand.sh" ||
  { cat "$STATE/by_hand.sh" >&2; exit 1; }
# The lines for emu0, as a person would paste them (the host's sysctls stay as they are).
grep -F "UNIX-CONNECT:$CONTROL" "$STATE/by_hand.sh" | sh >"$STATE/carried.out"
now=$(printf 'GET rx_usecs\n' | socat - "UNIX-CONNECT:$CONTROL")
[[ $now == "OK $recommended" ]] || {
  echo "walk: the emulated NIC holds rx_usecs '$now' after running:" >&2
  grep -F "UNIX-CONNECT:$CONTROL" "$STATE/by_hand.sh" >&2
  cat "$STATE/carried.out" >&2
  exit 1
}
took "nictune recommend --as=ethtool, and run its emu0 lines" "the emulated NIC answers: $now"

echo "| the steps together (reading, and starting the traffic, left out) | $walk_seconds | |"
