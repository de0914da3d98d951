/* The tx share of NAPI poll work. Drivers free transmitted skbs from their NAPI poll (the same
 * poll that receives), with napi_consume_skb() (ixgbe, i40e, mlx5, virtio_net, ...) or
 * dev_consume_skb_any(); both end in the skb:consume_skb tracepoint while the CPU is in the
 * NET_RX softirq. napi_poll fires after the poll returns, so the consumes seen on a CPU since the
 * previous napi_poll belong to this poll.
 *
 * What this really counts (an approximation, documented in the report):
 * - counted: skbs consumed in NET_RX softirq context, i.e. tx completions done in NAPI poll, and
 *   also receive-side consumes inside the poll (e.g. an skb the stack consumes while delivering,
 *   like a pure TCP ACK freed with consume_skb rather than __kfree_skb);
 * - excluded: skbs other CPUs handed back for freeing (skb_attempt_defer_free), which
 *   net_rx_action frees between polls via skb_defer_free_flush(): user space gives the code range
 *   of that function (from /proc/kallsyms) and consumes called from it are skipped;
 * - missed: completions freed with __kfree_skb/napi_skb_cache_put (no tracepoint), frees deferred
 *   to NET_TX via dev_kfree_skb_irq (completion queue), and threaded NAPI (it polls in a kthread
 *   without a softirq_entry event, so the NET_RX flag is never set).
 * consume_skb is per packet: outside NET_RX the handler returns after one per-CPU array lookup. */
#include "txshare.h"

#include "napi_key.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define NET_RX_SOFTIRQ_VECTOR 3

const volatile struct nictune_code_range excluded_callers[NICTUNE_TXSHARE_EXCLUDED_RANGES] = {};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nictune_txshare_cpu);
} txshare_cpu SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, NICTUNE_NAPI_MAX_INSTANCES);
  __type(key, struct nictune_napi_key);
  __type(value, __u64);
} tx_completions SEC(".maps");

static __always_inline struct nictune_txshare_cpu* this_cpu_state(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&txshare_cpu, &zero);
}

NICTUNE_HANDLER on_softirq_entry(unsigned long long* ctx, bool btf) {
  if ((__u32)ctx[0] != NET_RX_SOFTIRQ_VECTOR) return 0;
  struct nictune_txshare_cpu* state = this_cpu_state();
  if (!state) return 0;
  state->in_net_rx = 1;
  state->pending = 0;
  return 0;
}

NICTUNE_HANDLER on_softirq_exit(unsigned long long* ctx, bool btf) {
  if ((__u32)ctx[0] != NET_RX_SOFTIRQ_VECTOR) return 0;
  struct nictune_txshare_cpu* state = this_cpu_state();
  if (!state) return 0;
  state->in_net_rx = 0;
  state->unattributed += state->pending;
  state->pending = 0;
  return 0;
}

NICTUNE_HANDLER on_consume_skb(unsigned long long* ctx, bool btf) {
  struct nictune_txshare_cpu* state = this_cpu_state();
  if (!state || !state->in_net_rx) return 0;
  __u64 caller = ctx[1];
  for (int i = 0; i < NICTUNE_TXSHARE_EXCLUDED_RANGES; i++) {
    if (caller >= excluded_callers[i].start && caller < excluded_callers[i].end) {
      state->excluded++;
      return 0;
    }
  }
  state->pending++;
  return 0;
}

NICTUNE_HANDLER on_napi_poll(unsigned long long* ctx, bool btf) {
  struct nictune_txshare_cpu* state = this_cpu_state();
  if (!state || state->pending == 0) return 0;
  struct nictune_napi_key key;
  nictune_napi_key_of((struct napi_struct*)ctx[0], &key, btf);
  __u64* count = bpf_map_lookup_elem(&tx_completions, &key);
  if (count) {
    *count += state->pending;
  } else {
    __u64 first = state->pending;
    bpf_map_update_elem(&tx_completions, &key, &first, BPF_NOEXIST);
  }
  state->pending = 0;
  return 0;
}

NICTUNE_TRACEPOINT(softirq_entry, on_softirq_entry)
NICTUNE_TRACEPOINT(softirq_exit, on_softirq_exit)
NICTUNE_TRACEPOINT(consume_skb, on_consume_skb)
NICTUNE_TRACEPOINT(napi_poll, on_napi_poll)
