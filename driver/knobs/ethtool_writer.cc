// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/ethtool_writer.h"

#include <utility>

#include "driver/netlink/ethtool_ioctl.h"
#include "driver/netlink/ethtool_netlink.h"
#include "driver/netlink/genl_socket.h"

namespace nictune::driver::knobs {
namespace {

using netlink::NameTheDriver;

template <typename Settings>
absl::Status Write(const std::string& device, const Settings& change,
                   absl::Status (netlink::EthtoolNetlink::*set)(const std::string&,
                                                                const Settings&),
                   absl::Status (*set_by_ioctl)(const std::string&, const Settings&)) {
  absl::StatusOr<netlink::GenlSocket> socket = netlink::GenlSocket::Open();
  if (!socket.ok()) return socket.status();
  absl::StatusOr<netlink::EthtoolNetlink> ethtool =
      netlink::EthtoolNetlink::Open(*std::move(socket));
  if (ethtool.status().code() == absl::StatusCode::kNotFound) {
    // No ethtool netlink family (kernel < 5.6, or built without CONFIG_ETHTOOL_NETLINK).
    return NameTheDriver(set_by_ioctl(device, change), device);
  }
  if (!ethtool.ok()) return ethtool.status();
  return NameTheDriver(((*ethtool).*set)(device, change), device);
}

}  // namespace

absl::Status WriteCoalesce(const std::string& device, const netlink::CoalesceSettings& change) {
  return Write<netlink::CoalesceSettings>(device, change, &netlink::EthtoolNetlink::SetCoalesce,
                                          &netlink::SetCoalesceByIoctl);
}

absl::Status WriteRings(const std::string& device, const netlink::RingSettings& change) {
  return Write<netlink::RingSettings>(device, change, &netlink::EthtoolNetlink::SetRings,
                                      &netlink::SetRingsByIoctl);
}

}  // namespace nictune::driver::knobs
