#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What `nictune recommend` prints for a loaded host, live (docs/testing.md "The demo"). As root,
# from the repository:
#   tools/demo/recommend.sh [BUILD_DIR] [SAVE_JSON]  (default: build, else build-package; nothing saved)
# The same loaded host as seeds.sh (loaded_host.sh): nictune-emulated-nic taking RATE pps of
# 1514-byte frames at an rx-usecs (8000) whose bursts overflow the sink's socket.
# nictuned runs in recommend mode, so it changes nothing. Once its recommendations name the
# emulated NIC's rx_usecs, this prints `nictune recommend` at 80 columns; with SAVE_JSON it also
# writes the answer of GET /api/v1/recommendations there. The README's sample is such a file,
# tests/unit/fixtures/cli/recommendations_loaded.json, and a unit test holds the README's block
# to what the CLI renders from it.
# Bounded: at most about 60 s; everything it starts is stopped on exit, also on Ctrl-C.
set -euo pipefail

BUILD=${1:-}
SAVE_JSON=${2:-}
DEMO=recommend
. "$(dirname "$0")/loaded_host.sh"
demo_require "$NIC_BIN" "$AGENT_BIN" "$CLI_BIN"
demo_setup
HTTP_PORT=${HTTP_PORT:-19878}

demo_start_nic 10.78.0.1/24 60
demo_start_sink 10.78.0.1 60

"$AGENT_BIN" --mode=recommend --emulated_nic="emu0=$CONTROL" --listen="127.0.0.1:$HTTP_PORT" \
  --state_dir="$STATE/agent" --socket= --interval=1s --window=5s \
  >"$STATE/agent.out" 2>"$STATE/agent.err" &
AGENT_PID=$!

URL=http://127.0.0.1:$HTTP_PORT
# Asks every second until eleven answers have named emu0's rx_usecs: the first window that did and
# two more (5 s windows, as try.sh's), so the answer comes from whole windows of traffic.
python3 - "$URL" <<'EOF' || { tail -5 "$STATE/agent.err" >&2; exit 1; }
import json, sys, time, urllib.request
url, seen, deadline = sys.argv[1], 0, time.monotonic() + 45
while time.monotonic() < deadline:
    time.sleep(1)
    try:
        body = json.load(urllib.request.urlopen(f"{url}/api/v1/recommendations", timeout=5))
    except OSError:
        continue
    if any(r.get("knob") == "rx_usecs" and r.get("target", "").startswith("emu0")
           for r in body.get("recommendations", [])):
        seen += 1
        if seen >= 11:
            sys.exit(0)
print("recommend.sh: no rx_usecs recommendation for emu0 within 45 s", file=sys.stderr)
sys.exit(1)
EOF

echo "$ nictune recommend"
COLUMNS=80 "$CLI_BIN" --url="$URL" recommend
if [[ -n $SAVE_JSON ]]; then
  python3 - "$URL" "$SAVE_JSON" <<'EOF'
import json, sys, urllib.request
body = json.load(urllib.request.urlopen(f"{sys.argv[1]}/api/v1/recommendations", timeout=5))
with open(sys.argv[2], "w") as out:
    json.dump(body, out, indent=1, sort_keys=True)
    out.write("\n")
EOF
  echo "(saved GET /api/v1/recommendations to $SAVE_JSON)"
fi
