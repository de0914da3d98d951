// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/coalesce_knob.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "driver/knobs/ethtool_writer.h"
#include "driver/knobs/knob_access.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_status.h"
#include "driver/netlink/ethtool_reader.h"
#include "driver/netlink/ethtool_settings.h"

namespace nictune::driver::knobs {
namespace {

using netlink::CoalesceSettings;
using tuner::Knob;

// The knob's value in settings the kernel reported; nullopt when the driver left it out.
std::optional<int64_t> ValueOf(Knob knob, const CoalesceSettings& settings) {
  switch (knob) {
    case Knob::kRxUsecs:
      return settings.rx_usecs;
    case Knob::kRxFrames:
      return settings.rx_max_frames;
    case Knob::kAdaptiveRx:
      if (!settings.use_adaptive_rx) return std::nullopt;
      return *settings.use_adaptive_rx ? 1 : 0;
    default:
      return std::nullopt;
  }
}

// Settings with only this knob present: the SET carries that one attribute.
std::optional<CoalesceSettings> ChangeOf(Knob knob, int64_t value) {
  CoalesceSettings change;
  switch (knob) {
    case Knob::kRxUsecs:
      change.rx_usecs = static_cast<uint32_t>(value);
      return change;
    case Knob::kRxFrames:
      change.rx_max_frames = static_cast<uint32_t>(value);
      return change;
    case Knob::kAdaptiveRx:
      change.use_adaptive_rx = value != 0;
      return change;
    default:
      return std::nullopt;
  }
}

}  // namespace

absl::StatusOr<int64_t> CoalesceKnob::Read() {
  absl::StatusOr<CoalesceSettings> settings = netlink::ReadCoalesce(device_);
  if (!settings.ok()) return InKnobContext(settings.status(), DescribeKnob(address_));
  const std::optional<int64_t> value = ValueOf(address_.knob, *settings);
  if (!value) {
    return absl::UnimplementedError(absl::StrCat(DescribeKnob(address_), ": unsupported: ", device_,
                                                 "'s driver does not report it (", settings->source,
                                                 ")"));
  }
  return *value;
}

absl::Status CoalesceKnob::Write(int64_t value) {
  if (absl::Status status = CheckKnobValue(address_, value); !status.ok()) return status;
  const std::optional<CoalesceSettings> change = ChangeOf(address_.knob, value);
  if (!change) {
    return absl::InternalError(absl::StrCat(DescribeKnob(address_), ": not a coalescing knob"));
  }
  absl::Status written = WriteCoalesce(device_, *change);
  // The kernel refuses a parameter the driver does not take with EINVAL ("cannot modify an
  // unsupported parameter"), which reads as a bad value. When the driver does not report the
  // knob either, it is a missing knob: say so, the way Read() does.
  if (written.code() == absl::StatusCode::kInvalidArgument) {
    if (absl::StatusOr<int64_t> current = Read(); IsUnsupported(current.status())) {
      return absl::UnimplementedError(
          absl::StrCat(current.status().message(), "; the write was refused: ", written.message()));
    }
  }
  return InKnobContext(written, DescribeKnob(address_));
}

}  // namespace nictune::driver::knobs
