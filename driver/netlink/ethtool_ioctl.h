// SPDX-License-Identifier: Apache-2.0
// The legacy SIOCETHTOOL ioctl: the fallback for kernels without ethtool netlink (before 5.6),
// and the driver name for messages. Acts in the calling thread's network namespace.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::netlink {

// ETHTOOL_GCOALESCE. Every field is filled: the ioctl cannot say which ones a driver supports.
absl::StatusOr<CoalesceSettings> GetCoalesceByIoctl(const std::string& device);

// ETHTOOL_GRINGPARAM: rx/rx-mini/rx-jumbo/tx and their maxima.
absl::StatusOr<RingSettings> GetRingsByIoctl(const std::string& device);

// ETHTOOL_GCOALESCE, then ETHTOOL_SCOALESCE with the present fields of `change` applied: the ioctl
// can only write the whole structure. Fields the ioctl has no room for (cqe modes, tx aggregation)
// are InvalidArgument.
absl::Status SetCoalesceByIoctl(const std::string& device, const CoalesceSettings& change);

// ETHTOOL_GRINGPARAM, then ETHTOOL_SRINGPARAM with the present rx, rx_mini, rx_jumbo and tx of
// `change` applied; any other field present is InvalidArgument.
absl::Status SetRingsByIoctl(const std::string& device, const RingSettings& change);

// ETHTOOL_GDRVINFO: the driver's name ("virtio_net", "veth", "ixgbe").
absl::StatusOr<std::string> GetDriverName(const std::string& device);

// `status`, or for EOPNOTSUPP (Unimplemented) the message callers show, naming the driver that
// lacks the operation: "not supported by veth: ...". The read and the write side both use it.
absl::Status NameTheDriver(const absl::Status& status, const std::string& device);

}  // namespace nictune::driver::netlink
