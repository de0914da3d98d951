/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between sockfill.bpf.c and C++: receive-buffer fill per socket, and how long its data
 * waits for the reader. */
#pragma once

#include "socket_key.h" /* same folder: also built by clang for BPF */

/* One CPU's copy of a socket's entry (the map is per-CPU: C++ sums counters and takes the
 * largest peak of the current generation). */
struct nictune_socket_fill {
  struct nictune_socket_key socket; /* zero until this CPU saw the socket */
  __u64 enqueues;
  __u64 rcvqueue_full;
  __u64 truesize_sum; /* sum of rmem_alloc / sk_receive_queue.qlen over recorded events */
  __u64 truesize_samples;
  __u32 rcvbuf;
  __u32 peak_rmem_alloc; /* valid only when peak_generation equals the current generation */
  __u32 peak_generation;
  __u32 drain_noted; /* this CPU has noted the socket in socket_drain */
};

/* A tracked socket's data waiting for its reader, shared by every CPU: data arrives on the
 * softirq's CPU and is read on the reader's. */
struct nictune_socket_drain {
  __u64 waiting_since_ns; /* when data began to wait unread (bpf_ktime_get_ns); 0: none waits */
  __u64 longest_gap_ns;   /* the longest wait a read ended; valid when gap_generation is current */
  __u64 waits_ended;      /* reads that ended a wait, cumulative */
  __u32 stretch;          /* the gate's value when waiting_since_ns was set (hook_events.h) */
  __u32 gap_generation;
};
