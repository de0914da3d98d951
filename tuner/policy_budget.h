// SPDX-License-Identifier: Apache-2.0
// netdev_budget and netdev_budget_usecs, moved together, from time_squeeze and the softirq share.
#pragma once

#include <vector>

#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// Raise both by f = min(2, softirq_cap / softirq) when time_squeeze >= min_time_squeeze_per_s and
// softirq is below its cap (budget_usecs also at least 1.25x the time budget packets take);
// lower both by f = max(1/2, (1 - user_fair_share - hardirq) / softirq) when softirq starves user
// space, so ksoftirqd competes with applications, unless threads are recommended for the starving
// device (DeviceToThread); otherwise keep. Always within TunerRange and
// never past the current value in the wrong direction.
std::vector<Recommendation> RecommendBudget(const Observation& obs, const PolicyConfig& config);

}  // namespace nictune::tuner
