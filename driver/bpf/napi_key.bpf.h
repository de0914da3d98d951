/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the BPF programs that key by NAPI instance (napi.bpf.c, txshare.bpf.c). */
#pragma once

#include "napi.h"
#include "tracepoint_twin.bpf.h"

static __always_inline void nictune_napi_key_of(struct napi_struct* napi,
                                                struct nictune_napi_key* key, bool btf) {
  key->napi_id = NICTUNE_READ(btf, napi, napi_id);
  key->ifindex = 0;
  key->netns_inode = 0;
  key->thread_pid = 0;
  if (key->napi_id != 0) return;
  struct net_device* dev = BPF_CORE_READ(napi, dev);
  if (!dev) return; /* the per-CPU backlog NAPI (RPS, loopback, netif_rx) has no device */
  key->ifindex = BPF_CORE_READ(dev, ifindex);
  key->netns_inode = BPF_CORE_READ(dev, nd_net.net, ns.inum);
  struct task_struct* thread = BPF_CORE_READ(napi, thread);
  if (thread) key->thread_pid = (__u32)BPF_CORE_READ(thread, pid);
}
