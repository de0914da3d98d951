/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between the per-socket BPF programs (udp_fail, sockfill) and C++: who a socket is. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

struct nictune_socket_key {
  __u64 cookie;
  __u16 family;
  __u16 protocol;
  __u16 local_port; /* host order */
  __u16 reserved;
  __u32 netns_inode;
  __u32 reserved2;
};
