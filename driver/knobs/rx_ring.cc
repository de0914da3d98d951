#include "driver/knobs/rx_ring.h"

#include "absl/strings/str_cat.h"
#include "driver/knobs/ethtool_writer.h"
#include "driver/netlink/ethtool_reader.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::knobs {
namespace {

absl::Status Prefixed(const absl::Status& status, const std::string& device) {
  const char* state = status.code() == absl::StatusCode::kUnimplemented ? "unsupported: " : "";
  return absl::Status(status.code(),
                      absl::StrCat("rx ring on ", device, ": ", state, status.message()));
}

}  // namespace

absl::StatusOr<uint32_t> ReadRxRing(const std::string& device) {
  absl::StatusOr<netlink::RingSettings> rings = netlink::ReadRings(device);
  if (!rings.ok()) return Prefixed(rings.status(), device);
  if (!rings->rx) {
    return absl::UnimplementedError(
        absl::StrCat("rx ring on ", device, ": unsupported: the driver does not report it"));
  }
  return *rings->rx;
}

absl::Status WriteRxRing(const std::string& device, uint32_t entries) {
  absl::StatusOr<netlink::RingSettings> rings = netlink::ReadRings(device);
  if (!rings.ok()) return Prefixed(rings.status(), device);
  if (!rings->rx || !rings->rx_max) {
    return absl::UnimplementedError(absl::StrCat(
        "rx ring on ", device, ": unsupported: the driver does not report rx and rx-max"));
  }
  if (entries == 0 || entries > *rings->rx_max) {
    return absl::InvalidArgumentError(absl::StrCat("rx ring on ", device, ": ", entries,
                                                   " is outside 1..", *rings->rx_max,
                                                   " (the driver's rx-max)"));
  }
  netlink::RingSettings change;
  change.rx = entries;
  if (absl::Status status = WriteRings(device, change); !status.ok()) {
    return Prefixed(status, device);
  }
  return absl::OkStatus();
}

}  // namespace nictune::driver::knobs
