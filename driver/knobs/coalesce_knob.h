// SPDX-License-Identifier: Apache-2.0
// A KnobAccess for one interrupt-coalescing setting of a device (rx-usecs, rx-frames,
// adaptive-rx): read with ethtool COALESCE_GET, written with a COALESCE_SET of that one field
// (ioctl fallback on kernels without ethtool netlink). Acts in the calling thread's network
// namespace.
#pragma once

#include <cstdint>
#include <utility>

#include "driver/knobs/knob_access.h"

namespace nictune::driver::knobs {

class CoalesceKnob final : public KnobAccess {
 public:
  // address.knob must be kRxUsecs, kRxFrames or kAdaptiveRx; `device` is address.target's device.
  CoalesceKnob(KnobAddress address, std::string device)
      : address_(std::move(address)), device_(std::move(device)) {}

  const KnobAddress& address() const override { return address_; }
  // Unimplemented ("unsupported") when the driver has no coalescing or does not report this field.
  absl::StatusOr<int64_t> Read() override;
  absl::Status Write(int64_t value) override;

 private:
  KnobAddress address_;
  std::string device_;
};

}  // namespace nictune::driver::knobs
