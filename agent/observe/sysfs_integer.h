// SPDX-License-Identifier: Apache-2.0
// One integer read from a procfs/sysfs knob file, for the host knob and defer readers: the
// actuator's reader (driver/knobs/integer_file.h), with a missing file as "no such knob".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace nictune::observe {

// The file's value; nullopt when the file does not exist (the kernel or a container does not
// offer the knob). An unreadable file or text that is not one integer is an error naming it.
absl::StatusOr<std::optional<int64_t>> ReadIntegerFile(const std::string& path);

}  // namespace nictune::observe
