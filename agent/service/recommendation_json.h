// SPDX-License-Identifier: Apache-2.0
// A tuner recommendation as JSON (REST, the store's records): knob, scope, target, current and
// recommended value, the inputs and the formula with its numbers, expected effect and confidence.
#pragma once

#include <vector>

#include "absl/time/time.h"
#include "agent/store/records.h"
#include "nlohmann/json_fwd.hpp"
#include "tuner/recommendation.h"

namespace nictune::service {

nlohmann::json RecommendationJson(const tuner::Recommendation& recommendation);

// The store's rows for one window's recommendations, stamped `ts`.
std::vector<store::RecommendationRecord> RecommendationRecords(
    absl::Time ts, const std::vector<tuner::Recommendation>& recommendations);

}  // namespace nictune::service
