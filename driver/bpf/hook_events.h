/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between every probe object and C++ (hook_event_counter.cc): every event a concern's
 * programs see while attached, counted per CPU in an array of its own, one cache line per CPU (no
 * CPU's count shares a line with another's), which user space maps into memory. The probe budget
 * measures each hook's rate by it (probe_duty_cycle.cc) ten times a second without a system call
 * and without reading the concern's own maps, which may be large, and the calibration divides
 * the programs' run time by it.
 *
 * A concern whose events each have one handler may have a gate too: a one-entry array that user
 * space sets to close it. Its programs count the event and return at once while it is closed, so
 * the probe budget can sample such a hook without the link operations of a slot, which patch text
 * on every CPU and cost milliseconds on some hosts (a gated hook, probe_budget_plan.h). */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

#define NICTUNE_HOOK_EVENTS_MAP_NAME "hook_events"
#define NICTUNE_HOOK_GATE_MAP_NAME "hook_gate"

/* One CPU's count of a concern's events. */
struct nictune_hook_events_cpu {
  __u64 events;
  __u64 padding[7];
};

/* The gate's one value: even while the hook measures (0, the map's initial value, first), odd
 * while it is closed. User space moves it on at every change, and to the next even value when the
 * hook's links are attached again, so an even value names one unbroken stretch of measuring:
 * programs that pair an event of one handler with a later one of another (a socket's data
 * waiting, then its reader's read) pair only within one stretch. */
#define NICTUNE_HOOK_GATE_CLOSED_BIT 1u

#if defined(__bpf__)
#include <bpf/bpf_helpers.h>

/* One entry per possible CPU: the loader sets max_entries (SizeHookEventCounter). */
#define NICTUNE_HOOK_EVENTS_MAP                           \
  struct {                                                \
    __uint(type, BPF_MAP_TYPE_ARRAY);                     \
    __uint(map_flags, BPF_F_MMAPABLE);                    \
    __uint(max_entries, 1);                               \
    __type(key, __u32);                                   \
    __type(value, struct nictune_hook_events_cpu);        \
  } hook_events SEC(".maps");

#define NICTUNE_HOOK_GATE_MAP         \
  struct {                            \
    __uint(type, BPF_MAP_TYPE_ARRAY); \
    __uint(max_entries, 1);           \
    __type(key, __u32);               \
    __type(value, __u32);             \
  } hook_gate SEC(".maps");

/* The gate's value: the stretch while even, closed while odd. */
static __always_inline __u32 nictune_hook_gate_value(void* gate_map) {
  __u32 zero = 0;
  __u32* gate = bpf_map_lookup_elem(gate_map, &zero);
  return gate ? *gate : 0;
}

static __always_inline int nictune_hook_gate_closed(void* gate_map) {
  return (nictune_hook_gate_value(gate_map) & NICTUNE_HOOK_GATE_CLOSED_BIT) != 0;
}

/* Only this CPU adds to its entry. A program that interrupts another on the same CPU may lose
 * one count of the pair, as with a per-CPU array. */
static __always_inline void nictune_count_event(void* events_map) {
  __u32 cpu = bpf_get_smp_processor_id();
  struct nictune_hook_events_cpu* count = bpf_map_lookup_elem(events_map, &cpu);
  if (count) count->events++;
}
#endif
