// SPDX-License-Identifier: Apache-2.0
// `nictune status`: GET /api/v1/status as a few lines a person reads at a glance.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderStatus(const nlohmann::json& status);

}  // namespace nictune::cli
