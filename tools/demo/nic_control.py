#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The emulated NIC's control protocol (driver/emulated/README.md) for tools/demo/seeds.sh: one
connection per request, one line back. As a command, `nic_control.py SOCKET 'GET rx_usecs'`
prints the value of the OK answer and exits 1 with the answer on anything else."""

import socket
import sys


def call(control: str, request: str) -> str:
    """The value of the OK answer to `request`; RuntimeError naming the socket otherwise."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(control)
        sock.sendall((request + "\n").encode())
        line = sock.makefile().readline().strip()
    if not line.startswith("OK"):
        raise RuntimeError(f"emulated NIC {control}: {request}: {line}")
    return line[3:]


def counters(control: str) -> dict:
    """GET counters as a dict of name -> integer."""
    return {name: int(value)
            for name, value in (pair.split("=") for pair in call(control, "GET counters").split())}


if __name__ == "__main__":
    try:
        print(call(sys.argv[1], sys.argv[2]))
    except (OSError, RuntimeError) as error:
        sys.exit(str(error))
