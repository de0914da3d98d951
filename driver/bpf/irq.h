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
