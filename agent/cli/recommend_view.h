// SPDX-License-Identifier: Apache-2.0
// `nictune recommend`: GET /api/v1/recommendations as current -> recommended per knob and target,
// with the expected effect and confidence; with why, each formula and its inputs, so a person can
// check the arithmetic.
#pragma once

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderRecommendations(const nlohmann::json& recommendations, bool why,
                                  size_t width);

}  // namespace nictune::cli
