// SPDX-License-Identifier: Apache-2.0
// Writing a device's coalescing and ring settings the best way the kernel offers: ethtool
// netlink SET with only the fields being changed, or the SIOCETHTOOL ioctl (read-modify-write)
// when the kernel has no ethtool netlink family. The read side is driver/netlink/ethtool_reader.
//
// A driver without the operation (veth, lo) gives Unimplemented "not supported by <driver>: ...".
#pragma once

#include <string>

#include "absl/status/status.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::knobs {

// Each call opens its own socket in the calling thread's network namespace.
absl::Status WriteCoalesce(const std::string& device, const netlink::CoalesceSettings& change);
absl::Status WriteRings(const std::string& device, const netlink::RingSettings& change);

}  // namespace nictune::driver::knobs
