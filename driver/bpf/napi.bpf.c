/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* NAPI polls per instance from napi:napi_poll(napi, work, budget): polls, work, polls that used
 * the whole budget, a work histogram, and the device. It also gives the tx share's pending
 * consumes (txshare_cpu, owned by the softirq object) to this poll, so that napi_poll runs one
 * program, not two: with one packet per poll this hook is per packet. */
#include "hook_events.h"
#include "napi_key.bpf.h"
#include "txshare.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __uint(max_entries, NICTUNE_NAPI_MAX_INSTANCES);
  __type(key, struct nictune_napi_key);
  __type(value, struct nictune_napi_stats);
} napi_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, NICTUNE_NAPI_FAST_SLOTS);
  __type(key, __u32);
  __type(value, struct nictune_napi_slot);
} napi_slots SEC(".maps");

/* The value is larger than the BPF stack allows, so a new entry is built in per-CPU scratch. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nictune_napi_stats);
} napi_scratch SEC(".maps");

NICTUNE_TXSHARE_CPU_MAP
NICTUNE_TX_COMPLETIONS_MAP
NICTUNE_HOOK_EVENTS_MAP
NICTUNE_HOOK_GATE_MAP

/* Consumes seen on this CPU in NET_RX since the previous napi_poll belong to this poll. */
static __always_inline void attribute_tx_completions(const struct nictune_napi_key* key) {
  __u32 zero = 0;
  struct nictune_txshare_cpu* state = bpf_map_lookup_elem(&txshare_cpu, &zero);
  if (!state || state->pending == 0) return;
  __u64* count = bpf_map_lookup_elem(&tx_completions, key);
  if (count) {
    *count += state->pending;
  } else {
    __u64 first = state->pending;
    bpf_map_update_elem(&tx_completions, key, &first, BPF_NOEXIST);
  }
  state->pending = 0;
}

static __always_inline void describe_device(struct napi_struct* napi,
                                            struct nictune_napi_stats* stats) {
  struct net_device* dev = BPF_CORE_READ(napi, dev);
  if (dev) {
    stats->ifindex = BPF_CORE_READ(dev, ifindex);
    stats->netns_inode = BPF_CORE_READ(dev, nd_net.net, ns.inum);
    bpf_probe_read_kernel_str(stats->device, sizeof(stats->device), &dev->name);
  }
}

static __always_inline struct nictune_napi_stats* new_entry(struct napi_struct* napi,
                                                            struct nictune_napi_key* key) {
  __u32 zero = 0;
  struct nictune_napi_stats* fresh = bpf_map_lookup_elem(&napi_scratch, &zero);
  if (!fresh) return 0;
  __builtin_memset(fresh, 0, sizeof(*fresh));
  describe_device(napi, fresh);
  bpf_map_update_elem(&napi_stats, key, fresh, BPF_NOEXIST);
  return bpf_map_lookup_elem(&napi_stats, key);
}

/* This CPU's direct-mapped slot for the instance, claimed on first use; 0 when the instance
 * belongs in the hash. Slots are per CPU and a softirq does not nest, so claiming needs no
 * atomics. */
static __always_inline struct nictune_napi_stats* fast_slot(struct napi_struct* napi,
                                                            const struct nictune_napi_key* key) {
  if (key->napi_id == 0 && key->ifindex != 0) return 0;
  __u32 index = key->napi_id & (NICTUNE_NAPI_FAST_SLOTS - 1);
  struct nictune_napi_slot* slot = bpf_map_lookup_elem(&napi_slots, &index);
  if (!slot) return 0;
  if (slot->claimed) {
    if (slot->key.napi_id != key->napi_id || slot->key.ifindex != key->ifindex) return 0;
    return &slot->stats;
  }
  slot->key = *key;
  slot->claimed = 1;
  describe_device(napi, &slot->stats);
  return &slot->stats;
}

NICTUNE_HANDLER on_napi_poll(unsigned long long* ctx, bool btf) {
  struct napi_struct* napi = (struct napi_struct*)ctx[0];
  int work = (int)ctx[1];
  int budget = (int)ctx[2];
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  struct nictune_napi_key key;
  nictune_napi_key_of(napi, &key, btf);
  attribute_tx_completions(&key);
  struct nictune_napi_stats* stats = fast_slot(napi, &key);
  if (!stats) stats = bpf_map_lookup_elem(&napi_stats, &key);
  if (!stats) stats = new_entry(napi, &key);
  if (!stats) return 0;
  if (work < 0) work = 0;
  stats->polls++;
  stats->work += (__u64)work;
  if (budget > 0 && work >= budget) stats->budget_exhausted++;
  stats->last_budget = (__u32)budget;
  __u32 bucket = work < NICTUNE_NAPI_WORK_BUCKETS - 1 ? (__u32)work : NICTUNE_NAPI_WORK_BUCKETS - 1;
  stats->work_histogram[bucket]++;
  return 0;
}

NICTUNE_TRACEPOINT(napi_poll, on_napi_poll)
