// SPDX-License-Identifier: Apache-2.0
#include "agent/window_report.h"

#include "agent/device_drops.h"
#include "agent/model/window_json.h"
#include "agent/queue_view.h"
#include "agent/topology_json.h"
#include "nlohmann/json.hpp"

namespace nictune::agent {

namespace {

// Each socket's device where the placement found one.
void AddSocketDevices(const observe::SocketDevices& devices, nlohmann::json& report) {
  for (nlohmann::json& s : report["sockets"]) {
    const auto placed = devices.find(s.value("cookie", uint64_t{0}));
    if (placed != devices.end()) s["device"] = placed->second;
  }
}

}  // namespace

nlohmann::json WindowReport(const model::Window& window, const Topology& topology,
                            const observe::SocketDevices& socket_devices) {
  nlohmann::json report = model::WindowToJson(window);
  AddSocketDevices(socket_devices, report);
  report["device_drops"] = DeviceDropsToJson(DropsPerDevice(window, socket_devices));
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
