/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Socket receive-buffer fill from sock:sk_data_ready (every enqueue) and sock:sock_rcvqueue_full.
 * A socket is tracked once its fill rmem_alloc / sk_rcvbuf reaches fill_threshold_pct; from then
 * on every enqueue is counted, and fill (peak rmem_alloc, truesize estimate) is recorded only at
 * or above the threshold. Untracked sockets below the threshold cost two field reads, a cookie and
 * one failed LRU lookup per packet.
 *
 * The drain gap: for a tracked socket, how long data waits unread. It begins at an enqueue that
 * finds nothing waiting, or at a read that leaves data queued, and a read (sock:sock_recv_length,
 * kernel 6.4 on; loaded only where it exists) ends it. A wait counts only when both ends fall in
 * one stretch of the gate: a read missed while the hook was closed or detached would otherwise
 * end a wait that another read had ended. A read of an untracked IP socket costs a cookie and
 * one failed lookup, of any other socket a field read.
 *
 * Peaks are "since the previous Read()": user space bumps `generation` after reading, and an
 * entry whose peak_generation (gap_generation) is older starts its peak again. */
#include "sockfill.h"

#include "hook_events.h"
#include "socket_identity.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* include/linux/socket.h, not in BTF */
#define NICTUNE_MSG_PEEK 0x2
#define NICTUNE_MSG_ERRQUEUE 0x2000
#define NICTUNE_AF_INET 2
#define NICTUNE_AF_INET6 10

const volatile __u32 fill_threshold_pct = 50;
volatile __u32 generation = 0;

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __uint(max_entries, 1024); /* the loader sets ProbeOptions.max_sockets */
  __type(key, __u64);
  __type(value, struct nictune_socket_fill);
} socket_fill SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 1024); /* the loader sets ProbeOptions.max_sockets */
  __type(key, __u64);
  __type(value, struct nictune_socket_drain);
} socket_drain SEC(".maps");

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

/* UDP moves queued datagrams to its private reader_queue in batches (udp_sock is a sock at
 * offset 0): both queues hold what waits for the reader. */
static __always_inline __u32 queued_datagrams(const struct sock* sk) {
  __u32 queued = BPF_CORE_READ(sk, sk_receive_queue.qlen);
  if (BPF_CORE_READ(sk, sk_protocol) == IPPROTO_UDP)
    queued += BPF_CORE_READ((const struct udp_sock*)sk, reader_queue.qlen);
  return queued;
}

static __always_inline void record_fill(struct nictune_socket_fill* entry, const struct sock* sk,
                                        __u32 rmem_alloc, __u32 queued) {
  __u32 current = generation;
  if (entry->peak_generation != current) {
    entry->peak_generation = current;
    entry->peak_rmem_alloc = 0;
  }
  if (rmem_alloc > entry->peak_rmem_alloc) entry->peak_rmem_alloc = rmem_alloc;
  __u32 charged = rmem_alloc;
  /* UDP uncharges what the reader consumed only once forward_deficit grows past a threshold
   * (udp_rmem_release): leave out the consumed bytes. */
  if (BPF_CORE_READ(sk, sk_protocol) == IPPROTO_UDP) {
    const struct udp_sock* udp = (const struct udp_sock*)sk;
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

/* Data queued for a tracked socket: a wait begins unless one is under way in this stretch. The
 * entry is written only then: the reader's CPU writes it at every read. */
static __always_inline void note_waiting(__u64 cookie, __u32 stretch) {
  struct nictune_socket_drain* drain = bpf_map_lookup_elem(&socket_drain, &cookie);
  if (!drain) {
    struct nictune_socket_drain fresh;
    __builtin_memset(&fresh, 0, sizeof(fresh));
    fresh.waiting_since_ns = bpf_ktime_get_ns();
    fresh.stretch = stretch;
    fresh.gap_generation = generation;
    bpf_map_update_elem(&socket_drain, &cookie, &fresh, BPF_NOEXIST);
    return;
  }
  if (drain->stretch != stretch || drain->waiting_since_ns == 0) {
    drain->stretch = stretch;
    drain->waiting_since_ns = bpf_ktime_get_ns();
  }
}

NICTUNE_HANDLER on_sk_data_ready(unsigned long long* ctx, bool btf) {
  nictune_count_event(&hook_events);
  __u32 stretch = nictune_hook_gate_value(&hook_gate);
  if (stretch & NICTUNE_HOOK_GATE_CLOSED_BIT) return 0;
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
  /* The queues are read once, for the truesize estimate and the drain gap alike. */
  __u32 queued = queued_datagrams(sk);
  if (above) record_fill(entry, sk, (__u32)rmem_alloc, queued);
  /* Only an enqueue onto an empty queue can begin a wait, besides the first this CPU sees of the
   * socket (which may come while it is backlogged): the others leave the drain entry, which the
   * reader's CPU writes, alone, and cost no cache line from that CPU. */
  if (!entry->drain_noted || queued <= 1) {
    note_waiting(cookie, stretch);
    entry->drain_noted = 1;
  }
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
  if (rmem_alloc > 0) record_fill(entry, sk, (__u32)rmem_alloc, queued_datagrams(sk));
  return 0;
}

/* sock_recv_length(sk, ret, flags), after every recvmsg: a read that took data ends the wait,
 * and what it left queued waits from now. Peeks, reads of the error queue and failed reads
 * change nothing. */
NICTUNE_HANDLER on_sock_recv_length(unsigned long long* ctx, bool btf) {
  nictune_count_event(&hook_events);
  __u32 stretch = nictune_hook_gate_value(&hook_gate);
  if (stretch & NICTUNE_HOOK_GATE_CLOSED_BIT) return 0;
  const struct sock* sk = (const struct sock*)ctx[0];
  int ret = (int)ctx[1];
  int flags = (int)ctx[2];
  if (!sk || ret <= 0 || (flags & (NICTUNE_MSG_PEEK | NICTUNE_MSG_ERRQUEUE))) return 0;
  /* Only IP sockets are tracked: a unix or netlink socket's read (the host's most common) costs
   * no cookie and no lookup. */
  __u16 family = NICTUNE_READ(btf, sk, __sk_common.skc_family);
  if (family != NICTUNE_AF_INET && family != NICTUNE_AF_INET6) return 0;
  __u64 cookie = nictune_socket_identity(sk, btf);
  struct nictune_socket_drain* drain = bpf_map_lookup_elem(&socket_drain, &cookie);
  if (!drain) return 0;
  __u64 now = bpf_ktime_get_ns();
  __u64 since = drain->waiting_since_ns;
  if (drain->stretch == stretch && since != 0 && now > since) {
    __u32 current = generation;
    if (drain->gap_generation != current) {
      drain->gap_generation = current;
      drain->longest_gap_ns = 0;
    }
    if (now - since > drain->longest_gap_ns) drain->longest_gap_ns = now - since;
    drain->waits_ended++;
  }
  drain->stretch = stretch;
  drain->waiting_since_ns = queued_datagrams(sk) > 0 ? now : 0;
  return 0;
}

NICTUNE_TRACEPOINT(sk_data_ready, on_sk_data_ready)
NICTUNE_TRACEPOINT(sock_recv_length, on_sock_recv_length)
NICTUNE_TRACEPOINT(sock_rcvqueue_full, on_sock_rcvqueue_full)
