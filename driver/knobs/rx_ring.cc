// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/rx_ring.h"

#include "absl/strings/str_cat.h"
#include "driver/knobs/ethtool_writer.h"
#include "driver/knobs/knob_status.h"
#include "driver/netlink/ethtool_reader.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::knobs {
namespace {

std::string Describe(const std::string& device) { return absl::StrCat("rx ring on ", device); }

}  // namespace

absl::StatusOr<uint32_t> ReadRxRing(const std::string& device) {
  absl::StatusOr<netlink::RingSettings> rings = netlink::ReadRings(device);
  if (!rings.ok()) return InKnobContext(rings.status(), Describe(device));
  if (!rings->rx) {
    return absl::UnimplementedError(
        absl::StrCat("rx ring on ", device, ": unsupported: the driver does not report it"));
  }
  return *rings->rx;
}

absl::Status WriteRxRing(const std::string& device, uint32_t entries) {
  absl::StatusOr<netlink::RingSettings> rings = netlink::ReadRings(device);
  if (!rings.ok()) return InKnobContext(rings.status(), Describe(device));
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
  return InKnobContext(WriteRings(device, change), Describe(device));
}

}  // namespace nictune::driver::knobs
