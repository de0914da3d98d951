// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/ethtool_reader.h"

#include <utility>

#include "driver/netlink/ethtool_ioctl.h"
#include "driver/netlink/ethtool_netlink.h"
#include "driver/netlink/genl_socket.h"

namespace nictune::driver::netlink {
namespace {

template <typename Settings>
absl::StatusOr<Settings> Read(const std::string& device,
                              absl::StatusOr<Settings> (EthtoolNetlink::*get)(const std::string&),
                              absl::StatusOr<Settings> (*get_by_ioctl)(const std::string&)) {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  if (!socket.ok()) return socket.status();
  absl::StatusOr<EthtoolNetlink> ethtool = EthtoolNetlink::Open(*std::move(socket));
  if (ethtool.status().code() == absl::StatusCode::kNotFound) {
    // No ethtool netlink family (kernel < 5.6, or built without CONFIG_ETHTOOL_NETLINK).
    absl::StatusOr<Settings> settings = get_by_ioctl(device);
    if (!settings.ok()) return NameTheDriver(settings.status(), device);
    return settings;
  }
  if (!ethtool.ok()) return ethtool.status();
  absl::StatusOr<Settings> settings = ((*ethtool).*get)(device);
  if (!settings.ok()) return NameTheDriver(settings.status(), device);
  return settings;
}

}  // namespace

absl::StatusOr<CoalesceSettings> ReadCoalesce(const std::string& device) {
  return Read<CoalesceSettings>(device, &EthtoolNetlink::GetCoalesce, &GetCoalesceByIoctl);
}

absl::StatusOr<RingSettings> ReadRings(const std::string& device) {
  return Read<RingSettings>(device, &EthtoolNetlink::GetRings, &GetRingsByIoctl);
}

}  // namespace nictune::driver::netlink
