// SPDX-License-Identifier: Apache-2.0
// The CPUs isolated from the scheduler (isolcpus=), read from sysfs: no unbound kernel thread runs
// there, so their idle time is none that a device's NAPI threads could take.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::observe {

// SYS_ROOT/devices/system/cpu/isolated as CPU numbers; none when it is blank or missing (a kernel
// without it). Unreadable or malformed text is an error naming the file.
absl::StatusOr<std::vector<int>> ReadIsolatedCpus(const std::string& sys_root);

}  // namespace nictune::observe
