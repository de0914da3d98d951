// SPDX-License-Identifier: Apache-2.0
// Which queues, irqs, CPUs and NAPI instances each device has, and its coalescing and ring
// settings. These change rarely (a device comes or goes, an irq moves, someone runs ethtool), so
// the sampling loop re-reads them only when the device set changes or every refresh_windows
// windows, not with every counter sample.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/collect/device_settings.h"
#include "agent/collect/queue_map.h"
#include "agent/model/source.h"
#include "driver/netlink/netdev_topology.h"

namespace nictune::agent {

struct Topology {
  collect::QueueMap queue_map;
  std::vector<collect::DeviceSettings> settings;
  std::vector<model::SourceState> sources;  // netdev netlink and the queue map's own notes
};

class TopologyReader {
 public:
  explicit TopologyReader(collect::CollectorPaths paths, int refresh_windows = 10);
  // The topology for these devices: re-read when they differ from the last call's or when
  // refresh_windows calls have passed, else the last reading.
  const Topology& Read(const std::vector<std::string>& devices);

 private:
  Topology ReadNow(const std::vector<std::string>& devices);

  collect::CollectorPaths paths_;
  int refresh_windows_;
  int calls_since_read_ = 0;
  std::vector<std::string> last_devices_;
  std::optional<Topology> last_;
  std::unique_ptr<driver::netlink::NetdevTopology> netlink_;
  std::string netlink_error_;
};

}  // namespace nictune::agent
