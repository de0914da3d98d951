// SPDX-License-Identifier: Apache-2.0
// JSON for the per-queue view and the devices' current coalescing and ring settings.
#pragma once

#include <vector>

#include "agent/collect/device_settings.h"
#include "agent/queue_view.h"
#include "nlohmann/json_fwd.hpp"

namespace nictune::agent {

nlohmann::json QueueWindowsToJson(const std::vector<QueueWindow>& queues);
nlohmann::json DeviceSettingsToJson(const std::vector<collect::DeviceSettings>& settings);

}  // namespace nictune::agent
