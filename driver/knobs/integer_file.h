// SPDX-License-Identifier: Apache-2.0
// A kernel setting that is one decimal integer in a file (/proc/sys, /sys/class/net/DEV/...):
// read it, or write it with a single write(2) of its decimal text and read it back.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::driver::knobs {

// `what` names the setting in messages ("netdev_budget on host"); the path is added to it.
// A missing file is Unimplemented ("unsupported": the kernel or device does not have it); other
// errors map their errno like the netlink code (EACCES/EPERM -> PermissionDenied, EINVAL/ERANGE
// -> InvalidArgument, ...). Text that is not one decimal integer (plus a newline) is DataLoss.
absl::StatusOr<int64_t> ReadIntegerFile(const std::string& path, const std::string& what);

// Writes the decimal text of `value` in one write(2), then reads the file back: a kernel that
// kept another value (it rounded or clamped) is FailedPrecondition naming both values.
absl::Status WriteIntegerFile(const std::string& path, int64_t value, const std::string& what);

// The parser ReadIntegerFile uses (exposed for tests and fuzzers): "123\n", "-5".
absl::StatusOr<int64_t> ParseIntegerText(const std::string& text, const std::string& what);

}  // namespace nictune::driver::knobs
