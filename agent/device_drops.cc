// SPDX-License-Identifier: Apache-2.0
#include "agent/device_drops.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace nictune::agent {
namespace {

struct Counts {
  uint64_t recorded = 0;         // every reason's
  uint64_t recorded_socket = 0;  // SOCKET_RCVBUFF's
  uint64_t placed_sockets = 0;
};

}  // namespace

std::vector<DeviceDrops> DropsPerDevice(const model::Window& window,
                                        const observe::SocketPlacement& sockets) {
  std::map<std::string, Counts> by_device;
  for (const model::DropWindow& d : window.drops) {
    if (d.device.empty()) continue;
    Counts& c = by_device[d.device];
    c.recorded += d.count;
    if (d.reason_name == model::kSocketRcvbuffReason) c.recorded_socket += d.count;
  }
  for (const auto& [device, drops] : observe::PlacedDropsByDevice(sockets)) {
    by_device[device].placed_sockets = drops;
  }
  std::vector<DeviceDrops> out;
  if (window.seconds <= 0) return out;
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
