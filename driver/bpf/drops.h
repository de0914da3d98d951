/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared between drops.bpf.c and C++: dropped skbs by reason, protocol, device and socket. */
#pragma once

#if defined(__bpf__)
#include "vmlinux.h" /* the BPF side's kernel types */
#else
#include <linux/types.h>
#endif

#define NICTUNE_DROP_MAX_KEYS 8192

struct nictune_drop_key {
  __u32 reason;     /* enum skb_drop_reason, subsystem bits included */
  __u16 protocol;   /* skb->protocol, host order */
  __u8 l4_protocol; /* IPPROTO_*, 0 when unknown */
  __u8 reserved;
  __s32 ifindex;     /* skb->dev, 0 when none */
  __u32 netns_inode; /* network namespace of skb->dev, 0 when none */
  __u16 local_port;  /* the socket's port when known, else the destination port */
  __u16 reserved2;
  __u32 reserved3;
  __u64 socket_cookie; /* rx_sk (kernels that pass it) or skb->sk; 0 when none */
  char device[16];     /* skb->dev->name (IFNAMSIZ): a device in another namespace has no other */
};

/* Drops that find the key map full are still counted, by reason alone: core reasons in their
 * own slot, every larger value (subsystem reasons included) in the last one. */
#define NICTUNE_DROP_REASON_SLOTS 256

/* Per CPU: drops that found the key map full, by reason slot. */
struct nictune_drops_cpu {
  __u64 map_full[NICTUNE_DROP_REASON_SLOTS];
};
