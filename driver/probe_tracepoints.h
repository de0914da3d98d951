// SPDX-License-Identifier: Apache-2.0
// The kernel tracepoints nictuned's probes attach to, by concern: what `nictuned --check` looks
// for before any program loads. Each driver/bpf/CONCERN.bpf.c names its tracepoints in
// NICTUNE_TRACEPOINT lines; a unit test holds this list and those lines to each other.
#pragma once

#include "absl/strings/string_view.h"

namespace nictune::driver {

// The socket-fill probe (driver/bpf/sockfill.bpf.c), as the probe budget names its hook.
inline constexpr absl::string_view kSocketFillConcern = "sockfill";

struct ProbeTracepoint {
  absl::string_view concern;  // the probe: "napi" (driver/bpf/napi.bpf.c)
  absl::string_view group;    // tracefs's events/GROUP/EVENT
  absl::string_view event;
  // What the concern goes without on a kernel that lacks it; empty: the concern cannot attach.
  absl::string_view without_it = {};
};

inline constexpr ProbeTracepoint kProbeTracepoints[] = {
    {"irq", "irq", "irq_handler_entry"},
    {"irq", "irq", "irq_handler_exit"},
    {"softirq", "irq", "softirq_entry"},
    {"softirq", "irq", "softirq_exit"},
    {"softirq", "irq", "softirq_raise"},
    {"napi", "napi", "napi_poll"},
    {"txshare", "skb", "consume_skb"},
    {"drops", "skb", "kfree_skb"},
    {"udp_fail", "udp", "udp_fail_queue_rcv_skb"},
    {kSocketFillConcern, "sock", "sk_data_ready"},
    {kSocketFillConcern, "sock", "sock_rcvqueue_full"},
    {kSocketFillConcern, "sock", "sock_recv_length", "the drain gap (kernel 6.4 on)"},
    {"truesize", "net", "netif_receive_skb"},
};

}  // namespace nictune::driver
