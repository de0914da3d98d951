// `nictune whatif`: the answer of POST /api/v1/whatif: the socket's capacity and fill time, the
// longest drop-free interrupt interval, the recommendation with its formula, and what the
// simulator saw at the interval it ran.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderWhatif(const nlohmann::json& answer);

}  // namespace nictune::cli
