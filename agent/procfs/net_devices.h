// SPDX-License-Identifier: Apache-2.0
// /sys/class/net: devices, their counters, and their queues.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

struct NetDevice {
  std::string name;  // kernel-name text (driver/kernel_name.h); the directory holds the bytes
  int32_t ifindex = 0;
  std::string driver;  // basename of device/driver link, empty for virtual devices without one
  std::map<std::string, uint64_t> statistics;  // statistics/<name> -> value
  int rx_queues = 0;                           // count of queues/rx-N
  int tx_queues = 0;                           // count of queues/tx-N
  std::vector<int> msi_irqs;                   // device/msi_irqs entries, sorted, where present
};

// What of each device is read besides its name and ifindex.
struct NetDeviceParts {
  // The statistics files: 24 reads a device, left out when rtnetlink gives them in one dump.
  bool statistics = true;
};

// Reads every device under sys_class_net (normally "/sys/class/net"). A device that vanishes
// while it is read is skipped; a malformed counter is an error naming its file.
absl::StatusOr<std::vector<NetDevice>> ReadNetDevices(const std::string& sys_class_net,
                                                      NetDeviceParts parts = {});

}  // namespace nictune::procfs
