// SPDX-License-Identifier: Apache-2.0
// Packet arrival times for the simulator: constant, Poisson or on/off bursts, from a seeded PRNG
// of our own (std::mt19937_64 plus inverse-transform sampling) so that a seed gives the same
// sequence on every platform and library version.
#pragma once

#include <cstdint>
#include <random>

#include "tuner/sim_scenario.h"

namespace nictune::tuner {

class SimArrivals {
 public:
  // config must be valid (ValidateScenario).
  SimArrivals(const ArrivalConfig& config, uint64_t seed);

  // The next arrival time in ns since the start of the run; never decreases.
  int64_t Next();

 private:
  double UniformOpen();  // in (0, 1)

  ArrivalConfig config_;
  std::mt19937_64 rng_;
  double gap_ns_ = 0;  // constant and on/off spacing
  double poisson_t_ns_ = 0;
  int64_t index_ = 0;   // packets so far (constant) or within the current burst (on/off)
  int64_t period_ = 0;  // on/off: the current on+off period
};

}  // namespace nictune::tuner
