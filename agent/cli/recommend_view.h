// SPDX-License-Identifier: Apache-2.0
// `nictune recommend`: GET /api/v1/recommendations as a table of the changes (current ->
// recommended per knob and target, with the confidence and the expected effect) and one line
// naming the knobs kept as they are, so that what to do stands out; with why, every
// recommendation's formula and inputs, so a person can check the arithmetic.
#pragma once

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderRecommendations(const nlohmann::json& recommendations, bool why,
                                  size_t width);

}  // namespace nictune::cli
