// SPDX-License-Identifier: Apache-2.0
// The whole measurement of one window as JSON: the Window's figures, the per-queue view, the
// devices' settings and every source with its state. Printed by `nictuned --once --json`.
#pragma once

#include "agent/model/window.h"
#include "agent/topology.h"
#include "nlohmann/json_fwd.hpp"

namespace nictune::agent {

nlohmann::json WindowReport(const model::Window& window, const Topology& topology);

// The devices a Window saw, for reading their settings.
std::vector<std::string> DeviceNames(const model::Window& window);

}  // namespace nictune::agent
