/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between softirq.bpf.c and C++: softirq counts, sampled times and raises per (vector,
 * cpu), and the per-CPU state of the timing sampler. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

#include "softirq_timing.h"
#include "txshare.h"

/* The kernel has 10 softirq vectors (NR_SOFTIRQS); room is left for a few more. */
#define NICTUNE_SOFTIRQ_SLOTS 16
#define NICTUNE_NET_RX_SOFTIRQ 3

/* One vector on one CPU. Every softirq is counted while softirq_entry is attached; only a sample
 * is timed, and each timed one counts as many times as it stands for softirqs: 2^shift (the
 * inverse of its chance of being timed while attached) times the weight user space gives the
 * slot (the inverse of the share of the time the slots cover; 1 while attached whole). So
 * time_ns / timed_weight is the mean time of the softirqs the sample stands for, and time_ns is
 * exact while every softirq is timed. */
struct nictune_softirq_vector {
  __u64 count;        /* softirq_entry events */
  __u64 raised;       /* softirq_raise events (opt-in program) */
  __u64 timed;        /* softirqs timed from entry to exit */
  __u64 timed_weight; /* sum over the timed ones of their weight */
  __u64 time_ns;      /* sum over the timed ones of (exit - entry) * weight */
};

/* The largest slot weight the programs take (one slot of 1 ms in 1 s); beyond it, 1. */
#define NICTUNE_SOFTIRQ_MAX_SLOT_WEIGHT 1000

/* Everything the softirq programs keep per CPU, in one per-CPU array entry: one map lookup per
 * event. */
struct nictune_softirq_cpu {
  __u32 random;          /* xorshift32 state (softirq_sampler.h); seeded at the first event */
  __u32 shift;           /* time one softirq in 2^shift */
  __u64 window_start_ns; /* the rate window the next shift is chosen from */
  __u64 window_events;
  /* The timed softirq running now (softirqs do not nest on one CPU): entry clock, 0 when none,
   * and the attach epoch (softirq_timing.h) it was timed in: an entry whose exit went
   * unseen (the programs were detached meanwhile) is stale once the epoch has moved on. */
  __u64 started_ns;
  __u32 started_vector;
  __u32 started_weight;
  __u64 started_epoch;
  /* The epoch the rate window belongs to: each attachment starts a new one. */
  __u64 window_epoch;
  struct nictune_softirq_vector vectors[NICTUNE_SOFTIRQ_SLOTS];
};
