// Which queues, irqs, CPUs and NAPI instances each device has, and its coalescing and ring
// settings. Read once per window beside the counters: devices come and go, irqs move.
#pragma once

#include <memory>
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
  explicit TopologyReader(collect::CollectorPaths paths);
  Topology Read(const std::vector<std::string>& devices);

 private:
  collect::CollectorPaths paths_;
  std::unique_ptr<driver::netlink::NetdevTopology> netlink_;
  std::string netlink_error_;
};

}  // namespace nictune::agent
