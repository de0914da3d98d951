/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between truesize.bpf.c and C++: sampled log2 histogram of rx skb->truesize per device. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

#define NICTUNE_TRUESIZE_BUCKETS 20 /* matches kTruesizeBuckets in driver/probe_source.h */
#define NICTUNE_TRUESIZE_MAX_DEVICES 256
#define NICTUNE_TRUESIZE_DEVICE_NAME_LEN 16

struct nictune_truesize_key {
  __s32 ifindex;
  __u32 netns_inode;
};

struct nictune_truesize_histogram {
  __u64 samples;
  __u64 bytes;
  char device[NICTUNE_TRUESIZE_DEVICE_NAME_LEN];
  __u64 buckets[NICTUNE_TRUESIZE_BUCKETS];
};
