// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_whatif.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tuner/saturating_cast.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {

int64_t WhatIfDurationUs(double rate_pps, int64_t rx_usecs, int64_t drain_gap_us) {
  // The reader's gap period is the simulator's (WhatIfScenario).
  const double gap_us = static_cast<double>(std::max<int64_t>(0, drain_gap_us));
  const double gap_period_us = gap_us > 0 ? std::max(1000.0, 10 * gap_us) : 0;
  const double packets_us = rate_pps > 0 ? kWhatIfSimulatedPackets / rate_pps * 1e6 : 0;
  const double us = std::max({packets_us, 10.0 * static_cast<double>(rx_usecs), 2 * gap_period_us});
  // Clamped as a double: the cast of a value beyond int64 is undefined.
  const double bounded = std::clamp(std::ceil(us), 1.0, static_cast<double>(kMaxWhatIfSimulatedUs));
  return SaturatingInt64(bounded);
}

int64_t WhatIfRingThatDoesNotLimit(double rate_pps, int64_t rx_usecs) {
  constexpr int64_t kDefaultRing = 4096;
  const double delivery = std::ceil(rate_pps * static_cast<double>(rx_usecs) * 1e-6) + 2;
  if (!(delivery > kDefaultRing)) return kDefaultRing;  // NaN too
  return SaturatingInt64(std::min(delivery, static_cast<double>(kMaxSimRingSize)));
}

SimScenario WhatIfScenario(const WhatIfInput& in) {
  SimScenario s;
  s.arrivals.pattern = in.pattern;
  s.arrivals.rate_pps = in.rate_pps;
  if (in.pattern == ArrivalPattern::kOnOff) {
    // Bursty traffic for a what-if: 1 ms on, 1 ms off at twice the mean rate.
    s.arrivals.on_ns = 1'000'000;
    s.arrivals.off_ns = 1'000'000;
  }
  s.frame.truesize_bytes = in.truesize_bytes;
  s.ring_size = in.ring_size;
  s.moderation.kind = ModerationKind::kStatic;
  s.moderation.fixed.rx_usecs = in.rx_usecs;
  s.cost = in.cost;
  s.rcvbuf_bytes = in.rcvbuf_bytes;
  s.app.placement = AppPlacement::kSameCpuAsSoftirq;
  if (in.drain_gap_us > 0) {
    s.app.gap_ns = in.drain_gap_us * 1000;
    s.app.gap_period_ns = std::max<int64_t>(1'000'000, 10 * s.app.gap_ns);
  }
  s.duration_ns = in.duration_us * 1000;
  s.seed = in.seed;
  return s;
}

absl::StatusOr<WhatIfResult> SimulateWhatIf(const WhatIfInput& in) {
  // Ranges the scenario check cannot name in the caller's terms.
  const struct {
    const char* field;
    int64_t value;
    int64_t lo;
    int64_t hi;
  } ranges[] = {
      {"truesize_bytes", in.truesize_bytes, 1, 1 << 30},
      {"drain_gap_us", in.drain_gap_us, 0, 10'000'000},
      {"duration_us", in.duration_us, 1, 100'000'000},
  };
  for (const auto& r : ranges) {
    if (r.value < r.lo || r.value > r.hi) {
      return absl::InvalidArgumentError(
          absl::StrCat("what-if: ", r.field, " = ", r.value, " outside [", r.lo, ", ", r.hi, "]"));
    }
  }
  absl::StatusOr<SimResult> run = Simulate(WhatIfScenario(in));
  if (!run.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("what-if: ", run.status().message()));
  }
  WhatIfResult out;
  out.socket_drops = run->socket_drops;
  out.ring_drops = run->ring_drops;
  out.drops_per_s = run->socket_drops_per_s + run->ring_drops_per_s;
  out.interrupts_per_s = run->interrupts_per_s;
  out.peak_socket_bytes = run->peak_socket_bytes;
  out.peak_socket_fill = run->peak_socket_fill;
  out.peak_packets_per_interrupt = run->peak_packets_per_interrupt;
  out.cpu = run->softirq_cpu;
  return out;
}

}  // namespace nictune::tuner
