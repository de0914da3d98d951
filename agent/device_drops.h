// SPDX-License-Identifier: Apache-2.0
// Each device's drops over an interval, for `nictune top`: the drop probe's records that name it
// (every reason; scaled to the kernel's counts where its slots sampled), and where the kernel
// counted more drops for the sockets placed on the device than the records' socket drops (the
// probe's slots missed them), the kernel's count instead.
#pragma once

#include <string>
#include <vector>

#include "agent/model/window.h"
#include "agent/observe/socket_placement.h"
#include "nlohmann/json.hpp"

namespace nictune::agent {

struct DeviceDrops {
  std::string device;
  double per_s = 0;
  // The kernel's own count (sock_diag) of the drops of the sockets placed on the device.
  double placed_sockets_per_s = 0;
};

// A device appears when a record names it or a socket is placed on it; by name.
std::vector<DeviceDrops> DropsPerDevice(const model::Window& window,
                                        const observe::SocketDevices& socket_devices);

nlohmann::json DeviceDropsToJson(const std::vector<DeviceDrops>& drops);

}  // namespace nictune::agent
