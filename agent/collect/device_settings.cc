// SPDX-License-Identifier: Apache-2.0
#include "agent/collect/device_settings.h"

#include "absl/status/status.h"
#include "driver/netlink/ethtool_reader.h"

namespace nictune::collect {

std::vector<DeviceSettings> ReadDeviceSettings(const std::vector<std::string>& devices) {
  std::vector<DeviceSettings> out;
  out.reserve(devices.size());
  for (const std::string& device : devices) {
    DeviceSettings s{.device = device};
    if (auto c = driver::netlink::ReadCoalesce(device); c.ok()) {
      s.coalesce = *std::move(c);
    } else {
      s.coalesce_unsupported = absl::IsUnimplemented(c.status());
      s.coalesce_error = std::string(c.status().message());
    }
    if (auto r = driver::netlink::ReadRings(device); r.ok()) {
      s.rings = *std::move(r);
    } else {
      s.rings_unsupported = absl::IsUnimplemented(r.status());
      s.rings_error = std::string(r.status().message());
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace nictune::collect
