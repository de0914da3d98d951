// SPDX-License-Identifier: Apache-2.0
// The rx ring size of a device as the agent reads it, from its latest snapshot (GET
// /api/v1/snapshot, "settings"): what `nictune whatif --device=D` asks about.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace nictune::cli {

// NotFound naming the device when the snapshot has no settings for it, and FailedPrecondition
// with the agent's reason when it could not read the device's rings.
absl::StatusOr<int64_t> RxRingSize(const nlohmann::json& snapshot, const std::string& device);

}  // namespace nictune::cli
