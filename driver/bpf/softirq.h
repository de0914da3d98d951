/* Shared between softirq.bpf.c and C++: softirq counts, sampled times and raises per (vector,
 * cpu), and the per-CPU state of the timing sampler. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

#include "txshare.h"

/* The kernel has 10 softirq vectors (NR_SOFTIRQS); room is left for a few more. */
#define NICTUNE_SOFTIRQ_SLOTS 16
#define NICTUNE_NET_RX_SOFTIRQ 3

/* One vector on one CPU. Every softirq is counted; only a sample is timed, and each timed one
 * counts 2^shift times (the inverse of its chance of being timed), so that time_ns estimates the
 * vector's whole time and is exact while the shift stays 0. */
struct nictune_softirq_vector {
  __u64 count;        /* softirq_entry events */
  __u64 raised;       /* softirq_raise events (opt-in program) */
  __u64 timed;        /* softirqs timed from entry to exit */
  __u64 timed_weight; /* sum over the timed ones of 2^shift */
  __u64 time_ns;      /* sum over the timed ones of (exit - entry) * 2^shift */
};

/* Everything the softirq programs keep per CPU, in one per-CPU array entry: one map lookup per
 * event. */
struct nictune_softirq_cpu {
  __u32 random;          /* xorshift32 state (softirq_sampler.h); seeded at the first event */
  __u32 shift;           /* time one softirq in 2^shift */
  __u64 window_start_ns; /* the rate window the next shift is chosen from */
  __u64 window_events;
  /* The timed softirq running now (softirqs do not nest on one CPU): entry clock, 0 when none. */
  __u64 started_ns;
  __u32 started_vector;
  __u32 started_shift;
  struct nictune_softirq_vector vectors[NICTUNE_SOFTIRQ_SLOTS];
};
