#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a section-8 manual page from a nictune binary's own help text, so that the page says
what the binary says: nictuned's --help (agent/service/help_request.h: usage lines and every flag
with its default, in abseil's layout) or the nictune CLI's `help` (usage, commands, exit codes).
The prose the help text has no place for (files, signals, see also) comes from a frame file whose
@GENERATED@ line the help replaces.

    help_to_man.py agent|cli BINARY FRAME VERSION > PAGE
"""
import re
import subprocess
import sys


def roff_text(text):
    """Text as roff reads it literally: backslashes and hyphens escaped, no leading dot."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def agent_page(help_text):
    """nictuned --help: 'nictuned: SUMMARY', usage lines, then '    --flag (help); default: X;'
    entries whose continuation lines are indented six spaces."""
    lines = help_text.splitlines()
    summary = lines[0].split(": ", 1)[1]
    out = [".SH DESCRIPTION", roff_text(summary), ".SS Usage"]
    usage = re.compile(r"^  (nictuned\b.*?)\s{2,}(\S.*)$|^  (nictuned)\s*$")
    flags, current = [], None
    for line in lines[1:]:
        match = usage.match(line)
        if match and not flags and current is None:
            out += [".TP", "\\fB" + roff_text(match.group(1) or match.group(3)) + "\\fR",
                    roff_text(match.group(2) or "")]
            continue
        flag = re.match(r"^    (--[a-z0-9_]+) \((.*)$", line)
        if flag:
            current = [flag.group(1), flag.group(2)]
            flags.append(current)
        elif current is not None and line.startswith("      "):
            current[1] += " " + line.strip()
        elif current is not None and not line.strip():
            current = None
    if not flags:
        sys.exit("help_to_man: no flags found in the --help text")
    out.append(".SH OPTIONS")
    for name, text in flags:
        described, _, default = text.rpartition("); default: ")
        if not described:
            described, default = text.rstrip(");"), ""
        default = default.rstrip(";").strip()
        shown = " (default: " + roff_text(default) + ")" if default else ""
        out += [".TP", "\\fB" + roff_text(name) + "\\fR" + shown, roff_text(described)]
    return out


def cli_page(help_text):
    """nictune help: a usage line, a paragraph, 'commands:' with aligned entries, 'exit codes:'."""
    blocks = help_text.strip().split("\n\n")
    out = [".SH SYNOPSIS", roff_text(blocks[0].removeprefix("usage: ").strip()), ".SH DESCRIPTION"]
    for block in blocks[1:]:
        if block.startswith("commands:"):
            out += [".SH COMMANDS", ".nf"] + [roff_text(line) for line in block.splitlines()[1:]] + [".fi"]
        elif block.startswith("exit codes:"):
            out += [".SH EXIT STATUS", roff_text(" ".join(block.removeprefix("exit codes:").split()))]
        else:
            out += [".PP", roff_text(" ".join(block.split()))]
    return out


def main():
    kind, binary, frame, version = sys.argv[1:5]
    command = [binary, "--help"] if kind == "agent" else [binary, "help"]
    help_text = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    if not help_text.strip():
        sys.exit(f"help_to_man: {' '.join(command)} printed nothing")
    generated = agent_page(help_text) if kind == "agent" else cli_page(help_text)
    for line in open(frame, encoding="utf-8").read().splitlines():
        if line == "@GENERATED@":
            print("\n".join(generated))
        else:
            print(line.replace("@VERSION@", version))


if __name__ == "__main__":
    main()
