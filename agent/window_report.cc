// SPDX-License-Identifier: Apache-2.0
#include "agent/window_report.h"

#include <map>

#include "agent/device_drops.h"
#include "agent/model/window_json.h"
#include "agent/queue_view.h"
#include "agent/topology_json.h"
#include "nlohmann/json.hpp"

namespace nictune::agent {

namespace {

// Each socket's device where the placement found one.
void AddSocketDevices(const observe::SocketPlacement& sockets, nlohmann::json& report) {
  std::map<uint64_t, std::string> device_by_cookie;
  for (const observe::PlacedSocket& p : sockets.placed) device_by_cookie[p.key.cookie] = p.device;
  for (nlohmann::json& s : report["sockets"]) {
    const auto placed = device_by_cookie.find(s.value("cookie", uint64_t{0}));
    if (placed != device_by_cookie.end()) s["device"] = placed->second;
  }
}

}  // namespace

nlohmann::json WindowReport(const model::Window& window, const Topology& topology,
                            const observe::SocketPlacement& sockets) {
  nlohmann::json report = model::WindowToJson(window);
  AddSocketDevices(sockets, report);
  report["device_drops"] = DeviceDropsToJson(DropsPerDevice(window, sockets));
  for (const auto& s : topology.sources) {
    report["sources"].push_back({{"name", s.name},
                                 {"kind", model::SourceName(s.source)},
                                 {"in_use", s.in_use},
                                 {"detail", s.detail}});
  }
  report["queues"] = QueueWindowsToJson(BuildQueueWindows(window, topology.queue_map.bindings));
  report["settings"] = DeviceSettingsToJson(topology.settings);
  return report;
}

std::vector<std::string> DeviceNames(const model::Window& window) {
  std::vector<std::string> names;
  names.reserve(window.devices.size());
  for (const auto& d : window.devices) names.push_back(d.name);
  return names;
}

}  // namespace nictune::agent
