#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A UDP receiver for tools/demo/seeds.sh: binds ADDRESS:PORT in the namespace it is started in
(ip netns exec), reads as fast as it can until SIGTERM or --duration, and prints the socket's
effective SO_RCVBUF once bound ("rcvbuf N") and its totals when it stops
("received N drops N", drops from SO_RXQ_OVFL: the socket's own drop counter)."""

import argparse
import signal
import socket
import struct
import sys
import time

SO_RXQ_OVFL = 40  # include/uapi/asm-generic/socket.h


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", default="0.0.0.0")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rcvbuf", type=int, default=0,
                        help="SO_RCVBUF request (the kernel doubles it); 0 keeps rmem_default")
    parser.add_argument("--duration", type=float, default=300.0,
                        help="seconds before it stops by itself, a bound if nobody stops it")
    args = parser.parse_args()

    stop = False

    def on_term(_signum, _frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if args.rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    sock.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
    sock.bind((args.address, args.port))
    sock.settimeout(0.2)
    print(f"rcvbuf {sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)}", flush=True)

    received = 0
    drops = 0
    deadline = time.monotonic() + args.duration
    while not stop and time.monotonic() < deadline:
        try:
            _data, ancillary, _flags, _addr = sock.recvmsg(2048, socket.CMSG_SPACE(4))
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        received += 1
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_RXQ_OVFL and len(payload) >= 4:
                drops = struct.unpack("I", payload[:4])[0]
    print(f"received {received} drops {drops}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
