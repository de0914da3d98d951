/* Shared between txshare.bpf.c and C++: skbs consumed inside NET_RX polls, per NAPI instance
 * (keyed by struct nictune_napi_key from napi.h). */
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

/* Per CPU: completions seen in NET_RX that no napi_poll followed before the softirq ended. */
struct nictune_txshare_cpu {
  __u64 in_net_rx;
  __u64 pending;
  __u64 unattributed;
  __u64 excluded;
};
