/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between softirq.bpf.c, txshare.bpf.c and C++ (probe_duty_cycle.cc): how the softirq
 * programs time, in a one-entry array the softirq object owns and the txshare object reuses. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

/* Written by user space (driver/bpf/probe_duty_cycle.cc), which attaches and detaches
 * softirq_entry/exit in the probe budget's slots. */
struct nictune_softirq_timing {
  /* Moved on before softirq_exit is attached again after a detach: state recorded before an
   * exit that went unseen (a timed entry, the NET_RX flag) is stale once it has. */
  __u64 epoch;
  /* Softirqs that start now are counted, not timed: set while a slot's links are attached and
   * detached (the kernel's text patching interrupts every CPU and would land in timed softirqs),
   * so that only softirqs which start once the slot is open and end before its detach are timed.
   * 0 (its initial value) times every softirq. */
  __u64 closed;
  /* How many softirqs each one timed now stands for: the inverse of the share of the time the
   * slots cover, so that a window mixing a whole-attached stretch with slots weighs each by the
   * softirqs it stands for. 0 (its initial value) is 1. */
  __u64 weight;
};

#if defined(__bpf__)
#include <bpf/bpf_helpers.h>

/* One definition of the map for every object that uses it (bpf_map__reuse_fd). */
#define NICTUNE_SOFTIRQ_TIMING_MAP                \
  struct {                                        \
    __uint(type, BPF_MAP_TYPE_ARRAY);             \
    __uint(max_entries, 1);                       \
    __type(key, __u32);                           \
    __type(value, struct nictune_softirq_timing); \
  } softirq_timing SEC(".maps");

static __always_inline struct nictune_softirq_timing* nictune_softirq_timing_of(void* timing_map) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(timing_map, &zero);
}

#endif
