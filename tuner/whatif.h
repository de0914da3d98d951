// SPDX-License-Identifier: Apache-2.0
// The tuner's answer to a what-if (POST /api/v1/whatif, `nictune whatif`): one flow into one
// socket, as a person asks about it, planned by the tuner itself. The question becomes the
// Observation the agent would make of that socket, Recommend() plans it as it plans a host's
// queues, and the answer is the tuner's rx-usecs and SO_RCVBUF advice with its formula: the
// what-if and GET /api/v1/recommendations cannot disagree on the same numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "tuner/interval_plan.h"
#include "tuner/observation.h"
#include "tuner/observation_check.h"
#include "tuner/policy_config.h"
#include "tuner/sim_whatif.h"

namespace nictune::tuner {

struct WhatIfQuestion {
  double rate_pps = 0;         // into the socket, steady
  int64_t truesize_bytes = 0;  // kernel charge per packet (skb->truesize)
  int64_t rcvbuf_bytes = 0;    // sk_rcvbuf
  int64_t drain_gap_us = 0;    // longest time the reader leaves the socket undrained
  double margin = kDefaultMargin;
  std::optional<int64_t> rx_usecs;   // the interval asked about; none: the recommended one
  std::optional<int64_t> ring_size;  // rx descriptors; none: unknown, no ring limit
};

// The ranges a question must be in (inclusive), which every caller checks before asking: beyond
// them it is not one socket's (10 Mpps into it, a reader away for 100 ms, an interrupt every
// 100 ms), and they bound the simulation a question runs. truesize is the observation's bound,
// rcvbuf the kernel's int, the ring the largest a NIC has and then some.
inline constexpr double kMinWhatIfRatePps = 1;
inline constexpr double kMaxWhatIfRatePps = 1e7;
inline constexpr int64_t kMaxWhatIfTruesizeBytes = static_cast<int64_t>(kMaxTruesizeBytes);
inline constexpr int64_t kMaxWhatIfRcvbufBytes = 2147483647;
inline constexpr int64_t kMaxWhatIfDrainGapUs = 100'000;
inline constexpr double kMaxWhatIfMargin = 0.9;
inline constexpr int64_t kMaxWhatIfRxUsecs = 100'000;
inline constexpr int64_t kMaxWhatIfRingSize = int64_t{1} << 16;

// What the agent observes of the question's socket over a 10 s window: the rate steady (peak =
// mean), the application's own SO_RCVBUF (advice is ceil(need / 2), the kernel doubles it), a
// reader on its own CPU, costs unknown (the tuner's assumed interrupt cost, hence its ceiling),
// no drops, a driver that takes rx-usecs in 1 us steps with adaptive moderation off, and the ring
// when given.
Observation WhatIfObservation(const WhatIfQuestion& question);

struct WhatIfAdvice {
  IntervalPlan plan;          // the tuner's plan of the observation's queue
  int64_t rx_usecs = 0;       // the tuner's rx-usecs
  int64_t rcvbuf_bytes = 0;   // sk_rcvbuf the advice runs with: the question's, or 2 * SO_RCVBUF
  // The tuner's SO_RCVBUF when the buffer must grow (rmem_max must be at least as much for the
  // kernel to take it); none when the question's buffer does at rx_usecs.
  std::optional<int64_t> so_rcvbuf_bytes;
  bool drop_free = false;  // the tuner predicts no overflow at rx_usecs with rcvbuf_bytes
  std::string unresolved;  // why no setting is drop-free, the tuner's words; empty otherwise
  std::string formula;     // the tuner's arithmetic (rx-usecs, and SO_RCVBUF when advised)
  std::string rationale;   // the advice in words: the interval, what limits it, the buffer
};

// InvalidArgument naming the field when the question is outside the ranges above.
absl::Status CheckWhatIfQuestion(const WhatIfQuestion& question);

// The question checked, observed and planned by Recommend().
absl::StatusOr<WhatIfAdvice> AdviseWhatIf(const WhatIfQuestion& question);

// What the socket must hold at rx_usecs (the tuner's burst model, whole packets) and the sk_rcvbuf
// that holds it with the margin.
struct WhatIfHold {
  double packets = 0;
  int64_t rcvbuf_needed_bytes = 0;
};
WhatIfHold HoldAt(const WhatIfAdvice& advice, int64_t rx_usecs);

// The simulator's run of the question at rx_usecs with rcvbuf_bytes: its ring, or one that does
// not limit; WhatIfDurationUs of traffic.
WhatIfInput WhatIfSimulationInput(const WhatIfQuestion& question, int64_t rx_usecs,
                                  int64_t rcvbuf_bytes);

}  // namespace nictune::tuner
