#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/demo/try.sh as the README has a newcomer use it: once it prints its commands, they are run
# as printed: the recommendation names emu0's rx_usecs, the by-hand line for emu0 sets it, reading
# it back gives the value set, the agent's status names it as another hand's change, and top
# answers; before the change, top shows emu0's drops in every frame; --help prints the usage. Stopped, it leaves no namespace or socket behind.
# As root:  try_demo_test.sh TRY_SH BUILD_DIR
set -euo pipefail

try=$1
build=$2
out=$(mktemp -d /tmp/nictune-try-test-XXXXXX)
try_pid=
cleanup() {
  if [[ -n $try_pid ]]; then kill -TERM "$try_pid" 2>/dev/null || true; wait "$try_pid" 2>/dev/null || true; fi
  rm -rf "$out"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  echo "--- try.sh printed:" >&2
  cat "$out/try.out" >&2
  exit 1
}

# --help is the usage in the script's comment, and starts nothing.
"$try" --help | grep -q 'tools/demo/try.sh \[BUILD_DIR\] \[SECONDS\]' || fail "try.sh --help: $("$try" --help 2>&1)"

# A port of this run's own; the demo runs 60 s at most.
HTTP_PORT=$((20000 + $$ % 20000)) "$try" "$build" 60 >"$out/try.out" 2>&1 &
try_pid=$!
for _ in $(seq 60); do
  grep -q '^Ctrl-C here' "$out/try.out" && break
  kill -0 "$try_pid" 2>/dev/null || fail "try.sh exited before printing its commands"
  sleep 1
done
grep -q '^Ctrl-C here' "$out/try.out" || fail "no commands printed within 60 s"
netns=$(sed -n 's/.*in namespace \([^ ,]*\),.*/\1/p' "$out/try.out")
control=$(sed -n 's/.*UNIX-CONNECT:\([^ ]*\)$/\1/p' "$out/try.out")
[[ -n $netns && -n $control ]] || fail "the namespace or the control socket is not named"

# A second try.sh on the same port says its agent could not start and leaves nothing behind; it
# does not print commands that would reach the first one's agent.
HTTP_PORT=$((20000 + $$ % 20000)) timeout 60 "$try" "$build" 60 >"$out/second.out" 2>&1 &&
  fail "a second try.sh on the port exited 0: $(cat "$out/second.out")"
grep -q "Address already in use" "$out/second.out" ||
  fail "a second try.sh does not say why it stopped: $(cat "$out/second.out")"
! grep -q '^Ctrl-C here' "$out/second.out" || fail "a second try.sh printed commands"
[[ -z $(ip netns list | grep -v "^$netns" | grep '^nt-try-' || true) ]] ||
  fail "a second try.sh left a namespace: $(ip netns list)"

# The indented lines, in order: recommend, recommend --as=ethtool, the read-back, top.
mapfile -t commands < <(sed -n 's/^  \(.*\)$/\1/p' "$out/try.out")
[[ ${#commands[@]} -eq 4 ]] || fail "expected 4 commands, found ${#commands[@]}"

bash -c "${commands[0]}" >"$out/recommend.out" || fail "'${commands[0]}' failed"
grep -Eq '^rx_usecs +emu0 +8000 -> [0-9]+ us' "$out/recommend.out" ||
  fail "no rx_usecs change for emu0 in: $(cat "$out/recommend.out")"

# Before the change, every frame of top shows emu0's drops as a count (the socket overflows at
# about 8000/s), also in intervals whose drop-probe slots saw none of them.
bash -c "${commands[3]}" >"$out/top_before.out" || fail "'${commands[3]}' failed"
mapfile -t dropping < <(awk '$1 == "emu0" && $3 == "rx" && NF == 10 { print $10 }' "$out/top_before.out")
[[ ${#dropping[@]} -eq 3 ]] || fail "expected 3 frames with emu0's rx row: $(cat "$out/top_before.out")"
for drops in "${dropping[@]}"; do
  [[ $drops =~ ^[0-9.]+$ ]] && (( ${drops%.*} > 1000 )) ||
    fail "emu0's drops/s read '$drops' in a frame of: $(cat "$out/top_before.out")"
done

bash -c "${commands[1]}" >"$out/by_hand.sh" || fail "'${commands[1]}' failed"
line=$(grep -F "UNIX-CONNECT:$control" "$out/by_hand.sh" | grep "SET rx_usecs " || true)
[[ -n $line ]] || fail "no by-hand line for emu0's rx_usecs in: $(cat "$out/by_hand.sh")"
set_to=$(sed -n 's/.*SET rx_usecs \([0-9]*\).*/\1/p' <<<"$line")
[[ $(bash -c "$line") == "OK $set_to" ]] || fail "'$line' was not taken"

[[ $(bash -c "${commands[2]}") == "OK $set_to" ]] || fail "'${commands[2]}' does not read $set_to"

# The agent, which writes nothing in recommend mode, says the change was another hand's once a
# window has read it (5 s windows).
status_command=${commands[0]% recommend}" status"
for _ in $(seq 20); do
  bash -c "$status_command" >"$out/status.out" 2>&1 || true
  grep -q "rx_usecs on emu0: 8000 -> $set_to" "$out/status.out" && break
  sleep 1
done
grep -q "knobs changed by another hand than nictune's: [1-9]" "$out/status.out" &&
  grep -q "rx_usecs on emu0: 8000 -> $set_to" "$out/status.out" ||
  fail "status does not name the change by hand within 20 s: $(cat "$out/status.out")"
bash -c "${commands[3]}" >"$out/top.out" || fail "'${commands[3]}' failed"
grep -q emu0 "$out/top.out" || fail "top shows no emu0: $(cat "$out/top.out")"

kill -TERM "$try_pid"
wait "$try_pid" 2>/dev/null || true
try_pid=
[[ ! -e /run/netns/$netns ]] || fail "namespace $netns left behind"
[[ ! -e $control ]] || fail "control socket $control left behind"
echo "PASS: rx_usecs on emu0 set by hand to $set_to and read back; nothing left behind"
