// SPDX-License-Identifier: Apache-2.0
// The simulator's answer to "what if this queue ran at rx-usecs N?" for the REST API and CLI:
// one flow into one socket whose reader drains only between interrupts, with an optional
// scheduling gap, and static interrupt moderation at the candidate interval.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "tuner/sim_result.h"
#include "tuner/sim_scenario.h"

namespace nictune::tuner {

struct WhatIfInput {
  double rate_pps = 0;
  int64_t truesize_bytes = 0;
  int64_t rcvbuf_bytes = 0;
  // The reader is off CPU this long once per gap period (the larger of 1 ms and 10 gaps), at a
  // random point of each period.
  int64_t drain_gap_us = 0;
  int64_t rx_usecs = 0;
  int64_t duration_us = 1'000'000;
  // The ring is sized so as not to be the limit; pass the device's ring to include it.
  int64_t ring_size = 4096;
  // Zero costs by default: the socket then sees exactly one interval's arrivals per interrupt,
  // as the fill math assumes. A per-packet softirq cost c stretches each burst by
  // 1 / (1 - rate * c); pass a measured cost to include that and to get a CPU split.
  CostModel cost;
  ArrivalPattern pattern = ArrivalPattern::kConstant;
  uint64_t seed = 1;
};

struct WhatIfResult {
  uint64_t socket_drops = 0;
  uint64_t ring_drops = 0;
  double drops_per_s = 0;  // socket + ring
  double interrupts_per_s = 0;
  int64_t peak_socket_bytes = 0;
  double peak_socket_fill = 0;  // of rcvbuf
  uint64_t peak_packets_per_interrupt = 0;
  SimCpuTime cpu;  // the CPU that takes the interrupt and runs the reader
};

// How long a what-if simulates: 1 s of traffic, shortened at high rates to about
// kWhatIfSimulatedPackets packets (the simulator's work is one event per packet), but never below
// 10 interrupt intervals and 2 drain-gap periods, nor above kMaxWhatIfSimulatedUs. Any inputs
// give a duration in [1, kMaxWhatIfSimulatedUs] (a rate of 1e-12 pps would ask for 2e24 us).
inline constexpr int64_t kMaxWhatIfSimulatedUs = 1'000'000;
inline constexpr double kWhatIfSimulatedPackets = 2e6;
int64_t WhatIfDurationUs(double rate_pps, int64_t rx_usecs, int64_t drain_gap_us);

// A ring that does not limit a constant flow at rx_usecs with zero costs: a delivery's packets
// and two more, at least the default 4096, at most kMaxSimRingSize.
int64_t WhatIfRingThatDoesNotLimit(double rate_pps, int64_t rx_usecs);

// The scenario SimulateWhatIf runs, for callers that want the full SimResult.
SimScenario WhatIfScenario(const WhatIfInput& input);

// InvalidArgument naming the input when it is out of range.
absl::StatusOr<WhatIfResult> SimulateWhatIf(const WhatIfInput& input);

}  // namespace nictune::tuner
