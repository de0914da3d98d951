/* Softirqs: count, time and raises per (vector, cpu) from irq:softirq_entry/exit/raise. Softirqs
 * do not nest on one CPU, so the start time lives in the (vector, cpu) slot itself.
 * The tx share's NET_RX flag is kept here too (txshare_cpu, reused by the napi and txshare
 * objects): one program per tracepoint instead of two on this per-packet path. */
#include "softirq.h"

#include "tracepoint_twin.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, NICTUNE_SOFTIRQ_SLOTS);
  __type(key, __u32);
  __type(value, struct nictune_softirq_slot);
} softirq_slots SEC(".maps");

NICTUNE_TXSHARE_CPU_MAP

static __always_inline struct nictune_txshare_cpu* txshare_state(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&txshare_cpu, &zero);
}

NICTUNE_HANDLER on_softirq_entry(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  struct nictune_softirq_slot* slot = bpf_map_lookup_elem(&softirq_slots, &vector);
  if (!slot) return 0;
  slot->count++;
  slot->start_ns = bpf_ktime_get_ns();
  if (vector == NICTUNE_NET_RX_SOFTIRQ) {
    struct nictune_txshare_cpu* state = txshare_state();
    if (state) {
      state->in_net_rx = 1;
      state->pending = 0;
    }
  }
  return 0;
}

NICTUNE_HANDLER on_softirq_exit(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  struct nictune_softirq_slot* slot = bpf_map_lookup_elem(&softirq_slots, &vector);
  if (!slot) return 0;
  if (slot->start_ns != 0) {
    slot->time_ns += bpf_ktime_get_ns() - slot->start_ns;
    slot->start_ns = 0;
  }
  if (vector == NICTUNE_NET_RX_SOFTIRQ) {
    struct nictune_txshare_cpu* state = txshare_state();
    if (state) {
      state->in_net_rx = 0;
      state->unattributed += state->pending;
      state->pending = 0;
    }
  }
  return 0;
}

NICTUNE_HANDLER on_softirq_raise(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  struct nictune_softirq_slot* slot = bpf_map_lookup_elem(&softirq_slots, &vector);
  if (slot) slot->raised++;
  return 0;
}

NICTUNE_TRACEPOINT(softirq_entry, on_softirq_entry)
NICTUNE_TRACEPOINT(softirq_exit, on_softirq_exit)
NICTUNE_TRACEPOINT(softirq_raise, on_softirq_raise)
