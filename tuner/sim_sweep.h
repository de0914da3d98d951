// SPDX-License-Identifier: Apache-2.0
// Exhaustive sweep of static rx-usecs in the simulator: the optimum a tuner is judged against is
// the lowest interrupt rate that drops nothing (neither ring nor socket).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/sim_scenario.h"

namespace nictune::tuner {

struct SweepPoint {
  int64_t rx_usecs = 0;
  double interrupts_per_s = 0;
  uint64_t drops = 0;  // ring + socket
};

struct SweepResult {
  std::vector<SweepPoint> points;  // in rx_usecs order
  std::optional<SweepPoint> best;  // lowest interrupt rate with zero drops; none if all drop
};

// Runs base with static moderation at rx_usecs = lo, lo + step, ..., <= hi (rx_frames as in
// base). InvalidArgument for an empty or oversized range (more than 10000 points) or an
// invalid scenario.
absl::StatusOr<SweepResult> SweepRxUsecs(const SimScenario& base, int64_t lo, int64_t hi,
                                         int64_t step);

}  // namespace nictune::tuner
