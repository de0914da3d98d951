// SPDX-License-Identifier: Apache-2.0
// `nictune whatif`: the answer of POST /api/v1/whatif: the socket's capacity and fill time, the
// longest drop-free interrupt interval at its buffer, the tuner's recommendation (interval and,
// when it must grow, SO_RCVBUF) with its reason and formula, the buffer the interval asked about
// needs, and what the simulator saw at each.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderWhatif(const nlohmann::json& answer);

}  // namespace nictune::cli
