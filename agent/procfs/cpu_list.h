// SPDX-License-Identifier: Apache-2.0
// CPU list syntax ("0-3,8,10-11") of /proc/irq/N/smp_affinity_list and /sys/.../online.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text, std::string_view path);

}  // namespace nictune::procfs
