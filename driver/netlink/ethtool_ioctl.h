// The legacy SIOCETHTOOL ioctl, read-only: the fallback for kernels without ethtool netlink
// (before 5.6), and the driver name for messages. Acts in the calling thread's network namespace.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::netlink {

// ETHTOOL_GCOALESCE. Every field is filled: the ioctl cannot say which ones a driver supports.
absl::StatusOr<CoalesceSettings> GetCoalesceByIoctl(const std::string& device);

// ETHTOOL_GRINGPARAM: rx/rx-mini/rx-jumbo/tx and their maxima.
absl::StatusOr<RingSettings> GetRingsByIoctl(const std::string& device);

// ETHTOOL_GDRVINFO: the driver's name ("virtio_net", "veth", "ixgbe").
absl::StatusOr<std::string> GetDriverName(const std::string& device);

}  // namespace nictune::driver::netlink
