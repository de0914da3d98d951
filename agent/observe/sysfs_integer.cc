// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/sysfs_integer.h"

#include "absl/status/status.h"
#include "driver/knobs/integer_file.h"

namespace nictune::observe {

absl::StatusOr<std::optional<int64_t>> ReadIntegerFile(const std::string& path) {
  absl::StatusOr<int64_t> value = driver::knobs::ReadIntegerFile(path, "knob");
  // The knob reader's "unsupported": no such file.
  if (absl::IsUnimplemented(value.status())) return std::optional<int64_t>();
  if (!value.ok()) return value.status();
  return std::optional<int64_t>(*value);
}

}  // namespace nictune::observe
