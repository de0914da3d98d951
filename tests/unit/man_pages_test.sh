#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The manual pages written at build time (deploy/man/help_to_man.py) against the binaries they
# describe: every flag of nictuned --help and every command of nictune help is in its page.
#   man_pages_test.sh NICTUNED_PAGE_GZ NICTUNE_PAGE_GZ NICTUNED_BINARY NICTUNE_BINARY
set -uo pipefail
agent_page=$(zcat "$1") || { echo "FAIL: cannot read $1"; exit 1; }
cli_page=$(zcat "$2") || { echo "FAIL: cannot read $2"; exit 1; }
failures=0

flags=$("$3" --help 2>/dev/null | grep -oE '^    --[a-z0-9_]+' | sed 's/^ *--//')
[[ $(wc -l <<<"$flags") -ge 20 ]] || { echo "FAIL: nictuned --help lists too few flags: $flags"; exit 1; }
for flag in $flags; do
  roff_name="\\fB\\-\\-${flag//-/\\-}\\fR"
  grep -qF -- "$roff_name" <<<"$agent_page" || {
    echo "FAIL: nictuned.8 lacks --$flag"
    failures=$((failures + 1))
  }
done
grep -qF '.TH NICTUNED 8' <<<"$agent_page" || { echo "FAIL: nictuned.8 has no .TH line"; failures=$((failures + 1)); }

commands=$("$4" help 2>/dev/null | sed -n '/^commands:/,/^$/p' | awk '/^  [a-z]/ {print $1}' | sort -u)
[[ -n $commands ]] || { echo "FAIL: nictune help lists no commands"; exit 1; }
for command in $commands; do
  grep -qE "^ +$command( |$)" <<<"$cli_page" || {
    echo "FAIL: nictune.8 lacks the command $command"
    failures=$((failures + 1))
  }
done
grep -qF '.SH EXIT STATUS' <<<"$cli_page" || { echo "FAIL: nictune.8 has no EXIT STATUS"; failures=$((failures + 1)); }

echo "$(wc -w <<<"$flags") flags and $(wc -w <<<"$commands") commands checked, $failures missing"
((failures == 0))
