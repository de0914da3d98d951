// SPDX-License-Identifier: Apache-2.0
#include "agent/topology.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "driver/netlink/netdev_netlink.h"

namespace nictune::agent {

TopologyReader::TopologyReader(collect::CollectorPaths paths, int refresh_windows)
    : paths_(std::move(paths)), refresh_windows_(refresh_windows) {
  if (auto opened = driver::netlink::OpenNetdevNetlink(); opened.ok()) {
    netlink_ = *std::move(opened);
  } else {
    netlink_error_ = std::string(opened.status().message());
  }
}

const Topology& TopologyReader::Read(const std::vector<std::string>& devices) {
  if (!last_ || devices != last_devices_ || ++calls_since_read_ >= refresh_windows_) {
    last_ = ReadNow(devices);
    last_devices_ = devices;
    calls_since_read_ = 0;
  }
  return *last_;
}

Topology TopologyReader::ReadNow(const std::vector<std::string>& devices) {
  Topology t;
  t.sources.push_back({.name = "netdev-netlink",
                       .source = model::Source::kNetdevNetlink,
                       .in_use = netlink_ != nullptr,
                       .detail = netlink_error_});
  model::SourceState map{.name = "queue map", .source = model::Source::kProcfs};
  if (auto read = collect::ReadQueueMap(paths_, netlink_.get()); read.ok()) {
    t.queue_map = *std::move(read);
    map.in_use = true;
    map.detail = absl::StrJoin(t.queue_map.notes, "; ");
  } else {
    map.detail = std::string(read.status().message());
  }
  t.sources.push_back(std::move(map));
  t.settings = collect::ReadDeviceSettings(devices);
  return t;
}

}  // namespace nictune::agent
