/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between txshare.bpf.c, softirq.bpf.c, napi.bpf.c and C++: skbs consumed inside NET_RX
 * polls, per NAPI instance (keyed by struct nictune_napi_key from napi.h). */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

/* Code ranges whose consume_skb calls are not tx completions (see txshare.bpf.c). */
#define NICTUNE_TXSHARE_EXCLUDED_RANGES 2

struct nictune_code_range {
  __u64 start;
  __u64 end; /* exclusive */
};

/* Per CPU, in the map txshare_cpu that the softirq object owns and the napi and txshare objects
 * reuse: softirq_entry/exit (softirq.bpf.c) set in_net_rx, consume_skb (txshare.bpf.c) counts
 * pending, napi_poll (napi.bpf.c) attributes pending to the poll. unattributed: completions no
 * napi_poll followed before the softirq ended.
 * The softirq programs are detached and attached again at run time (duty-cycled timing), so a
 * NET_RX softirq's exit can go unseen and leave in_net_rx at 1: the flag counts only while
 * net_rx_epoch equals the current attach epoch (softirq_timing), which every attach that could
 * have missed an exit moves on. */
struct nictune_txshare_cpu {
  __u64 in_net_rx;
  __u64 net_rx_epoch; /* softirq_timing.epoch when in_net_rx was set */
  __u64 pending;
  __u64 unattributed;
  __u64 excluded;
};

#if defined(__bpf__)
/* One definition of the shared maps for every object that uses them (same name, key and value in
 * each, as bpf_map__reuse_fd requires). */
#define NICTUNE_TXSHARE_CPU_MAP                \
  struct {                                     \
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);   \
    __uint(max_entries, 1);                    \
    __type(key, __u32);                        \
    __type(value, struct nictune_txshare_cpu); \
  } txshare_cpu SEC(".maps");

#define NICTUNE_TX_COMPLETIONS_MAP                   \
  struct {                                           \
    __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);      \
    __uint(max_entries, NICTUNE_NAPI_MAX_INSTANCES); \
    __type(key, struct nictune_napi_key);            \
    __type(value, __u64);                            \
  } tx_completions SEC(".maps");
#endif
