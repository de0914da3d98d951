// SPDX-License-Identifier: Apache-2.0
// All policies over one observation, with related knobs kept consistent.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// Checks the observation (CheckObservation), plans each queue's interrupt interval, and runs the
// coalescing (or, without hardware moderation, deferral), rmem, budget and weight policies. Then
// enforces: rmem_default <= rmem_max; netdev_budget and netdev_budget_usecs move in the same
// direction; every recommended value within the knob's kernel range, and within the tuner's hard
// caps unless it is the current value kept.
absl::StatusOr<std::vector<Recommendation>> Recommend(const Observation& obs,
                                                      const PolicyConfig& config);

}  // namespace nictune::tuner
