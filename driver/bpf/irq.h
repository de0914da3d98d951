/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between irq.bpf.c and C++: hard IRQ count and handler time per (irq, cpu). */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

/* IRQ numbers at or above this bound are counted in the last slot (kIrqOverflowSlot). */
#define NICTUNE_IRQ_SLOTS 4096

struct nictune_irq_slot {
  __u64 count;
  __u64 time_ns;
};

/* The handler running now on a CPU (they do not nest), from its entry: 0 when none. User space
 * zeroes it on every CPU before it attaches irq_handler_exit again (duty_hook.h), so that an
 * entry whose exit went unseen while detached is not timed to a later exit. */
struct nictune_irq_start {
  __u64 timestamp_ns;
  __s64 irq;
};
