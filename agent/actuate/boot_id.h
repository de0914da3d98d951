// SPDX-License-Identifier: Apache-2.0
// The kernel's boot id: a journal row tagged with another boot's id is stale, because the reboot
// already reset every knob to its default.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nictune::actuate {

inline constexpr const char* kBootIdPath = "/proc/sys/kernel/random/boot_id";

// The id without its trailing newline. InvalidArgument when the file holds no id.
absl::StatusOr<std::string> ReadBootId(const std::string& path = kBootIdPath);

}  // namespace nictune::actuate
