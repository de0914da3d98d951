/* Shared between softirq.bpf.c and C++: softirq count, time and raises per (vector, cpu). */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

/* The kernel has 10 softirq vectors (NR_SOFTIRQS); room is left for a few more. */
#define NICTUNE_SOFTIRQ_SLOTS 16

struct nictune_softirq_slot {
  __u64 count;
  __u64 time_ns;
  __u64 raised;
};
