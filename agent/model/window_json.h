// SPDX-License-Identifier: Apache-2.0
// The JSON form of a Window (nictuned --once --json, GET /api/v1/snapshot).
#pragma once

#include "agent/model/window.h"
#include "nlohmann/json_fwd.hpp"

namespace nictune::model {

nlohmann::json WindowToJson(const Window& window);

}  // namespace nictune::model
