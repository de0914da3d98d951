// SPDX-License-Identifier: Apache-2.0
// Socket-buffer fill math (docs/design.md "The math", seed 001): how many packets a socket holds,
// how fast a flow fills it, and the longest interrupt interval that cannot overflow it.
#pragma once

#include "absl/status/statusor.h"
#include "tuner/policy_config.h"

namespace nictune::tuner {

struct FillInputs {
  double rate_pps = 0;             // arrival rate into the socket (lambda)
  double truesize_bytes = 0;       // mean kernel charge per packet (skb->truesize)
  double rcvbuf_bytes = 0;         // sk_rcvbuf
  double drain_gap_s = 0;          // longest time the application leaves the socket undrained
  double margin = kDefaultMargin;  // safety fraction of the fill time kept unused, in [0, 1)
};

struct FillResult {
  double capacity_packets = 0;    // C = rcvbuf / truesize
  double fill_time_s = 0;         // T_fill = C / rate
  double max_interval_s = 0;      // u_max = (1 - margin) * T_fill - drain_gap; <= 0: none works
  double min_interrupt_rate = 0;  // 1 / u_max; +inf when u_max <= 0
};

// Fails with InvalidArgument naming the input when a value is negative, not finite, or zero
// where it divides (rate, truesize).
absl::StatusOr<FillResult> ComputeFill(const FillInputs& in);

// The buffer that keeps a socket drop-free when interrupts come every interval_s:
// rate * (interval + drain_gap) * truesize / (1 - margin).
absl::StatusOr<double> RcvbufNeeded(const FillInputs& in, double interval_s);

// The interrupt-rate ceiling from cost: interrupts (hard IRQ + the fixed part of their NAPI poll,
// cost_s each) may use at most cpu_share of one CPU, so rate <= cpu_share / cost_s and the
// interval between interrupts >= cost_s / cpu_share.
struct InterruptCeiling {
  double max_rate = 0;        // interrupts per second
  double min_interval_s = 0;  // 1 / max_rate
};

// Fails with InvalidArgument when cost_s is not finite and > 0 or cpu_share not in (0, 1].
absl::StatusOr<InterruptCeiling> ComputeInterruptCeiling(double cost_s, double cpu_share);

}  // namespace nictune::tuner
