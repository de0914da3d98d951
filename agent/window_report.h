// SPDX-License-Identifier: Apache-2.0
// The whole measurement of one window as JSON: the Window's figures, the per-queue view, the
// devices' settings, every source with its state, each socket's device and each device's drops
// (`socket_devices`: the interval's, observe::IntervalSocketPlaces). Printed by `nictuned --once
// --json` and served as /api/v1/snapshot.
#pragma once

#include "agent/model/window.h"
#include "agent/observe/socket_placement.h"
#include "agent/topology.h"
#include "nlohmann/json_fwd.hpp"

namespace nictune::agent {

nlohmann::json WindowReport(const model::Window& window, const Topology& topology,
                            const observe::SocketDevices& socket_devices);

// The devices a Window saw, for reading their settings.
std::vector<std::string> DeviceNames(const model::Window& window);

}  // namespace nictune::agent
