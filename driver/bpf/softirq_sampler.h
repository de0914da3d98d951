/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Which softirqs get their two clock reads, shared by softirq.bpf.c and the C++ tests. Pure
 * integer arithmetic and no helper calls: it runs inline on the softirq path, once per event. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

/* The largest sampling shift the program accepts (one softirq in 2^10 timed). */
#define NICTUNE_SOFTIRQ_SHIFT_LIMIT 10

/* xorshift32 (Marsaglia 2003): period 2^32 - 1 over the nonzero states, and 0 never follows a
 * nonzero state. A pseudo-random choice, unlike a modulo counter, does not lock onto periodic
 * patterns (NET_RX and NET_TX alternating, every other softirq long). */
static inline __u32 nictune_xorshift32(__u32 state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

/* Whether the softirq that drew `draw` (a xorshift32 output) is timed at sampling shift `shift`:
 * the draw's top `shift` bits are all zero, a chance of 2^-shift (to within 2^-32). */
static inline int nictune_softirq_timed(__u32 draw, __u32 shift) {
  return draw <= (0xFFFFFFFFu >> shift);
}

/* The sampling shift for the next rate window: the smallest shift, at most `max_shift`, at which
 * the `events` softirqs of the last `elapsed_ns` would have been timed at most once per
 * `ns_per_timed` on average. Below that rate every softirq is timed (shift 0). */
static inline __u32 nictune_softirq_next_shift(__u64 events, __u64 elapsed_ns, __u64 ns_per_timed,
                                               __u32 max_shift) {
  if (ns_per_timed == 0) return 0;
  __u64 allowed = elapsed_ns / ns_per_timed;
  __u32 shift = 0;
  for (__u32 step = 0; step < NICTUNE_SOFTIRQ_SHIFT_LIMIT; step++) {
    if (shift >= max_shift || (events >> shift) <= allowed) break;
    shift++;
  }
  return shift;
}
