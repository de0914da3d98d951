/* Shared between softirq.bpf.c, napi.bpf.c, txshare.bpf.c and C++: softirq count, time and
 * raises per (vector, cpu), and the per-CPU NET_RX state of the tx share. */
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

struct nictune_softirq_slot {
  __u64 count;
  __u64 time_ns;
  __u64 raised;
  /* When this vector's running instance on this CPU started, 0 when none runs. Kept in the slot
   * so softirq_exit needs one map lookup, not two. */
  __u64 start_ns;
};
