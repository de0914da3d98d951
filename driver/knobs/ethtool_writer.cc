#include "driver/knobs/ethtool_writer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/ethtool_ioctl.h"
#include "driver/netlink/ethtool_netlink.h"
#include "driver/netlink/genl_socket.h"

namespace nictune::driver::knobs {
namespace {

// EOPNOTSUPP names the driver that lacks the operation, as the read side does.
absl::Status NameTheDriver(const absl::Status& status, const std::string& device) {
  if (status.code() != absl::StatusCode::kUnimplemented) return status;
  absl::StatusOr<std::string> driver = netlink::GetDriverName(device);
  const std::string who = driver.ok() && !driver->empty()
                              ? *driver
                              : absl::StrCat("the driver of ", device, " (no driver info)");
  return absl::UnimplementedError(absl::StrCat("not supported by ", who, ": ", status.message()));
}

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
