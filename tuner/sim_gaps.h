// SPDX-License-Identifier: Apache-2.0
// When the simulated application is off CPU: one scheduling gap of gap_ns in every gap_period_ns,
// at a seeded random point of its period. A real application's scheduling has no relation to the
// sender's phase; a gap always at the same point of a period that is a multiple of the traffic's
// on/off period meets every burst at the same phase, and a run then judges one phase only.
#pragma once

#include <cstdint>
#include <random>

#include "tuner/sim_scenario.h"

namespace nictune::tuner {

class SimGaps {
 public:
  // app must be valid (ValidateScenario). The gaps draw from their own stream, derived from seed,
  // so that adding or moving gaps does not change the arrivals of a seed.
  SimGaps(const AppConfig& app, uint64_t seed);

  // Moves to the gap of the period containing now (or the next one once now has passed this
  // period's gap). now must never decrease between calls.
  void AdvanceTo(int64_t now);

  // Whether the reader is off CPU at now (after AdvanceTo(now)).
  bool InGap(int64_t now) const;

  // The next time the reader goes off or comes back on CPU after now (after AdvanceTo(now));
  // INT64_MAX without gaps.
  int64_t NextBoundary(int64_t now) const;

  // The gap of the current period: [start, end).
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }

 private:
  void PlaceInPeriod(int64_t period_index);

  int64_t gap_ns_ = 0;
  int64_t period_ns_ = 0;
  // Latest start within a period: gaps begin at a uniform point of [0, latest_start_ns_], which
  // leaves the reader on CPU for at least min(gap, period - gap) between two gaps, so that two
  // gaps never merge into one longer than gap_ns.
  int64_t latest_start_ns_ = 0;
  std::mt19937_64 rng_;
  int64_t period_index_ = 0;
  int64_t start_ns_ = 0;
  int64_t end_ns_ = 0;
};

}  // namespace nictune::tuner
