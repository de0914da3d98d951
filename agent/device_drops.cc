// SPDX-License-Identifier: Apache-2.0
#include "agent/device_drops.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "agent/model/socket_arrivals.h"

namespace nictune::agent {
namespace {

struct Counts {
  uint64_t recorded = 0;         // every reason's
  uint64_t recorded_socket = 0;  // SOCKET_RCVBUFF's
  uint64_t placed_sockets = 0;
};

}  // namespace

std::vector<DeviceDrops> DropsPerDevice(const model::Window& window,
                                        const observe::SocketDevices& socket_devices) {
  std::vector<DeviceDrops> out;
  if (window.seconds <= 0) return out;
  std::map<std::string, Counts> by_device;
  for (const model::DropWindow& d : window.drops) {
    if (d.device.empty()) continue;
    Counts& c = by_device[d.device];
    c.recorded += d.count;
    if (d.reason_name == model::kSocketRcvbuffReason) c.recorded_socket += d.count;
  }
  const model::RcvbuffDropsByCookie rcvbuff = model::IndexRcvbuffDrops(window.drops);
  for (const model::SocketWindow& s : window.sockets) {
    const auto placed = socket_devices.find(s.key.cookie);
    if (placed != socket_devices.end()) {
      by_device[placed->second].placed_sockets += model::SocketDrops(s, rcvbuff);
    }
  }
  for (const auto& [device, c] : by_device) {
    const uint64_t missed = c.placed_sockets - std::min(c.placed_sockets, c.recorded_socket);
    out.push_back({.device = device,
                   .per_s = static_cast<double>(c.recorded + missed) / window.seconds,
                   .placed_sockets_per_s = static_cast<double>(c.placed_sockets) / window.seconds});
  }
  return out;
}

nlohmann::json DeviceDropsToJson(const std::vector<DeviceDrops>& drops) {
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceDrops& d : drops) {
    out.push_back({{"device", d.device},
                   {"per_s", d.per_s},
                   {"placed_sockets_per_s", d.placed_sockets_per_s}});
  }
  return out;
}

}  // namespace nictune::agent
