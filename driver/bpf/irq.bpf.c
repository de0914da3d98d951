/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Hard interrupts: count and handler time per (irq, cpu) from irq:irq_handler_entry/exit.
 * Handlers of one CPU do not nest (they run with interrupts off), so one start time per CPU is
 * enough; shared lines run their handlers one after another and each gets its own pair. */
#include "irq.h"

#include "hook_events.h"
#include "tracepoint_twin.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

NICTUNE_HOOK_EVENTS_MAP

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, NICTUNE_IRQ_SLOTS + 1);
  __type(key, __u32);
  __type(value, struct nictune_irq_slot);
} irq_slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nictune_irq_start);
} irq_start SEC(".maps");

static __always_inline __u32 slot_of(int irq) {
  return (irq < 0 || irq >= NICTUNE_IRQ_SLOTS) ? NICTUNE_IRQ_SLOTS : (__u32)irq;
}

NICTUNE_HANDLER on_irq_entry(unsigned long long* ctx, bool btf) {
  int irq = (int)ctx[0];
  nictune_count_event(&hook_events);
  __u32 zero = 0;
  __u32 slot_index = slot_of(irq);
  struct nictune_irq_slot* slot = bpf_map_lookup_elem(&irq_slots, &slot_index);
  struct nictune_irq_start* start = bpf_map_lookup_elem(&irq_start, &zero);
  if (!slot || !start) return 0;
  slot->count++;
  start->irq = irq;
  start->timestamp_ns = bpf_ktime_get_ns();
  return 0;
}

NICTUNE_HANDLER on_irq_exit(unsigned long long* ctx, bool btf) {
  int irq = (int)ctx[0];
  __u32 zero = 0;
  struct nictune_irq_start* start = bpf_map_lookup_elem(&irq_start, &zero);
  if (!start || start->timestamp_ns == 0 || start->irq != irq) return 0;
  __u32 slot_index = slot_of(irq);
  struct nictune_irq_slot* slot = bpf_map_lookup_elem(&irq_slots, &slot_index);
  if (slot) slot->time_ns += bpf_ktime_get_ns() - start->timestamp_ns;
  start->timestamp_ns = 0;
  return 0;
}

NICTUNE_TRACEPOINT(irq_handler_entry, on_irq_entry)
NICTUNE_TRACEPOINT(irq_handler_exit, on_irq_exit)
