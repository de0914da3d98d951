/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Dropped skbs from skb:kfree_skb, counted per (reason, protocol, device, L4 protocol, local
 * port, socket). Kernels since 6.12 pass the receiving socket (rx_sk) as a fourth argument; the
 * loader looks at the running kernel's BTF for btf_trace_kfree_skb and loads either on_kfree_skb
 * (four arguments) or on_kfree_skb_no_rx_sk (three, falling back to skb->sk). Kernels that report
 * normal frees here as SKB_CONSUMED have those skipped. */
#include "drops.h"

#include <bpf/bpf_endian.h>

#include "hook_events.h"
#include "socket_identity.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define ETH_P_IP_VALUE 0x0800
#define ETH_P_IPV6_VALUE 0x86DD
#define IPPROTO_TCP_VALUE 6
#define IPPROTO_UDP_VALUE 17
#define HEADER_UNSET 0xFFFF

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, NICTUNE_DROP_MAX_KEYS);
  __type(key, struct nictune_drop_key);
  __type(value, __u64);
} drop_counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nictune_drops_cpu);
} drops_cpu SEC(".maps");

NICTUNE_HOOK_EVENTS_MAP
NICTUNE_HOOK_GATE_MAP

/* L4 protocol and destination port from the packet's headers: bounded reads only. */
static __always_inline void read_l4(struct sk_buff* skb, struct nictune_drop_key* key, bool btf) {
  unsigned char* head = NICTUNE_READ(btf, skb, head);
  __u16 network = NICTUNE_READ(btf, skb, network_header);
  __u16 transport = NICTUNE_READ(btf, skb, transport_header);
  if (!head || network == HEADER_UNSET) return;
  __u32 l4_offset = 0;
  if (key->protocol == ETH_P_IP_VALUE) {
    __u8 version_ihl = 0;
    if (bpf_probe_read_kernel(&version_ihl, 1, head + network)) return;
    if ((version_ihl >> 4) != 4) return;
    bpf_probe_read_kernel(&key->l4_protocol, 1, head + network + 9);
    l4_offset = network + (__u32)(version_ihl & 0x0F) * 4;
  } else if (key->protocol == ETH_P_IPV6_VALUE) {
    bpf_probe_read_kernel(&key->l4_protocol, 1, head + network + 6);
    l4_offset = network + 40; /* extension headers: trust transport_header below when set */
  } else {
    return;
  }
  if (transport != HEADER_UNSET && transport > network) l4_offset = transport;
  if (key->l4_protocol != IPPROTO_TCP_VALUE && key->l4_protocol != IPPROTO_UDP_VALUE) return;
  if (key->local_port != 0) return; /* the socket's own port is authoritative */
  __be16 port = 0;
  if (bpf_probe_read_kernel(&port, sizeof(port), head + l4_offset + 2) == 0)
    key->local_port = bpf_ntohs(port);
}

/* typed_sk: sk is a typed tp_btf argument that bpf_get_socket_cookie accepts. */
static __always_inline int count_drop(struct sk_buff* skb, __u32 reason, struct sock* sk,
                                      bool typed_sk, bool btf) {
  if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
      reason == (__u32)bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
    return 0;
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  struct nictune_drop_key key;
  __builtin_memset(&key, 0, sizeof(key));
  key.reason = reason;
  key.protocol = bpf_ntohs(NICTUNE_READ(btf, skb, protocol));
  struct net_device* dev = NICTUNE_READ(btf, skb, dev);
  if (dev) {
    key.ifindex = BPF_CORE_READ(dev, ifindex);
    key.netns_inode = BPF_CORE_READ(dev, nd_net.net, ns.inum);
    bpf_probe_read_kernel_str(key.device, sizeof(key.device), &dev->name);
  }
  if (sk) {
    key.socket_cookie = nictune_socket_identity(sk, typed_sk);
    key.local_port = BPF_CORE_READ(sk, __sk_common.skc_num);
  }
  read_l4(skb, &key, btf);

  __u64* count = bpf_map_lookup_elem(&drop_counts, &key);
  if (count) {
    (*count)++;
    return 0;
  }
  __u64 one = 1;
  if (bpf_map_update_elem(&drop_counts, &key, &one, BPF_NOEXIST) != 0) {
    __u32 zero = 0;
    struct nictune_drops_cpu* cpu = bpf_map_lookup_elem(&drops_cpu, &zero);
    __u32 slot = reason < NICTUNE_DROP_REASON_SLOTS - 1 ? reason : NICTUNE_DROP_REASON_SLOTS - 1;
    /* The mask after the barrier is what the verifier sees bound the index; clang would fold it
     * into the comparison above. */
    barrier_var(slot);
    slot &= NICTUNE_DROP_REASON_SLOTS - 1;
    if (cpu) cpu->map_full[slot]++;
  }
  return 0;
}

/* kfree_skb(skb, location, reason, rx_sk). rx_sk is a typed argument, so tp_btf can ask for
 * (and create) its cookie; skb->sk is an RCU pointer the helper refuses, so for it only an
 * existing cookie is read (see nictune_socket_identity). */
NICTUNE_HANDLER on_kfree_skb(unsigned long long* ctx, bool btf) {
  struct sk_buff* skb = (struct sk_buff*)ctx[0];
  struct sock* rx_sk = (struct sock*)ctx[3];
  if (rx_sk) return count_drop(skb, (__u32)ctx[2], rx_sk, btf, btf);
  return count_drop(skb, (__u32)ctx[2], BPF_CORE_READ(skb, sk), false, btf);
}

/* kfree_skb(skb, location, reason): kernels before rx_sk. */
NICTUNE_HANDLER on_kfree_skb_no_rx_sk(unsigned long long* ctx, bool btf) {
  struct sk_buff* skb = (struct sk_buff*)ctx[0];
  return count_drop(skb, (__u32)ctx[2], BPF_CORE_READ(skb, sk), false, btf);
}

NICTUNE_TRACEPOINT(kfree_skb, on_kfree_skb)
NICTUNE_TRACEPOINT(kfree_skb, on_kfree_skb_no_rx_sk)
