/* Softirqs: count, time and raises per (vector, cpu) from irq:softirq_entry/exit/raise. Softirqs
 * do not nest on one CPU, so one start time per CPU is enough. */
#include "softirq.h"

#include "tracepoint_twin.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, NICTUNE_SOFTIRQ_SLOTS);
  __type(key, __u32);
  __type(value, struct nictune_softirq_slot);
} softirq_slots SEC(".maps");

struct softirq_start {
  __u64 timestamp_ns;
  __u64 vector;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct softirq_start);
} softirq_start SEC(".maps");

NICTUNE_HANDLER on_softirq_entry(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  __u32 zero = 0;
  struct nictune_softirq_slot* slot = bpf_map_lookup_elem(&softirq_slots, &vector);
  struct softirq_start* start = bpf_map_lookup_elem(&softirq_start, &zero);
  if (!slot || !start) return 0;
  slot->count++;
  start->vector = vector;
  start->timestamp_ns = bpf_ktime_get_ns();
  return 0;
}

NICTUNE_HANDLER on_softirq_exit(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  __u32 zero = 0;
  struct softirq_start* start = bpf_map_lookup_elem(&softirq_start, &zero);
  if (!start || start->timestamp_ns == 0 || start->vector != vector) return 0;
  struct nictune_softirq_slot* slot = bpf_map_lookup_elem(&softirq_slots, &vector);
  if (slot) slot->time_ns += bpf_ktime_get_ns() - start->timestamp_ns;
  start->timestamp_ns = 0;
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
