// SPDX-License-Identifier: Apache-2.0
// The rx ring size of a device (ethtool -G rx): read with RINGS_GET, written with a RINGS_SET of
// rx alone after checking it against the driver's reported maximum. The tuner has no Knob for it
// yet, so it is reached through these functions. Acts in the calling thread's network namespace.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::driver::knobs {

// Unimplemented ("unsupported") when the driver has no ring parameters (veth, lo).
absl::StatusOr<uint32_t> ReadRxRing(const std::string& device);
// InvalidArgument when `entries` is 0 or above the driver's rx maximum.
absl::Status WriteRxRing(const std::string& device, uint32_t entries);

}  // namespace nictune::driver::knobs
