// SPDX-License-Identifier: Apache-2.0
#include "agent/window_report.h"

#include "agent/model/window_json.h"
#include "agent/queue_view.h"
#include "agent/topology_json.h"
#include "nlohmann/json.hpp"

namespace nictune::agent {

nlohmann::json WindowReport(const model::Window& window, const Topology& topology) {
  nlohmann::json report = model::WindowToJson(window);
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
