// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/recommendations: the latest tuner window's recommendations, each with its inputs,
// formula, expected effect and confidence, and the window they came from. Before the first tuner
// window (or in observe mode) an empty list with the reason. The emulated NICs (--emulated_nic)
// are listed with their control sockets, where their moderation is set by hand.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/service/service_state.h"
#include "nlohmann/json_fwd.hpp"

namespace nictune::http {

nlohmann::json RecommendationsJson(const service::RecommendationSet& set,
                                   const std::vector<service::EmulatedNicSpec>& emulated_nics);

// The state must outlive the router.
absl::Status AddRecommendationsRoute(Router& router, const service::ServiceState& state);

}  // namespace nictune::http
