/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Socket receive-buffer fill from sock:sk_data_ready (every enqueue) and sock:sock_rcvqueue_full.
 * A socket is tracked once its fill rmem_alloc / sk_rcvbuf reaches fill_threshold_pct; from then
 * on every enqueue is counted, and fill (peak rmem_alloc, truesize estimate) is recorded only at
 * or above the threshold. Untracked sockets below the threshold cost two field reads, a cookie and
 * one failed LRU lookup per packet.
 *
 * Peaks are "since the previous Read()": user space bumps `generation` after reading, and an
 * entry whose peak_generation is older starts its peak again. */
#include "sockfill.h"

#include "hook_events.h"
#include "socket_identity.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 fill_threshold_pct = 50;
volatile __u32 generation = 0;

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __uint(max_entries, 1024); /* the loader sets ProbeOptions.max_sockets */
  __type(key, __u64);
  __type(value, struct nictune_socket_fill);
} socket_fill SEC(".maps");

NICTUNE_HOOK_EVENTS_MAP
NICTUNE_HOOK_GATE_MAP

static __always_inline struct nictune_socket_fill* track(const struct sock* sk, __u64 cookie) {
  struct nictune_socket_fill fresh;
  __builtin_memset(&fresh, 0, sizeof(fresh));
  nictune_socket_key_of(sk, cookie, &fresh.socket);
  fresh.peak_generation = generation;
  bpf_map_update_elem(&socket_fill, &cookie, &fresh, BPF_NOEXIST);
  return bpf_map_lookup_elem(&socket_fill, &cookie);
}

static __always_inline void record_fill(struct nictune_socket_fill* entry, const struct sock* sk,
                                        __u32 rmem_alloc) {
  __u32 current = generation;
  if (entry->peak_generation != current) {
    entry->peak_generation = current;
    entry->peak_rmem_alloc = 0;
  }
  if (rmem_alloc > entry->peak_rmem_alloc) entry->peak_rmem_alloc = rmem_alloc;
  __u32 queued = BPF_CORE_READ(sk, sk_receive_queue.qlen);
  __u32 charged = rmem_alloc;
  /* UDP moves queued datagrams to its private reader_queue in batches (udp_sock is a sock at
   * offset 0), and uncharges what the reader consumed only once forward_deficit grows past a
   * threshold (udp_rmem_release): count both queues and leave out the consumed bytes. */
  if (BPF_CORE_READ(sk, sk_protocol) == IPPROTO_UDP) {
    const struct udp_sock* udp = (const struct udp_sock*)sk;
    queued += BPF_CORE_READ(udp, reader_queue.qlen);
    int deficit = BPF_CORE_READ(udp, forward_deficit);
    if (deficit > 0 && (__u32)deficit < charged) charged -= (__u32)deficit;
  }
  if (queued > 0) {
    entry->truesize_sum += charged / queued;
    entry->truesize_samples++;
  }
}

static __always_inline void fill_identity(struct nictune_socket_fill* entry, const struct sock* sk,
                                          __u64 cookie) {
  if (entry->socket.cookie == 0) nictune_socket_key_of(sk, cookie, &entry->socket);
}

NICTUNE_HANDLER on_sk_data_ready(unsigned long long* ctx, bool btf) {
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  const struct sock* sk = (const struct sock*)ctx[0];
  if (!sk) return 0;
  int rmem_alloc = NICTUNE_READ(btf, sk, sk_backlog.rmem_alloc.counter);
  int rcvbuf = NICTUNE_READ(btf, sk, sk_rcvbuf);
  if (rmem_alloc < 0 || rcvbuf <= 0) return 0;
  bool above = (__u64)rmem_alloc * 100 >= (__u64)rcvbuf * fill_threshold_pct;
  __u64 cookie = nictune_socket_identity(sk, btf);
  struct nictune_socket_fill* entry = bpf_map_lookup_elem(&socket_fill, &cookie);
  if (!entry) {
    if (!above) return 0;
    entry = track(sk, cookie);
    if (!entry) return 0;
  }
  fill_identity(entry, sk, cookie);
  entry->enqueues++;
  entry->rcvbuf = (__u32)rcvbuf;
  if (above) record_fill(entry, sk, (__u32)rmem_alloc);
  return 0;
}

/* sock_rcvqueue_full(sk, skb): the socket is full, so it is tracked whatever the threshold. */
NICTUNE_HANDLER on_sock_rcvqueue_full(unsigned long long* ctx, bool btf) {
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  const struct sock* sk = (const struct sock*)ctx[0];
  if (!sk) return 0;
  __u64 cookie = nictune_socket_identity(sk, btf);
  struct nictune_socket_fill* entry = bpf_map_lookup_elem(&socket_fill, &cookie);
  if (!entry) entry = track(sk, cookie);
  if (!entry) return 0;
  fill_identity(entry, sk, cookie);
  entry->rcvqueue_full++;
  int rmem_alloc = BPF_CORE_READ(sk, sk_backlog.rmem_alloc.counter);
  int rcvbuf = BPF_CORE_READ(sk, sk_rcvbuf);
  if (rcvbuf > 0) entry->rcvbuf = (__u32)rcvbuf;
  if (rmem_alloc > 0) record_fill(entry, sk, (__u32)rmem_alloc);
  return 0;
}

NICTUNE_TRACEPOINT(sk_data_ready, on_sk_data_ready)
NICTUNE_TRACEPOINT(sock_rcvqueue_full, on_sock_rcvqueue_full)
