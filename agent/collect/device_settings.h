// SPDX-License-Identifier: Apache-2.0
// The current coalescing and ring settings of each network device, read-only, with the reason
// where a device does not report them (veth and lo have no coalescing: "not supported").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver/netlink/ethtool_settings.h"

namespace nictune::collect {

struct DeviceSettings {
  std::string device;
  std::optional<driver::netlink::CoalesceSettings> coalesce;
  std::string coalesce_error;  // why coalesce is absent
  bool coalesce_unsupported = false;  // the driver has no coalescing (EOPNOTSUPP): not an error
  std::optional<driver::netlink::RingSettings> rings;
  std::string rings_error;
  bool rings_unsupported = false;
};

std::vector<DeviceSettings> ReadDeviceSettings(const std::vector<std::string>& devices);

}  // namespace nictune::collect
