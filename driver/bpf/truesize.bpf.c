/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Rx truesize distribution per device from net:netif_receive_skb, a per-packet hook: one packet
 * in sample_every is recorded (a per-CPU countdown), the others return after one array lookup. */
#include "truesize.h"

#include "hook_events.h"
#include "tracepoint_twin.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 sample_every = 64;

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} sample_countdown SEC(".maps");

NICTUNE_HOOK_EVENTS_MAP
NICTUNE_HOOK_GATE_MAP

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __uint(max_entries, NICTUNE_TRUESIZE_MAX_DEVICES);
  __type(key, struct nictune_truesize_key);
  __type(value, struct nictune_truesize_histogram);
} truesize_histograms SEC(".maps");

static __always_inline __u32 log2_bucket(__u32 value) {
  __u32 bucket = 0;
  if (value >= (1U << 16)) {
    value >>= 16;
    bucket += 16;
  }
  if (value >= (1U << 8)) {
    value >>= 8;
    bucket += 8;
  }
  if (value >= (1U << 4)) {
    value >>= 4;
    bucket += 4;
  }
  if (value >= (1U << 2)) {
    value >>= 2;
    bucket += 2;
  }
  if (value >= (1U << 1)) {
    bucket += 1;
  }
  return bucket < NICTUNE_TRUESIZE_BUCKETS - 1 ? bucket : NICTUNE_TRUESIZE_BUCKETS - 1;
}

NICTUNE_HANDLER on_netif_receive_skb(unsigned long long* ctx, bool btf) {
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  __u32 zero = 0;
  __u32* countdown = bpf_map_lookup_elem(&sample_countdown, &zero);
  if (!countdown) return 0;
  if (*countdown > 1) {
    (*countdown)--;
    return 0;
  }
  *countdown = sample_every;

  struct sk_buff* skb = (struct sk_buff*)ctx[0];
  __u32 truesize = BPF_CORE_READ(skb, truesize);
  struct net_device* dev = BPF_CORE_READ(skb, dev);
  struct nictune_truesize_key key = {};
  if (dev) {
    key.ifindex = BPF_CORE_READ(dev, ifindex);
    key.netns_inode = BPF_CORE_READ(dev, nd_net.net, ns.inum);
  }
  struct nictune_truesize_histogram* histogram = bpf_map_lookup_elem(&truesize_histograms, &key);
  if (!histogram) {
    struct nictune_truesize_histogram fresh;
    __builtin_memset(&fresh, 0, sizeof(fresh));
    if (dev) bpf_probe_read_kernel_str(fresh.device, sizeof(fresh.device), &dev->name);
    bpf_map_update_elem(&truesize_histograms, &key, &fresh, BPF_NOEXIST);
    histogram = bpf_map_lookup_elem(&truesize_histograms, &key);
    if (!histogram) return 0;
  }
  if (histogram->device[0] == 0 && dev)
    bpf_probe_read_kernel_str(histogram->device, sizeof(histogram->device), &dev->name);
  histogram->samples++;
  histogram->bytes += truesize;
  histogram->buckets[log2_bucket(truesize)]++;
  return 0;
}

NICTUNE_TRACEPOINT(netif_receive_skb, on_netif_receive_skb)
