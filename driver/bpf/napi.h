/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between napi.bpf.c, txshare.bpf.c and C++: NAPI poll statistics per NAPI instance. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

/* Work histogram: bucket w counts polls with exactly w packets of work, the last one all polls
 * with more (matches kNapiWorkBuckets in driver/probe_source.h). */
#define NICTUNE_NAPI_WORK_BUCKETS 66
#define NICTUNE_NAPI_MAX_INSTANCES 1024
/* Direct-mapped per-CPU slots (napi_id % NICTUNE_NAPI_FAST_SLOTS, the backlog NAPI in slot 0):
 * an inlined array lookup instead of a hash lookup on the per-poll path. An instance whose slot
 * another one holds on that CPU, or that has a device but no napi_id, goes to the hash. */
#define NICTUNE_NAPI_FAST_SLOTS 64
#define NICTUNE_DEVICE_NAME_LEN 16

/* A NAPI instance: its napi_id when it has one (unique across namespaces), else the device's
 * ifindex within its network namespace and, when it polls in a thread of its own, that thread's
 * pid: a device's NAPIs without ids (tun's queues) differ only in their threads. The backlog NAPI
 * has none of them: all zero. */
struct nictune_napi_key {
  __u32 napi_id;
  __s32 ifindex;
  __u32 netns_inode;
  __u32 thread_pid;
};

struct nictune_napi_stats {
  __u64 polls;
  __u64 work;
  __u64 budget_exhausted;
  __u32 last_budget;
  __s32 ifindex;
  __u32 netns_inode;
  __u32 reserved;
  char device[NICTUNE_DEVICE_NAME_LEN];
  __u64 work_histogram[NICTUNE_NAPI_WORK_BUCKETS];
};

/* One direct-mapped slot: the instance that holds it on this CPU (claimed = 0: free) and its
 * statistics. */
struct nictune_napi_slot {
  struct nictune_napi_key key;
  __u32 claimed;
  __u32 reserved;
  struct nictune_napi_stats stats;
};
