/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UDP sockets that failed to queue a datagram, from udp:udp_fail_queue_rcv_skb(rc, sk[, skb]):
 * counted per socket cookie. Only the first two arguments are read, which every kernel passes. */
#include "udp_fail.h"

#include "hook_events.h"
#include "socket_identity.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __uint(max_entries, 1024); /* the loader sets ProbeOptions.max_sockets */
  __type(key, __u64);
  __type(value, struct nictune_udp_fail);
} udp_failures SEC(".maps");

NICTUNE_HOOK_EVENTS_MAP
NICTUNE_HOOK_GATE_MAP

NICTUNE_HANDLER on_udp_fail_queue_rcv_skb(unsigned long long* ctx, bool btf) {
  int rc = (int)ctx[0];
  struct sock* sk = (struct sock*)ctx[1];
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  if (!sk) return 0;
  __u64 cookie = nictune_socket_identity(sk, btf);
  struct nictune_udp_fail* entry = bpf_map_lookup_elem(&udp_failures, &cookie);
  if (!entry || entry->socket.cookie == 0) {
    struct nictune_udp_fail fresh;
    __builtin_memset(&fresh, 0, sizeof(fresh));
    nictune_socket_key_of(sk, cookie, &fresh.socket);
    if (entry) fresh.count = entry->count;
    bpf_map_update_elem(&udp_failures, &cookie, &fresh, BPF_ANY);
    entry = bpf_map_lookup_elem(&udp_failures, &cookie);
    if (!entry) return 0;
  }
  entry->count++;
  entry->last_rc = rc;
  return 0;
}

NICTUNE_TRACEPOINT(udp_fail_queue_rcv_skb, on_udp_fail_queue_rcv_skb)
