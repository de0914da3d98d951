// SPDX-License-Identifier: Apache-2.0
// Coalescing policy: rx-usecs, rx-frames and adaptive-rx of one queue from its interval plan.
#pragma once

#include <vector>

#include "tuner/interval_plan.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// rx-usecs = the plan's interval (the longest in the driver's granularity not above the drop-free
// interval and not below the cost floor); rx-frames = ceil(rate * rx-usecs) where the driver fires
// at whichever comes first; adaptive-rx off when it lets the interrupt rate fall below the floor
// 1 / drop-free interval while sockets drop. While adaptive-rx stays on, rx-usecs is left to it.
// Empty when the driver has no rx-usecs (see the deferral policy). plan comes from PlanInterval for
// this queue with the driver's granularity and maximum.
std::vector<Recommendation> RecommendCoalesce(const Observation& obs, const QueueObservation& queue,
                                              const IntervalPlan& plan, const PolicyConfig& config);

}  // namespace nictune::tuner
