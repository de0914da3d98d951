/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between udp_fail.bpf.c and C++: UDP queueing failures per socket. */
#pragma once

#include "socket_key.h" /* same folder: also built by clang for BPF */

struct nictune_udp_fail {
  struct nictune_socket_key socket; /* filled by the CPU that counted; zero on the others */
  __u64 count;
  __s64 last_rc; /* the last error, e.g. -ENOMEM (rcvbuf full) or -ENOBUFS */
};
