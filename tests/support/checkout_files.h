// SPDX-License-Identifier: Apache-2.0
// The files of the source checkout that a whole-tree check reads (SPDX lines, the documents'
// rules): every regular file `wanted` accepts, leaving out .git, node_modules and build folders
// (any folder holding a CMakeCache.txt) wherever they are.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::testing_support {

absl::StatusOr<std::vector<std::filesystem::path>> CheckoutFiles(
    const std::filesystem::path& root,
    const std::function<bool(const std::filesystem::path&)>& wanted);

}  // namespace nictune::testing_support
