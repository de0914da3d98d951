// SPDX-License-Identifier: Apache-2.0
// `nictune status`: GET /api/v1/status as a few lines a person reads at a glance.
#pragma once

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderStatus(const nlohmann::json& status, size_t width);

}  // namespace nictune::cli
