// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's moderation knobs through the same interface as a real NIC's (KnobProvider):
// rx-usecs, rx-frames and adaptive-rx of the device the emulated NIC created, read and written
// over its control socket. Other knobs of that device are Unimplemented (as on a NIC without
// them); other targets are NotFound, so the next provider is asked.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "driver/emulated/control_client.h"
#include "driver/knobs/knob_access.h"

namespace nictune::driver::emulated {

class EmulatedNicKnobProvider : public knobs::KnobProvider {
 public:
  // `device` is the TAP device's name inside the emulated NIC's namespace (its --device flag).
  EmulatedNicKnobProvider(std::string device, std::string control_socket_path)
      : device_(std::move(device)), client_(std::move(control_socket_path)) {}

  absl::StatusOr<std::unique_ptr<knobs::KnobAccess>> Open(
      const knobs::KnobAddress& address) override;

 private:
  std::string device_;
  ControlClient client_;
};

}  // namespace nictune::driver::emulated
