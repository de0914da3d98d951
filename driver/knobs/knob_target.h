// SPDX-License-Identifier: Apache-2.0
// What a KnobAddress's target names: the host, a device, or one NAPI instance of a device
// ("eth0 napi 8193"). Device names are checked here because they become sysfs path components.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace nictune::driver::knobs {

inline constexpr char kHostTarget[] = "host";

struct KnobTarget {
  bool host = false;
  std::string device;               // empty for the host
  std::optional<uint32_t> napi_id;  // set for "DEV napi ID"
};

// "host", "DEV" or "DEV napi ID". InvalidArgument for anything else, naming the text: an empty
// or over-long device name, one with '/' or whitespace, "." or "..", a napi id that is not a
// positive decimal u32.
absl::StatusOr<KnobTarget> ParseKnobTarget(const std::string& target);

}  // namespace nictune::driver::knobs
