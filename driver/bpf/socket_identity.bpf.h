/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the BPF programs that key by socket (drops, udp_fail, sockfill). */
#pragma once

#include "tracepoint_twin.bpf.h"

/* The socket cookie: bpf_get_socket_cookie (which creates it on first use) where the program is
 * tp_btf and the pointer is typed; the raw_tp twin can only read a cookie that already exists and
 * otherwise uses a scrambled socket address, so the socket still has a stable identity. */
static __always_inline __u64 nictune_socket_identity(const struct sock* sk, bool btf) {
  if (!sk) return 0;
  if (btf) return bpf_get_socket_cookie((void*)sk);
  __u64 cookie = (__u64)BPF_CORE_READ(sk, __sk_common.skc_cookie.counter);
  if (cookie) return cookie;
  return ((__u64)sk * 0x9E3779B97F4A7C15ULL) | (1ULL << 63);
}

static __always_inline __u32 nictune_socket_netns(const struct sock* sk) {
  return BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
}

#include "socket_key.h"

static __always_inline void nictune_socket_key_of(const struct sock* sk, __u64 cookie,
                                                  struct nictune_socket_key* key) {
  key->cookie = cookie;
  key->family = BPF_CORE_READ(sk, __sk_common.skc_family);
  key->protocol = BPF_CORE_READ(sk, sk_protocol);
  key->local_port = BPF_CORE_READ(sk, __sk_common.skc_num);
  key->reserved = 0;
  key->netns_inode = nictune_socket_netns(sk);
  key->reserved2 = 0;
}
