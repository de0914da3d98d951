// SPDX-License-Identifier: Apache-2.0
// Every device's own counters (struct rtnl_link_stats64) for all devices of a network namespace
// in one netlink dump, instead of one file per counter under /sys/class/net/DEV/statistics:
// 24 opens, reads and closes per device and interval become one request.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::driver {

// The counters every device has, in struct rtnl_link_stats64's order, named as their files under
// /sys/class/net/DEV/statistics.
inline constexpr std::string_view kLinkStatisticNames[] = {
    "rx_packets",        "tx_packets",        "rx_bytes",         "tx_bytes",
    "rx_errors",         "tx_errors",         "rx_dropped",       "tx_dropped",
    "multicast",         "collisions",        "rx_length_errors", "rx_over_errors",
    "rx_crc_errors",     "rx_frame_errors",   "rx_fifo_errors",   "rx_missed_errors",
    "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",   "tx_heartbeat_errors",
    "tx_window_errors",  "rx_compressed",     "tx_compressed",    "rx_nohandler",
};
inline constexpr size_t kLinkStatisticCount = std::size(kLinkStatisticNames);

struct LinkStatistics {
  int32_t ifindex = 0;
  std::array<uint64_t, kLinkStatisticCount> counters{};  // in kLinkStatisticNames' order
};

class LinkStatisticsSource {
 public:
  virtual ~LinkStatisticsSource() = default;
  // Every device of the namespace. The error names the request and the errno.
  virtual absl::StatusOr<std::vector<LinkStatistics>> Read() = 0;
  // The name (the kernel's bytes) of device `ifindex` in the same namespace: how a caller checks
  // that the devices it lists elsewhere (a sysfs tree) are this namespace's. NotFound when there
  // is none.
  virtual absl::StatusOr<std::string> DeviceName(int32_t ifindex) = 0;
};

// RTM_GETSTATS over rtnetlink, in the network namespace of the thread that calls this.
absl::StatusOr<std::unique_ptr<LinkStatisticsSource>> OpenRtnetlinkLinkStatistics();

}  // namespace nictune::driver
