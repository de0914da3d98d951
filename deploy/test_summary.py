#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summarises ctest logs (--output-on-failure) for the tail of a test run.

  deploy/test_summary.py LOG...

Prints every test whose last run failed, with its first failing assertion (file:line and the
lines of message after it), and every test that failed once and then passed on its retry
(ctest --repeat until-pass): each of those is a defect to fix too. Exits 0; the verdict is
ctest's own.
"""
import re
import sys

STATUS = re.compile(r"^\s*(?:\d+/\d+ )?Test +#\d+: (\S+) \.+ *(\*\*\*)?(.+?)\s+[\d.]+ sec$")
START = re.compile(r"^\s+Start +\d+: ")
ASSERTION = re.compile(r"^(.*:\d+): (Failure|error)\b")
MESSAGE_LINES = 3


def read_runs(path):
    """Each test's runs in order: (passed, outcome, first assertion lines)."""
    runs = {}
    current = None
    with open(path, errors="replace") as log:
        for line in log:
            line = line.rstrip("\n")
            status = STATUS.match(line)
            if status:
                name, failed, outcome = status.group(1), status.group(2), status.group(3)
                current = {"passed": not failed, "outcome": outcome.strip(), "first": []}
                runs.setdefault(name, []).append(current)
                continue
            if START.match(line):
                current = None
            if current is None or current["passed"]:
                continue
            first = current["first"]
            if not first and ASSERTION.match(line):
                first.append(line)
            elif first and len(first) <= MESSAGE_LINES and line.strip():
                first.append(line)
    return runs


def main(paths):
    failed, retried = [], []
    for path in paths:
        try:
            runs = read_runs(path)
        except OSError as error:
            print(f"test summary: cannot read {path}: {error.strerror}")
            continue
        for name, attempts in runs.items():
            if not attempts[-1]["passed"]:
                failed.append((name, attempts[-1]))
            elif any(not a["passed"] for a in attempts):
                retried.append((name, next(a for a in attempts if not a["passed"])))
    print(f"test summary: {len(failed)} failed, {len(retried)} passed only on their retry")
    for title, tests in (("FAILED", failed), ("NEEDED A RETRY", retried)):
        for name, attempt in tests:
            print(f"  {title}: {name} ({attempt['outcome']})")
            for line in attempt["first"] or ["(no gtest assertion in its output)"]:
                print(f"    {line[:300]}")


if __name__ == "__main__":
    main(sys.argv[1:])
