// SPDX-License-Identifier: Apache-2.0
// The "CPU0 CPU1 ..." header line of /proc/interrupts and /proc/softirqs.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

// The CPU numbers of a header line, in order (absent CPUs leave gaps). An error names `path`,
// line 1, when a column is not CPUn or there is none.
absl::StatusOr<std::vector<int>> ParseCpuColumns(std::string_view header, std::string_view path);

}  // namespace nictune::procfs
