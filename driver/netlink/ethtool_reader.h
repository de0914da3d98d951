// SPDX-License-Identifier: Apache-2.0
// Reading a device's coalescing and ring settings the best way the kernel offers: ethtool
// netlink, or the SIOCETHTOOL ioctl when the kernel has no ethtool netlink family. Read-only.
//
// A driver without the operation (veth, lo) gives absl::UnimplementedError whose message says
// "not supported by <driver>"; callers record the knob as unsupported.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::netlink {

// Each call opens its own socket in the calling thread's network namespace.
absl::StatusOr<CoalesceSettings> ReadCoalesce(const std::string& device);
absl::StatusOr<RingSettings> ReadRings(const std::string& device);

}  // namespace nictune::driver::netlink
