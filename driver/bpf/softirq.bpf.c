/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Softirqs: count, time and raises per (vector, cpu) from irq:softirq_entry/exit/raise.
 * Every softirq is counted while softirq_entry is attached; its two clock reads (about 35 ns each
 * on kvm-clock, the largest part of these programs) are taken for a pseudo-random sample only, one
 * in 2^shift, with the shift chosen per CPU every rate window so that about one softirq per
 * ns_per_timed is timed: every one at low rates, down to one in 2^max_shift in a packet flood.
 * Timed ones count 2^shift times, and as many times more as user space's slot weight says
 * (softirq.h), so the user side can scale (agent/model/softirq_time.h).
 * The tx share's NET_RX flag is kept here too (txshare_cpu, reused by the napi and txshare
 * objects): one program per tracepoint instead of two on this per-packet path.
 * User space may detach and attach softirq_entry/exit in the probe budget's slots
 * (probe_duty_cycle.cc): the attach epoch it moves on (softirq_timing.h) marks what was recorded
 * before an unseen exit, and while it holds timing closed softirqs are counted only. */
#include "softirq.h"

#include "hook_events.h"
#include "softirq_sampler.h"
#include "tracepoint_twin.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader (ProbeOptions); the verifier sees them as constants. */
const volatile __u32 max_shift = 3;
const volatile __u64 ns_per_timed = 100000;      /* about 10000 timed softirqs/s per CPU */
const volatile __u64 rate_window_ns = 100000000; /* 0.1 s: a flood is sampled within it */

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct nictune_softirq_cpu);
} softirq_cpus SEC(".maps");

NICTUNE_TXSHARE_CPU_MAP
NICTUNE_SOFTIRQ_TIMING_MAP
NICTUNE_HOOK_EVENTS_MAP

static __always_inline struct nictune_softirq_cpu* softirq_state(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&softirq_cpus, &zero);
}

static __always_inline struct nictune_txshare_cpu* txshare_state(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&txshare_cpu, &zero);
}

/* Starts timing this softirq when the sampler picks it, and at a timed softirq past the end of the
 * rate window chooses the shift for the next one from the window's softirq rate. A new attach
 * epoch starts the sampler over (shift 0, a new window): the softirqs before it were not seen. */
static __always_inline void sample_entry(struct nictune_softirq_cpu* cpu, __u32 vector, __u64 epoch,
                                         __u64 slot_weight) {
  if (cpu->window_epoch != epoch) {
    cpu->window_epoch = epoch;
    cpu->shift = 0;
    cpu->window_start_ns = 0;
    cpu->window_events = 0;
  }
  cpu->window_events++;
  __u32 random = cpu->random;
  if (random == 0) random = bpf_get_prandom_u32() | 1; /* the first softirq on this CPU */
  random = nictune_xorshift32(random);
  cpu->random = random;
  if (!nictune_softirq_timed(random, cpu->shift)) {
    cpu->started_ns = 0;
    return;
  }
  __u64 now = bpf_ktime_get_ns();
  cpu->started_ns = now;
  cpu->started_vector = vector;
  cpu->started_weight = (__u32)(slot_weight << cpu->shift);
  cpu->started_epoch = epoch;
  __u64 elapsed = now - cpu->window_start_ns;
  if (elapsed >= rate_window_ns) {
    cpu->shift = nictune_softirq_next_shift(cpu->window_events, elapsed, ns_per_timed, max_shift);
    cpu->window_start_ns = now;
    cpu->window_events = 0;
  }
}

NICTUNE_HANDLER on_softirq_entry(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  struct nictune_softirq_cpu* cpu = softirq_state();
  /* The bound is checked after the lookup and behind barrier_var, on the register that indexes:
   * where clang placed the check otherwise, the verifier had lost the bound. */
  barrier_var(vector);
  if (!cpu || vector >= NICTUNE_SOFTIRQ_SLOTS) return 0;
  cpu->vectors[vector].count++;
  nictune_count_event(&hook_events);
  struct nictune_softirq_timing* timing = nictune_softirq_timing_of(&softirq_timing);
  __u64 epoch = timing ? timing->epoch : 0;
  if (timing && !timing->closed) {
    /* A slot's softirqs stand for those of the period it is part of (user space's weight). */
    __u64 slot_weight = timing->weight;
    if (slot_weight == 0 || slot_weight > NICTUNE_SOFTIRQ_MAX_SLOT_WEIGHT) slot_weight = 1;
    sample_entry(cpu, vector, epoch, slot_weight);
  } else {
    cpu->started_ns = 0;
  }
  if (vector == NICTUNE_NET_RX_SOFTIRQ) {
    struct nictune_txshare_cpu* state = txshare_state();
    if (state) {
      state->in_net_rx = 1;
      state->net_rx_epoch = epoch;
      state->pending = 0;
    }
  }
  return 0;
}

NICTUNE_HANDLER on_softirq_exit(unsigned long long* ctx, bool btf) {
  __u32 vector = (__u32)ctx[0];
  struct nictune_softirq_cpu* cpu = softirq_state();
  barrier_var(vector);
  if (!cpu || vector >= NICTUNE_SOFTIRQ_SLOTS) return 0;
  /* The clock is read only when this softirq's entry was timed; an exit whose entry was not seen
   * (attached mid-softirq) adds nothing, as an untimed one, and so does an exit after an entry of
   * an earlier epoch (that entry's own exit went unseen while the programs were detached). The
   * timing map is looked up only for a timed entry of this vector, not on every exit. */
  struct nictune_softirq_timing* timing = 0;
  if (cpu->started_ns != 0 && cpu->started_vector == vector)
    timing = nictune_softirq_timing_of(&softirq_timing);
  if (timing && cpu->started_epoch == timing->epoch) {
    __u64 elapsed = bpf_ktime_get_ns() - cpu->started_ns;
    __u64 weight = cpu->started_weight;
    struct nictune_softirq_vector* slot = &cpu->vectors[vector];
    slot->timed++;
    slot->timed_weight += weight;
    slot->time_ns += elapsed * weight;
    cpu->started_ns = 0;
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
  struct nictune_softirq_cpu* cpu = softirq_state();
  barrier_var(vector);
  if (cpu && vector < NICTUNE_SOFTIRQ_SLOTS) cpu->vectors[vector].raised++;
  return 0;
}

NICTUNE_TRACEPOINT(softirq_entry, on_softirq_entry)
NICTUNE_TRACEPOINT(softirq_exit, on_softirq_exit)
NICTUNE_TRACEPOINT(softirq_raise, on_softirq_raise)
