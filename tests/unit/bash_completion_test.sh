#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The bash completion (deploy/completion/nictune.bash) against the built binaries' help text:
# commands, each command's options, the values the help lists, and paths for the agent's flags.
#   bash_completion_test.sh COMPLETION_SCRIPT NICTUNE_BINARY NICTUNED_BINARY
set -uo pipefail
script=$1
bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
ln -s "$(realpath "$2")" "$bin_dir/nictune"
ln -s "$(realpath "$3")" "$bin_dir/nictuned"
PATH=$bin_dir:$PATH
# shellcheck source=/dev/null
source "$script"

failures=0
# complete WORD... : what completing the last word offers, as bash splits the line (with '=' a
# word of its own, as COMP_WORDBREAKS has it), one per line, sorted.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "_${COMP_WORDS[0]}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
    "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() {
  local what=$1 expected=$2
  shift 2
  local got
  got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
  if [[ $got != "$expected" ]]; then
    echo "FAIL: $what: completing [$*] gave [$got], expected [$expected]"
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
expect_contains() {
  local what=$1 expected=$2
  shift 2
  if ! complete_words "$@" | grep -qxF -- "$expected"; then
    echo "FAIL: $what: completing [$*] did not offer $expected (offered: $(complete_words "$@" | tr '\n' ' '))"
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}

expect "a command from its start" "recommend" nictune rec
# Every command offered is one the CLI has help for, and there are as many as it has.
offered=$(complete_words nictune "")
for command in $offered; do
  nictune help "$command" | grep -qE "^  $command( |$)" || {
    echo "FAIL: the completion offers $command, which nictune help does not know"
    failures=$((failures + 1))
  }
done
for command in status top recommend whatif history; do
  grep -qx "$command" <<<"$offered" || {
    echo "FAIL: the completion does not offer $command (offered: $(tr '\n' ' ' <<<"$offered"))"
    failures=$((failures + 1))
  }
done
expect "a command after a global option" "history" nictune --json hist
expect "recommend's options, with = where they take a value" "--as= --json --socket= --token_file= --url= --version --why" nictune recommend --
expect "the values --as takes, from the help" "ethtool sysctl tuned" nictune recommend --as = ""
expect "a value of --as from its start" "tuned" nictune recommend --as = tu
expect_contains "history's --list" "--list" nictune history --
expect_contains "the agent's flags, from its --help" "--probe_budget=" nictuned --probe
expect_contains "the agent's --check" "--check=" nictuned --ch
expect_contains "a path for an agent flag's value" "/tmp" nictuned --state_dir = /tm
expect_contains "a path for the CLI's --socket" "/tmp" nictune --socket = /tm

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
